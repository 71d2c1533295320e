"""The one call path every Python op uses: views -> cached descriptor -> workspace -> execute.

Descriptors are cached per (backend, layouts, attributes), so a repeated call with the same shapes,
strides and dtypes costs one dict lookup and one C call. Workspaces are kept per backend and grown
on demand (work is stream-ordered, so reusing one buffer on one stream is safe).

The cache-hit path also exists in C (_fastcall.c, a stable-ABI extension installed next to this file)
for oprt.Tensor and torch tensors: it builds the same key, looks up the same cache and executes, and
hands every other call (numpy, cache misses, odd arguments) to the Python path here, so results and
errors are the same. OPRT_FASTCALL=0, or an extension that is missing or fails to load, leaves only
the Python path.
"""

from __future__ import annotations

import collections
import ctypes
import os
import sys

from . import _backends as _backend
from ._lib import Layout, check, declare_operator, lib
from .tensor import Tensor, View, check_placement, torch_dtype_codes, view_of

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


def cache_key(backend_id: int, attrs, views) -> tuple:
    """The descriptor-cache key; _fastcall.c builds the same tuple from the tensors' attributes.

    v.device is part of it: check_placement runs only on a miss, so a host array must never hit a
    descriptor cached for device tensors of the same layout (or the reverse)."""
    return (backend_id, attrs) + tuple((v.dtype, v.shape, v.strides, v.device) for v in views)


def _load_fastcall():
    if os.environ.get("OPRT_FASTCALL") == "0":
        return None
    try:
        from . import _fastcall
    except ImportError:  # not built (a source checkout outside Bazel) or a Python older than 3.10
        return None
    _fastcall.configure(ctypes.cast(lib.oprt_get_backend, ctypes.c_void_p).value, Tensor, check, _workspaces)
    return _fastcall


_fastcall = _load_fastcall()
_fastcall_lacks_torch = _fastcall is not None


def fastcall_enabled() -> bool:
    """True when calls on oprt.Tensor / torch tensors take the compiled fast path (operator_runtime._fastcall)."""
    return _fastcall is not None


def _fastcall_use_torch() -> None:
    """Lets the fast path take torch tensors, once torch is imported (we never import it ourselves)."""
    global _fastcall_lacks_torch
    import torch

    _fastcall_lacks_torch = False
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # absent from CPU-only builds
    _fastcall.use_torch((torch.Tensor, torch.nn.Parameter), torch_dtype_codes(), raw_stream)


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
        self._fast = None
        if _fastcall is not None and num_inputs <= _fastcall.MAX_INPUTS:  # more inputs: the Python path only
            execute_address = ctypes.cast(self._execute, ctypes.c_void_p).value
            self._fast = _fastcall.FastOperator(execute_address, num_inputs, self._descriptors)

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
            if self._fast is not None:
                self._fast.descriptor_evicted()  # it may remember `old` as its last hit
            self._destroy(old)
        return entry

    def __call__(self, out, inputs, attrs=(), stream=None):
        """Runs the op writing `out` (any supported tensor object) from `inputs`; returns `out`."""
        if self._fast is not None and self._fast.run(out, inputs, attrs, stream):
            return out
        return self._call_python(out, inputs, attrs, stream)

    def _call_python(self, out, inputs, attrs, stream):
        if _fastcall_lacks_torch and "torch" in sys.modules:
            _fastcall_use_torch()
        views = [view_of(out)] + [view_of(x) for x in inputs]
        key = cache_key(lib.oprt_get_backend(), attrs, views)
        entry = self._descriptors.get(key)
        if entry is None:
            entry = self._descriptor(key, views, attrs)
        desc, ws_bytes, backend_name = entry
        workspace = _workspaces.get(backend_name, ws_bytes) if ws_bytes else None
        if stream is None:
            stream = _stream_for(views)
        check(self._execute(desc, workspace, ws_bytes, *[v.ptr for v in views], stream))
        return out
