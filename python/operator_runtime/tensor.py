"""Tensors as the runtime sees them: dtype codes, zero-copy views of numpy / torch / cupy / DLPack
objects, and oprt.Tensor, our own device tensor (any layout, with from_numpy() and numpy())."""

from __future__ import annotations

import ctypes
import math
import operator
from typing import NamedTuple

import numpy as np

from . import _backends as _backend
from ._lib import MAX_NDIM, check, lib
from .errors import BadDtypeError, BadShapeError, BadStridesError, InvalidArgumentError

try:
    import ml_dtypes

    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bf16 numpy arrays need ml_dtypes; everything else works without it
    BFLOAT16 = None

F32, F16, BF16, F64 = 0, 1, 2, 3
_NUMPY_CODES = {np.dtype(np.float32): F32, np.dtype(np.float16): F16, np.dtype(np.float64): F64}
if BFLOAT16 is not None:
    _NUMPY_CODES[BFLOAT16] = BF16
NUMPY_DTYPES = {code: dtype for dtype, code in _NUMPY_CODES.items()}
_DLPACK_CODES = {(2, 32): F32, (2, 16): F16, (4, 16): BF16, (2, 64): F64}  # (kDLFloat / kDLBfloat, bits)
_CAI_CODES = {"<f4": F32, "<f2": F16, "<f8": F64}
_INT64_MAX = 2**63 - 1


class View(NamedTuple):
    """What a kernel call needs of one tensor. `device` is True for device memory."""

    obj: object
    ptr: int
    dtype: int
    shape: tuple
    strides: tuple  # in elements
    device: bool
    readonly: bool = False


def dtype_code(dtype) -> int:
    try:
        return _NUMPY_CODES[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise BadDtypeError("dtype %s is not supported (float32, float16, bfloat16, float64)" % (dtype,)) from None


def _element_strides(byte_strides, itemsize):
    strides = []
    for s in byte_strides:
        if s % itemsize:
            raise BadStridesError("byte stride %d is not a multiple of the item size %d" % (s, itemsize))
        strides.append(s // itemsize)
    return tuple(strides)


_torch_codes = None


def torch_dtype_codes() -> dict:
    """{torch dtype: code}; imports torch, so only once a torch tensor is seen."""
    global _torch_codes
    if _torch_codes is None:
        import torch

        _torch_codes = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16, torch.float64: F64}
    return _torch_codes


def _torch_view(x):
    code = torch_dtype_codes().get(x.dtype)
    if code is None:
        raise BadDtypeError("torch dtype %s is not supported" % x.dtype)
    return View(x, x.data_ptr(), code, tuple(x.shape), x.stride(), x.is_cuda)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def _dlpack_view(x):
    """Reads a DLPack capsule without consuming it (the producer keeps ownership)."""
    capsule = x.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    code = _DLPACK_CODES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if code is None:
        raise BadDtypeError("DLPack dtype (code %d, %d bits) is not supported" % (t.dtype.code, t.dtype.bits))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides = tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(t.ndim))
    device = t.device.device_type != 1  # kDLCPU
    # Keep the capsule alive with the view: it owns the producer's reference.
    return View((x, capsule), (t.data or 0) + t.byte_offset, code, shape, strides, device)


def _c_strides(x, ptr):
    """x's strides in elements, or None where the C API cannot take x as it is: negative strides, or
    data / strides not aligned to the item size."""
    itemsize = x.itemsize
    if ptr % itemsize:
        return None
    strides = []
    for s in x.strides:
        if s < 0 or s % itemsize:
            return None
        strides.append(s // itemsize)
    return tuple(strides)


def _numpy_view(x):
    ptr, readonly = x.__array_interface__["data"]
    strides = _c_strides(x, ptr)
    if strides is None:  # staged: an aligned contiguous copy (output_view copies the result back)
        x = x.copy()
        ptr = x.__array_interface__["data"][0]
        strides = _c_strides(x, ptr)
    return View(x, ptr, dtype_code(x.dtype), x.shape, strides, False, readonly)


def _converted_view(x):  # lists, scalars...: inputs only (output_view refuses them)
    return _numpy_view(np.asarray(x))


def _tensor_view(x):
    return View(x, x.data_ptr, x.dtype_code, x.shape, x.strides, x.device)


def _cuda_array_interface_view(x):
    cai = x.__cuda_array_interface__
    code = _CAI_CODES.get(cai["typestr"])
    if code is None:
        raise BadDtypeError("__cuda_array_interface__ typestr %s is not supported" % cai["typestr"])
    shape = tuple(cai["shape"])
    itemsize = np.dtype(cai["typestr"]).itemsize
    if cai.get("strides"):
        strides = _element_strides(cai["strides"], itemsize)
    else:
        strides = tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape)))
    return View(x, cai["data"][0], code, shape, strides, True, bool(cai["data"][1]))


def _view_maker(cls):
    """Picks how to view objects of type `cls` (decided once per type: this is the hot path)."""
    if issubclass(cls, np.ndarray):
        return _numpy_view
    if issubclass(cls, Tensor):
        return _tensor_view
    if cls.__module__.startswith("torch"):
        return _torch_view
    if hasattr(cls, "__cuda_array_interface__"):
        return _cuda_array_interface_view
    if hasattr(cls, "__dlpack__"):
        return _dlpack_view
    return _converted_view


_view_makers = {}


def _maker_of(cls):
    maker = _view_makers.get(cls)
    if maker is None:
        maker = _view_makers[cls] = _view_maker(cls)
    return maker


def view_of(x) -> View:
    """A zero-copy view of x: numpy array, oprt.Tensor, torch tensor, CUDA-array-interface or DLPack object
    (a numpy array the C API cannot take, e.g. with negative strides, is viewed through a copy)."""
    return _maker_of(type(x))(x)


def output_view(out):
    """(the view the op writes, the numpy array to copy it into afterwards or None): as in numpy, out=
    must be an array or tensor, and writable."""
    maker = _maker_of(type(out))
    if maker is _converted_view:
        raise InvalidArgumentError("out= must be an array or tensor, not %s" % type(out).__name__)
    v = maker(out)
    if v.readonly:
        raise InvalidArgumentError("output array is read-only")
    return v, (out if maker is _numpy_view and v.obj is not out else None)


def checked_shape(shape, itemsize: int) -> tuple:
    """shape (an int or a sequence of them) as a tuple of ints >= 0 whose byte size fits in int64
    (empty dims counted as 1, so that every stride fits too)."""
    try:
        shape = (operator.index(shape),)
    except TypeError:
        shape = tuple(operator.index(n) for n in shape)  # TypeError for floats, as numpy
    if len(shape) > MAX_NDIM:
        raise BadShapeError("%d dims requested; at most %d are supported" % (len(shape), MAX_NDIM))
    if any(n < 0 for n in shape):
        raise BadShapeError("negative dimensions are not allowed: %s" % (shape,))
    if math.prod(max(n, 1) for n in shape) * itemsize > _INT64_MAX:
        raise BadShapeError("shape %s of %d-byte elements is too big (its byte size overflows int64)" % (shape, itemsize))
    return shape


def span_bytes(shape, strides, itemsize: int) -> int:
    """Bytes from the first element to the end of the last (0 when empty), checked to fit in int64."""
    if any(s < 0 for s in strides):
        raise BadStridesError("negative strides are not supported: %s" % (strides,))
    if 0 in shape:
        return 0
    span = (sum((n - 1) * s for n, s in zip(shape, strides)) + 1) * itemsize
    if span > _INT64_MAX:
        raise BadShapeError("shape %s with strides %s spans %d bytes, more than int64 holds" % (shape, strides, span))
    return span


def empty_like(template: View, shape, dtype_code_: int | None = None):
    """A new output of the same kind as `template` (numpy, oprt.Tensor, torch or cupy)."""
    code = template.dtype if dtype_code_ is None else dtype_code_
    obj = template.obj[0] if isinstance(template.obj, tuple) else template.obj
    module = type(obj).__module__
    if module.startswith("torch"):
        import torch

        return torch.empty(tuple(shape), dtype=obj.dtype, device=obj.device)
    if module.startswith("cupy"):
        return type(obj)(tuple(shape), dtype=obj.dtype)
    if template.device:
        return Tensor.empty(shape, NUMPY_DTYPES[code])
    return np.empty(tuple(shape), dtype=NUMPY_DTYPES[code])


class _Buffer:
    """Memory of the context's backend, freed there when the last Tensor using it goes."""

    def __init__(self, nbytes: int):
        self.ptr = 0  # so that __del__ after a failed malloc has nothing to free
        nbytes = operator.index(nbytes)
        if not 0 <= nbytes <= _INT64_MAX:
            raise BadShapeError("cannot allocate %d bytes" % nbytes)
        self.backend_id = _backend.sync()
        self.backend = _backend.NAMES[self.backend_id]
        self.nbytes = nbytes
        ptr = ctypes.c_void_p()
        check(lib.oprt_malloc(ctypes.byref(ptr), nbytes))
        self.ptr = ptr.value or 0

    def memcpy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        """oprt_memcpy on this buffer's backend, whichever one the context has."""
        check(_backend.call_on(self.backend_id, lib.oprt_memcpy, dst, src, nbytes, kind))

    def __del__(self):
        if self.ptr and _backend is not None:  # (None: interpreter teardown)
            _backend.call_on(self.backend_id, lib.oprt_free, self.ptr)


_H2D, _D2H = 1, 2


class Tensor:
    """A tensor in the memory of the backend active at creation, with any non-negative strides."""

    def __init__(self, buffer: _Buffer, offset: int, shape, strides, dtype):
        self._buffer = buffer
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)  # in elements
        self.dtype = np.dtype(dtype)
        self.dtype_code = dtype_code(self.dtype)
        if offset < 0 or offset + span_bytes(self.shape, self.strides, self.dtype.itemsize) > buffer.nbytes:
            raise BadShapeError("shape %s, strides %s at byte offset %d do not fit a buffer of %d bytes"
                                % (self.shape, self.strides, offset, buffer.nbytes))
        self.data_ptr = buffer.ptr + offset
        self.device = buffer.backend != "cpu"  # plain attributes: the fast path reads them on every call
        self._offset = offset

    @property
    def backend(self) -> str:
        return self._buffer.backend

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @classmethod
    def empty(cls, shape, dtype=np.float32) -> "Tensor":
        dtype = np.dtype(dtype)
        shape = checked_shape(shape, dtype.itemsize)
        strides = tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))
        return cls(_Buffer(math.prod(shape) * dtype.itemsize), 0, shape, strides, dtype)

    @classmethod
    def from_numpy(cls, array: np.ndarray) -> "Tensor":
        """Copies `array` to the active backend keeping its exact layout (strides, broadcast, offsets)."""
        array = np.asarray(array)
        dtype_code(array.dtype)
        if any(s < 0 for s in array.strides):
            raise BadStridesError("negative strides are not supported; pass np.ascontiguousarray(array)")
        strides = _element_strides(array.strides, array.itemsize)
        span = span_bytes(array.shape, strides, array.itemsize)
        buffer = _Buffer(span)
        if span:
            buffer.memcpy(buffer.ptr, array.__array_interface__["data"][0], span, _H2D)
        return cls(buffer, 0, array.shape, strides, array.dtype)

    def numpy(self) -> np.ndarray:
        """A host copy with the same shape (contiguous)."""
        itemsize = self.dtype.itemsize
        span = span_bytes(self.shape, self.strides, itemsize)
        host = np.empty(span // itemsize, dtype=self.dtype)
        if span:
            # On the tensor's own backend: with another one active (e.g. cpu after a `with
            # oprt.backend("nvidia")` block) the copy would dereference a device pointer on the host.
            self._buffer.memcpy(host.__array_interface__["data"][0], self.data_ptr, span, _D2H)
        view = np.lib.stride_tricks.as_strided(host, self.shape, tuple(s * itemsize for s in self.strides))
        return view.copy(order="C")  # (np.ascontiguousarray would turn a 0-d tensor into shape (1,))

    @property
    def __cuda_array_interface__(self):
        if self.backend != "nvidia":
            raise AttributeError("__cuda_array_interface__ exists only for nvidia tensors")
        if self.dtype_code == BF16:
            raise AttributeError("bfloat16 has no __cuda_array_interface__ typestr; use oprt's own ops")
        itemsize = self.dtype.itemsize
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.data_ptr, False),
            "strides": tuple(s * itemsize for s in self.strides),
            "version": 3,
        }

    def __repr__(self):
        return "oprt.Tensor(shape=%s, strides=%s, dtype=%s, backend=%s)" % (
            self.shape, self.strides, self.dtype, self.backend)


def check_placement(views, backend: str) -> None:
    """Host arrays on the CPU backend, device tensors on a device backend, never mixed."""
    want_device = backend != "cpu"
    for v in views:
        if v.device != want_device:
            where = "device tensors (oprt.Tensor.from_numpy(x), torch/cupy CUDA tensors)" if want_device else "host arrays (numpy)"
            raise InvalidArgumentError("the %s backend takes %s; got %s" % (backend, where, type(v.obj).__name__))
        if isinstance(v.obj, Tensor) and v.obj.backend != backend:
            raise InvalidArgumentError("tensor lives on backend %r but the active backend is %r" % (v.obj.backend, backend))
