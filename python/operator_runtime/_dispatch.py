"""The one call path every Python op uses: views -> backend -> cached descriptor -> workspace -> execute.

The backend of a call (_backends' docstring has the rule): the call's backend=, else the context's
explicit choice, else where its tensors live (mixed placements are an InvalidArgumentError), else cpu.

Descriptors are cached per (backend, layouts, attributes), so a repeated call with the same shapes,
strides and dtypes costs one dict lookup and one C call. A cache entry holds a _Descriptor that
destroys its C descriptor when the last reference goes: a call holds the entry while it executes
(ctypes and the fast path release the GIL), so evicting it in another thread never frees it mid-call.
A descriptor that needs a workspace gets one of its own per call, allocated and freed in order on
the call's stream (oprt_malloc_async / oprt_free_async): calls on other streams never share it.

The cache-hit path also exists in C (_fastcall.c, a stable-ABI extension installed next to this file)
for oprt.Tensor and torch tensors: it builds the same key, looks up the same cache and executes, and
hands every other call (numpy, cache misses, odd arguments) to the Python path here, so results and
errors are the same. OPRT_FASTCALL=0, or an extension that is missing or fails to load, leaves only
the Python path.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import operator
import os
import re
import sys
import threading

import numpy as np

from . import _backends as _backend
from . import errors
from ._lib import Layout, check, declare_operator, lib
from .errors import BackendUnavailableError, InvalidArgumentError
from .tensor import NO_DEVICE_BACKEND, Tensor, View, check_placement, describe, output_view, torch_dtype_codes, view_of

_CACHE_SIZE = 512

# C name -> Operator: every operator the Python side binds (each Operator registers itself). The contract
# tests (tests/test_contract.py, tests/test_c_api.py) run on each, with the testing.Contract its cases.py lists.
OPERATORS = {}


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


def int32_axis(axis) -> int:
    """An axis for a C int32 parameter: TypeError for 1.7 (as numpy), InvalidArgumentError outside
    int32 (never a silently wrapped value)."""
    i = operator.index(axis)
    if not -(2**31) <= i < 2**31:
        raise InvalidArgumentError("axis %d is out of range" % i)
    return i


def axis_or_dim(axis, dim, default):
    """axis=, or dim= (torch's name for it); not both."""
    if dim is None:
        return axis
    if axis != default:
        raise TypeError("pass axis= or dim=, not both")
    return dim


@contextlib.contextmanager
def _kernel_variant(impl):
    """The thread's C kernel variant is `impl` inside (None: the default kernel), the default after."""
    if impl is None:
        yield
        return
    check(lib.oprt_set_kernel_variant(impl.encode()))
    try:
        yield
    finally:
        lib.oprt_set_kernel_variant(None)


class _Descriptor:
    """Owns one C descriptor and destroys it when the last reference (cache entry, running call) goes."""

    __slots__ = ("handle", "_destroy")

    def __init__(self, handle: int, destroy):
        self.handle, self._destroy = handle, destroy

    def __del__(self):
        self._destroy(self.handle)  # a ctypes function held here: still callable at interpreter teardown


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
    # The workspace entry points, so that calls whose descriptor needs a workspace take the fast path too.
    addresses = tuple(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                      for name in ("oprt_malloc_async", "oprt_free_async", "oprt_get_backend", "oprt_set_backend"))
    _fastcall.configure(_backend.explicit, Tensor, check, addresses)
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
    _fastcall.use_torch((torch.Tensor, torch.nn.Parameter), torch_dtype_codes(), raw_stream,
                        _backend.device_backend())  # the backend of torch's CUDA tensors


def _stream_for(views) -> int | None:
    """torch's current stream when a torch CUDA tensor takes part, so we order after its work."""
    for v in views:
        if v.device and type(v.obj).__module__.startswith("torch"):
            import torch

            # The raw getter costs well under a microsecond; torch.cuda.current_stream() costs several.
            return torch._C._cuda_getCurrentRawStream(v.obj.get_device())
    return None


def placement(views, names) -> int:
    """The backend the call's tensors live on (cpu when none has a place: scalars only); mixed placements
    are an InvalidArgumentError naming the parameters, device memory without a GPU backend in this library
    a BackendUnavailableError."""
    found = None
    order = list(range(1, len(views))) + [0]  # inputs first, then out: "a is ... but b is ..."
    for k in order:
        v = views[k]
        if v.placement is None or v.placement == found:
            continue
        if v.placement == NO_DEVICE_BACKEND:
            raise BackendUnavailableError(
                "%s is %s, but this library has no GPU backend (compiled: %s); build it with "
                "--config=nvidia" % (names[k], describe(v), ", ".join(_backend.compiled_backends())))
        if found is not None:
            first = next(j for j in order if views[j].placement == found)
            raise InvalidArgumentError(
                "%s is %s (backend %s) but %s is %s (backend %s): put them on one device, or choose the backend "
                "with backend= / `with oprt.backend(...)`" % (
                    names[first], describe(views[first]), _backend.NAMES[found], names[k], describe(v),
                    _backend.NAMES[v.placement]))
        found = v.placement
    return _backend.CPU if found is None else found


class Operator:
    """One C operator: its descriptor cache, its fast path, and the Python call path.

    name: the C name (oprt_<name>_create ...); attr_types: the ctypes types of its attribute arguments;
    num_inputs: its input tensors; names: the Python parameter names of (output, inputs...), used in error
    messages; c_names: the names the C library's messages use for them (they are rewritten to the Python
    ones). The first Operator of a name registers itself in OPERATORS."""

    def __init__(self, name: str, attr_types: list, num_inputs: int, names=None, c_names=None):
        self.name = name
        self.attr_types = list(attr_types)
        self.num_inputs = num_inputs
        self.names = tuple(names or ("out",) + (("x",) if num_inputs == 1 else tuple("abcdefgh"[:num_inputs])))
        self.c_names = tuple(c_names or self.names)
        self._renames = {c: py for c, py in zip(self.c_names, self.names) if c != py}
        self._rename = (re.compile(r"\b(%s)\b" % "|".join(map(re.escape, self._renames)))
                        if self._renames else None)
        self._create, self._workspace, self._execute, self._destroy = declare_operator(name, attr_types, num_inputs)
        self._descriptors = collections.OrderedDict()
        self._insert_lock = threading.Lock()  # insertion + eviction; lookups need none
        self._fast = None
        if _fastcall is not None and num_inputs <= _fastcall.MAX_INPUTS:  # more inputs: the Python path only
            execute_address = ctypes.cast(self._execute, ctypes.c_void_p).value
            self._fast = _fastcall.FastOperator(execute_address, num_inputs, self._descriptors, self._check)
        OPERATORS.setdefault(name, self)  # (a second one of the name, e.g. a test's fresh cache, is not the binding)

    def _check(self, status: int) -> None:
        """check(), with the C library's tensor names in the message replaced by the Python parameters'."""
        if status:
            detail = lib.oprt_last_error().decode("utf-8", "replace")
            if self._rename is not None:
                detail = self._rename.sub(lambda m: self._renames[m.group(1)], detail)
            raise errors.error_for(status, detail)

    def _descriptor(self, key, views, attrs, impl=None):
        backend_id = key[0]
        check_placement(views, _backend.NAMES[backend_id], self.names)
        desc = ctypes.c_void_p()
        layouts = [make_layout(v) for v in views]
        # Created on the call's backend (which the key names) and, for impl=, that kernel variant.
        with _backend.on(backend_id), _kernel_variant(impl):
            self._check(self._create(ctypes.byref(desc), *[ctypes.byref(l) for l in layouts], *attrs))
        owner = _Descriptor(desc.value, self._destroy)
        size = ctypes.c_size_t()
        self._check(self._workspace(owner.handle, ctypes.byref(size)))
        # (handle, workspace bytes, owner): _fastcall reads the first two. A racing miss on the same key
        # replaces the entry; the replaced owner goes with the last call using it.
        entry = (owner.handle, size.value, owner)
        with self._insert_lock:
            self._descriptors[key] = entry
            if len(self._descriptors) > _CACHE_SIZE:
                self._descriptors.popitem(last=False)  # destroyed once no running call holds it
        return entry

    def __call__(self, out, inputs, attrs=(), stream=None, impl=None, backend=None):
        """Runs the op writing `out` (any supported tensor object) from `inputs`; returns `out`. `impl`
        names a kernel variant ("cute"); None is the backend's default kernel. `backend` is a backend id
        chosen for this call (None: the context's choice, else the tensors' placement)."""
        if impl is None and self._fast is not None and self._fast.run(out, inputs, attrs, stream, backend):
            return out
        return self._call_python(out, inputs, attrs, stream, impl, backend)

    def _call_python(self, out, inputs, attrs, stream, impl=None, backend=None):
        if _fastcall_lacks_torch and "torch" in sys.modules:
            _fastcall_use_torch()
        if impl == "default":
            impl = None
        out_view, write_back = output_view(out)
        views = [out_view] + [view_of(x) for x in inputs]
        if backend is None:
            backend = _backend.explicit()
            if backend is None:
                backend = placement(views, self.names)
        if backend in _backend.PY_BACKENDS:  # tilelang: validated and run by its module (no C descriptor cached)
            return _backend.py_backend(backend).run(self, out, views, attrs, impl)
        # A variant's descriptors get keys the fast path (which only runs default kernels) never builds.
        key = cache_key(backend, attrs if impl is None else ("impl", impl, attrs), views)
        entry = self._descriptors.get(key)  # held until the call returns: keeps the descriptor alive
        if entry is None:
            entry = self._descriptor(key, views, attrs, impl)
        desc, ws_bytes, _ = entry
        if stream is None:
            stream = _stream_for(views)
        pointers = [v.ptr for v in views]
        if ws_bytes:
            with _backend.on(backend):  # the descriptor's backend (the key's)
                workspace = ctypes.c_void_p()
                check(lib.oprt_malloc_async(ctypes.byref(workspace), ws_bytes, stream))
                try:
                    self._check(self._execute(desc, workspace, ws_bytes, *pointers, stream))
                finally:
                    check(lib.oprt_free_async(workspace, stream))
        else:
            self._check(self._execute(desc, None, 0, *pointers, stream))
        if write_back is not None:  # a numpy out the C API could not take, computed into a copy
            write_back[...] = out_view.obj
        return out


def numpy_result(out, given):
    """What an op returns: `out`, except that a 0-d numpy array it allocated itself becomes a numpy scalar,
    as numpy's reductions and ufuncs return (np.float32(...), not array(...))."""
    if given is None and type(out) is np.ndarray and out.ndim == 0:
        return out[()]
    return out
