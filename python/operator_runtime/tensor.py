"""Tensors as the runtime sees them: dtype codes, zero-copy views of numpy / torch / cupy / DLPack
objects with their placement (which backend's memory they are in), and oprt.Tensor, our own tensor in a
backend's memory (any layout; from_numpy() / numpy(), __array__, __dlpack__)."""

from __future__ import annotations

import ctypes
import math
import operator
import sys
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


# A view's placement when it is device memory but the library has no GPU backend to own it.
NO_DEVICE_BACKEND = -1


class View(NamedTuple):
    """What a kernel call needs of one tensor. `device` is True for device memory; `placement` is the id of
    the backend whose memory it is (cpu for host arrays, the GPU backend for CUDA tensors, an oprt.Tensor's
    own backend), None for what has no place of its own (Python scalars and lists, converted to numpy)."""

    obj: object
    ptr: int
    dtype: int
    shape: tuple
    strides: tuple  # in elements
    device: bool
    readonly: bool = False
    placement: int | None = _backend.CPU


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


def _device_placement() -> int:
    i = _backend.device_backend()
    return NO_DEVICE_BACKEND if i is None else i


def _torch_view(x):
    code = torch_dtype_codes().get(x.dtype)
    if code is None:
        raise BadDtypeError("torch dtype %s is not supported" % x.dtype)
    cuda = x.is_cuda
    return View(x, x.data_ptr(), code, tuple(x.shape), x.stride(), cuda, False,
                _device_placement() if cuda else _backend.CPU)


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
    device = t.device.device_type != _KDL_CPU
    # Keep the capsule alive with the view: it owns the producer's reference.
    return View((x, capsule), (t.data or 0) + t.byte_offset, code, shape, strides, device, False,
                _device_placement() if device else _backend.CPU)


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


def _converted_view(x):  # lists, scalars...: inputs only (output_view refuses them); no placement
    return _numpy_view(np.asarray(x))._replace(placement=None)


def _tensor_view(x):
    return View(x, x.data_ptr, x.dtype_code, x.shape, x.element_strides, x.device, False, x.backend_id)


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
    return View(x, cai["data"][0], code, shape, strides, True, bool(cai["data"][1]), _device_placement())


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


def new_like(x):
    """A new output of x's kind, placement, dtype and shape: empty_like(view_of(x), its shape), except that a torch
    tensor's comes from torch directly, without the view (the op's call builds it again), which was most of what
    allocating the output added to a call: torch.empty_like where x is contiguous (so is its output; the cheapest
    of torch's allocations, bench/lab/alloc_cost.py), else x.new_empty (contiguous whatever x's strides)."""
    if type(x).__module__.startswith("torch") and hasattr(x, "new_empty"):
        return sys.modules["torch"].empty_like(x) if x.is_contiguous() else x.new_empty(x.shape)
    v = view_of(x)
    return empty_like(v, v.shape)


def empty_like(template: View, shape, dtype_code_: int | None = None):
    """A new output of the same kind and placement as `template` (numpy, oprt.Tensor, torch or cupy)."""
    code = template.dtype if dtype_code_ is None else dtype_code_
    obj = template.obj[0] if isinstance(template.obj, tuple) else template.obj
    module = type(obj).__module__
    if module.startswith("torch"):
        import torch

        return torch.empty(tuple(shape), dtype=obj.dtype, device=obj.device)
    if module.startswith("cupy"):
        return type(obj)(tuple(shape), dtype=obj.dtype)
    if isinstance(obj, Tensor):  # where the template lives, cpu included
        return Tensor.empty(shape, NUMPY_DTYPES[code], backend=obj.backend)
    if template.device:  # other device memory (DLPack, __cuda_array_interface__): an oprt.Tensor on the GPU backend
        where = template.placement if template.placement != NO_DEVICE_BACKEND else None
        return Tensor.empty(shape, NUMPY_DTYPES[code], backend=None if where is None else _backend.NAMES[where])
    return np.empty(tuple(shape), dtype=NUMPY_DTYPES[code])


def describe(view: View) -> str:
    """What a tensor is and where it lives, for error messages: "a numpy.ndarray (host memory)"."""
    obj = view.obj[0] if isinstance(view.obj, tuple) else view.obj
    cls = type(obj)
    name = "oprt.Tensor" if isinstance(obj, Tensor) else "%s.%s" % (cls.__module__.split(".")[0], cls.__name__)
    if isinstance(obj, Tensor):
        return "an oprt.Tensor on %s" % obj.backend
    if cls.__module__.startswith("torch"):
        return "a %s on %s" % (name, obj.device)
    if view.placement is None:
        return "a %s (a Python value)" % cls.__name__
    return "a %s in %s memory" % (name, "device" if view.device else "host")


class _Buffer:
    """Memory of one backend (default: the context's), freed there when the last Tensor using it goes."""

    def __init__(self, nbytes: int, backend_id: int | None = None):
        self.ptr = 0  # so that __del__ after a failed malloc has nothing to free
        nbytes = operator.index(nbytes)
        if not 0 <= nbytes <= _INT64_MAX:
            raise BadShapeError("cannot allocate %d bytes" % nbytes)
        self.backend_id = _backend.current() if backend_id is None else backend_id
        self.backend = _backend.NAMES[self.backend_id]
        self.nbytes = nbytes
        ptr = ctypes.c_void_p()
        with _backend.on(self.backend_id):
            check(lib.oprt_malloc(ctypes.byref(ptr), nbytes))
        self.ptr = ptr.value or 0

    def memcpy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        """oprt_memcpy on this buffer's backend, whichever one the context has."""
        check(_backend.call_on(self.backend_id, lib.oprt_memcpy, dst, src, nbytes, kind))

    def __del__(self):
        if self.ptr and _backend is not None:  # (None: interpreter teardown)
            _backend.call_on(self.backend_id, lib.oprt_free, self.ptr)


_H2D, _D2H = 1, 2
_KDL_CPU, _KDL_CUDA, _KDL_EXT_DEV = 1, 2, 12  # DLPack device types
_KDL_FLOAT, _KDL_BFLOAT = 2, 4
_DLPACK_DEVICE = {"cpu": _KDL_CPU, "nvidia": _KDL_CUDA, "metax": _KDL_EXT_DEV}


class Tensor:
    """A tensor in one backend's memory (host memory for "cpu", device memory for a GPU backend), with any
    non-negative strides. Like a numpy array it has `shape`, `dtype`, `ndim`, `size`, `nbytes`, `itemsize`
    and byte `strides`; `element_strides` counts elements (as torch's stride() does). `backend` names where
    it lives: ops on it run there unless told otherwise.

    Make one with Tensor.empty(shape, dtype, backend=None) or Tensor.from_numpy(array, backend=None) (the
    context's backend by default: `with oprt.backend("nvidia"):` or backend="nvidia"); read it back with
    .numpy() or np.asarray(t) (both copy), or share it without a copy through DLPack
    (torch.from_dlpack(t), np.from_dlpack(t) for cpu tensors) or __cuda_array_interface__ (nvidia).
    """

    def __init__(self, buffer: _Buffer, offset: int, shape, element_strides, dtype):
        self._buffer = buffer
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.dtype_code = dtype_code(self.dtype)
        # Plain attributes: the fast path reads element_strides, data_ptr, device and backend_id per call.
        self.element_strides = tuple(int(s) for s in element_strides)
        self.strides = tuple(s * self.dtype.itemsize for s in self.element_strides)  # in bytes, as numpy's
        if offset < 0 or offset + span_bytes(self.shape, self.element_strides, self.dtype.itemsize) > buffer.nbytes:
            raise BadShapeError("shape %s, element strides %s at byte offset %d do not fit a buffer of %d bytes"
                                % (self.shape, self.element_strides, offset, buffer.nbytes))
        self.data_ptr = buffer.ptr + offset
        self.backend_id = buffer.backend_id
        self.device = buffer.backend != "cpu"
        self._offset = offset

    @property
    def backend(self) -> str:
        """The backend whose memory holds the tensor ("cpu", "nvidia", "metax")."""
        return self._buffer.backend

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @classmethod
    def empty(cls, shape, dtype=np.float32, backend: str | None = None) -> "Tensor":
        """An uninitialized contiguous tensor on `backend` (default: the context's backend)."""
        dtype = np.dtype(dtype)
        shape = checked_shape(shape, dtype.itemsize)
        strides = tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))
        where = None if backend is None else _backend.backend_id(backend)
        return cls(_Buffer(math.prod(shape) * dtype.itemsize, where), 0, shape, strides, dtype)

    @classmethod
    def from_numpy(cls, array: np.ndarray, backend: str | None = None) -> "Tensor":
        """Copies `array` to `backend` (default: the context's backend) keeping its exact layout (strides,
        broadcast, offsets); an array with negative strides is copied into a contiguous layout."""
        array = np.asarray(array)
        dtype_code(array.dtype)
        if any(s < 0 for s in array.strides):
            array = array.copy(order="C")  # (np.ascontiguousarray would turn a 0-d array into shape (1,))
        strides = _element_strides(array.strides, array.itemsize)
        span = span_bytes(array.shape, strides, array.itemsize)
        buffer = _Buffer(span, None if backend is None else _backend.backend_id(backend))
        if span:
            buffer.memcpy(buffer.ptr, array.__array_interface__["data"][0], span, _H2D)
        return cls(buffer, 0, array.shape, strides, array.dtype)

    def numpy(self) -> np.ndarray:
        """A host copy with the same shape (contiguous)."""
        itemsize = self.dtype.itemsize
        span = span_bytes(self.shape, self.element_strides, itemsize)
        host = np.empty(span // itemsize, dtype=self.dtype)
        if span:
            # On the tensor's own backend: with another one active (e.g. cpu after a `with
            # oprt.backend("nvidia")` block) the copy would dereference a device pointer on the host.
            self._buffer.memcpy(host.__array_interface__["data"][0], self.data_ptr, span, _D2H)
        view = np.lib.stride_tricks.as_strided(host, self.shape, self.strides)
        return view.copy(order="C")  # (np.ascontiguousarray would turn a 0-d tensor into shape (1,))

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t) / np.array(t): a host COPY of the whole tensor (from device memory on a GPU
        backend), made on every call; use .numpy() to say so, or DLPack to share a cpu tensor without one."""
        if copy is False:
            raise ValueError("an oprt.Tensor cannot be viewed as a numpy array without a copy; "
                             "use np.from_dlpack(t) for a cpu tensor")
        host = self.numpy()
        return host if dtype is None else host.astype(dtype, copy=False)

    def __dlpack_device__(self) -> tuple:
        """(DLPack device type, device id): (1, 0) kDLCPU for cpu, (2, 0) kDLCUDA for nvidia (the thread's
        current CUDA device, which the nvidia backend uses), (12, 0) kDLExtDev for metax."""
        return (_DLPACK_DEVICE[self.backend], 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule ("dltensor", DLPack 0.8 ABI) sharing this tensor's memory; the consumer keeps the
        buffer alive until it calls the deleter. `stream` (an int, CUDA) asks for the data to be ready on
        that stream: the device is synchronized first. copy=True exports a contiguous copy."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("oprt.Tensor on %s cannot be exported to DLPack device %s" % (self.backend, dl_device))
        if copy:
            from .ops import copy as copy_op

            clone = Tensor.empty(self.shape, self.dtype, backend=self.backend)
            copy_op(self, out=clone, backend=self.backend)
            return clone.__dlpack__(stream=stream)
        if self.device and stream is not None and stream != -1:
            _backend.synchronize(self.backend)
        return _dlpack_capsule(self)

    @property
    def __cuda_array_interface__(self):
        if self.backend != "nvidia":
            raise AttributeError("__cuda_array_interface__ exists only for nvidia tensors")
        if self.dtype_code == BF16:
            raise AttributeError("bfloat16 has no __cuda_array_interface__ typestr; use oprt's own ops")
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.data_ptr, False),
            "strides": self.strides,
            "version": 3,
        }

    def __repr__(self):
        return "oprt.Tensor(shape=%s, strides=%s, dtype=%s, backend=%s)" % (
            self.shape, self.strides, self.dtype, self.backend)


# ------------------------------------------------------------------------------------- DLPack export


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype, _capsule_new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype, _capsule_is_valid.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]
_capsule_raw_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_raw_pointer.restype, _capsule_raw_pointer.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]
_DLTENSOR = b"dltensor"
_exports = {}  # address of a DLManagedTensor -> what it needs alive (tensor, struct, shape/strides arrays)


def _release(address: int) -> None:
    _exports.pop(address, None)


@_DELETER
def _deleter(managed):  # called by the consumer when it no longer needs the memory (any thread; ctypes takes the GIL)
    _release(ctypes.addressof(managed.contents))


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):  # a capsule never consumed (still named "dltensor") frees its export
    if _capsule_is_valid(capsule, _DLTENSOR):
        _release(_capsule_raw_pointer(capsule, _DLTENSOR))


def _dlpack_capsule(t: Tensor):
    n = t.ndim
    shape = (ctypes.c_int64 * max(n, 1))(*t.shape)
    strides = (ctypes.c_int64 * max(n, 1))(*t.element_strides)
    managed = _DLManagedTensor()
    dl = managed.dl_tensor
    dl.data = t.data_ptr or None
    dl.device = _DLDevice(*t.__dlpack_device__())
    dl.ndim = n
    dl.dtype = _DLDataType(_KDL_BFLOAT if t.dtype_code == BF16 else _KDL_FLOAT, t.dtype.itemsize * 8, 1)
    dl.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    dl.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    dl.byte_offset = 0
    managed.deleter = _deleter
    address = ctypes.addressof(managed)
    _exports[address] = (t, managed, shape, strides)
    return _capsule_new(address, _DLTENSOR, _capsule_destructor)


def check_placement(views, backend: str, names=None) -> None:
    """Host arrays on the CPU backend, device tensors on a device backend (an oprt.Tensor on its own one)."""
    want_device = backend != "cpu"
    for k, v in enumerate(views):
        name = names[k] if names and k < len(names) else "a tensor"
        if v.device != want_device:
            where = "device tensors (oprt.Tensor, torch/cupy CUDA tensors)" if want_device else "host arrays (numpy)"
            raise InvalidArgumentError("the %s backend takes %s; %s is %s" % (backend, where, name, describe(v)))
        if isinstance(v.obj, Tensor) and v.obj.backend != backend:
            raise InvalidArgumentError("%s lives on backend %r but the call runs on %r" % (name, v.obj.backend, backend))
