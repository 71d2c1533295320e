"""The one call path every Python op uses: views -> cached descriptor -> workspace -> execute.

Descriptors are cached per (backend, layouts, attributes), so a repeated call with the same shapes,
strides and dtypes costs one dict lookup and one C call. Workspaces are kept per backend and grown
on demand (work is stream-ordered, so reusing one buffer on one stream is safe).
"""

from __future__ import annotations

import collections
import ctypes

from . import _backends as _backend
from ._lib import Layout, check, declare_operator, lib
from .tensor import View, check_placement, view_of

_CACHE_SIZE = 512


def make_layout(view: View) -> Layout:
    layout = Layout()
    layout.dtype = view.dtype
    layout.ndim = len(view.shape)
    if layout.ndim > len(layout.shape):
        from .errors import BadShapeError

        raise BadShapeError("%d dims given; at most %d are supported" % (layout.ndim, len(layout.shape)))
    layout.shape[: layout.ndim] = view.shape
    layout.strides[: layout.ndim] = view.strides
    return layout


class _Workspaces:
    def __init__(self):
        self._buffers = {}

    def get(self, backend: str, nbytes: int) -> int:
        from .tensor import _Buffer

        buffer = self._buffers.get(backend)
        if buffer is None or buffer.nbytes < nbytes:
            self._buffers[backend] = buffer = _Buffer(nbytes)
        return buffer.ptr


_workspaces = _Workspaces()


def _stream_for(views) -> int | None:
    """torch's current stream when a torch CUDA tensor takes part, so we order after its work."""
    for v in views:
        if v.device and type(v.obj).__module__.startswith("torch"):
            import torch

            # The raw getter costs well under a microsecond; torch.cuda.current_stream() costs several.
            return torch._C._cuda_getCurrentRawStream(v.obj.get_device())
    return None


class Operator:
    def __init__(self, name: str, attr_types: list, num_inputs: int):
        self.name = name
        self._attr_types = attr_types
        self._create, self._workspace, self._execute, self._destroy = declare_operator(name, attr_types, num_inputs)
        self._descriptors = collections.OrderedDict()

    def _descriptor(self, key, views, attrs):
        check_placement(views, _backend.get_backend())
        desc = ctypes.c_void_p()
        layouts = [make_layout(v) for v in views]
        check(self._create(ctypes.byref(desc), *[ctypes.byref(l) for l in layouts], *attrs))
        size = ctypes.c_size_t()
        check(self._workspace(desc, ctypes.byref(size)))
        entry = self._descriptors[key] = (desc.value, size.value, _backend.get_backend())
        if len(self._descriptors) > _CACHE_SIZE:
            _, (old, _, _) = self._descriptors.popitem(last=False)
            self._destroy(old)
        return entry

    def __call__(self, out, inputs, attrs=(), stream=None):
        """Runs the op writing `out` (any supported tensor object) from `inputs`; returns `out`."""
        views = [view_of(out)] + [view_of(x) for x in inputs]
        # v.device is part of the key: check_placement runs only on a miss, so a host array must never hit a
        # descriptor cached for device tensors of the same layout (or the reverse).
        key = (lib.oprt_get_backend(), attrs) + tuple((v.dtype, v.shape, v.strides, v.device) for v in views)
        entry = self._descriptors.get(key)
        if entry is None:
            entry = self._descriptor(key, views, attrs)
        desc, ws_bytes, backend_name = entry
        workspace = _workspaces.get(backend_name, ws_bytes) if ws_bytes else None
        if stream is None:
            stream = _stream_for(views)
        check(self._execute(desc, workspace, ws_bytes, *[v.ptr for v in views], stream))
        return out
