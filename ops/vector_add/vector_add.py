import struct

import numpy as np

from operator_runtime import _backends
from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, numpy_result
from operator_runtime.tensor import NUMPY_DTYPES, NO_DEVICE_BACKEND, Tensor, empty_like, view_of

__all__ = ["vector_add"]

_vector_add = Operator("vector_add", [], num_inputs=2, names=("out", "a", "b"), c_names=("c", "a", "b"))


def vector_add(a, b, out=None, *, impl=None, backend=None):
    """a + b, elementwise, with numpy broadcasting.

    A Python int or float operand broadcasts like a 0-d tensor of the other operand's dtype, on its device
    (numpy's rule for Python scalars: vector_add(x_float16, 1.0) stays float16).

    Parameters:
        a, b: the operands: numpy arrays, oprt.Tensors, torch / cupy tensors, DLPack objects, or Python
            scalars; float32, float16, bfloat16 or float64, the same dtype; shapes that broadcast together.
        out: where to write; None allocates one like a (like b when a is a scalar) of the broadcast shape.
            Same dtype; it may be a or b itself (in place) but not partially overlap them.
        impl: a kernel variant, e.g. "cute" (nvidia builds with CUTLASS); None for the default kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out (given or new; a 0-d numpy result it allocated comes back as a numpy scalar, as numpy's).

    Raises:
        BadDtypeError (TypeError): an unsupported dtype, or operands / out of different dtypes.
        BadShapeError (ValueError): shapes that do not broadcast together, or to out's shape.
        BadStridesError (ValueError): out overlaps itself or partially overlaps an operand.
        InvalidArgumentError (ValueError): a read-only or non-array out, mixed placements, or a tensor the
            chosen backend cannot read.
        BackendUnavailableError: the backend is not usable here.
    """
    if type(a) in _SCALARS:
        if type(b) not in _SCALARS:
            a = _scalar_like(a, b)
    elif type(b) in _SCALARS:
        b = _scalar_like(b, a)
    chosen = None if backend is None else resolve(backend)
    if out is not None:
        return _vector_add(out, [a, b], (), None, impl, chosen)
    va, vb = view_of(a), view_of(b)
    try:
        shape = np.broadcast_shapes(va.shape, vb.shape)
    except ValueError:
        shape = va.shape  # the library reports the mismatch with its typed error
    out = empty_like(va if va.placement is not None or vb.placement is None else vb, shape)
    return numpy_result(_vector_add(out, [a, b], (), None, impl, chosen), None)


_SCALARS = (int, float)  # Python's own scalars (not bool, not numpy scalars, which carry a dtype)
_scalars = {}  # (backend id, dtype code, value bits) -> a 0-d oprt.Tensor holding it (a few, reused)


def _scalar_like(value, other):
    """value as a 0-d tensor of other's dtype, kind and placement (cast as numpy casts a Python scalar)."""
    v = view_of(other)
    dtype = NUMPY_DTYPES[v.dtype]
    with np.errstate(over="ignore"):
        host = np.asarray(float(value)).astype(dtype)
    obj = v.obj[0] if isinstance(v.obj, tuple) else v.obj
    module = type(obj).__module__
    if not v.device:
        return host
    if module.startswith("torch"):
        import torch

        return torch.full((), float(value), dtype=obj.dtype, device=obj.device)
    if module.startswith("cupy"):
        import cupy

        return cupy.asarray(host)
    where = obj.backend_id if isinstance(obj, Tensor) else v.placement
    if where == NO_DEVICE_BACKEND:
        return host  # (the call raises: device memory without a GPU backend)
    key = (where, v.dtype, struct.pack("<d", float(value)))
    t = _scalars.get(key)
    if t is None:
        if len(_scalars) >= 64:
            _scalars.clear()
        t = _scalars[key] = Tensor.from_numpy(host, backend=_backends.NAMES[where])
    return t
