import ctypes

from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, numpy_result
from operator_runtime.tensor import new_like

__all__ = ["relu"]

_relu = Operator("relu", [ctypes.c_double], num_inputs=1, names=("out", "x"), c_names=("y", "x"))


def relu(x, negative_slope=0.0, out=None, *, impl=None, backend=None):
    """Rectified linear unit: max(x, 0), or the leaky form x if x > 0 else negative_slope * x.

    NaN stays NaN; relu(-inf) is 0 with slope 0 (as torch).

    Parameters:
        x: the input tensor (numpy array, oprt.Tensor, torch / cupy tensor, DLPack object; lists and
            scalars become numpy arrays); float32, float16, bfloat16 or float64; any strides.
        negative_slope: the slope for x < 0 (a float; computed in the compute type, then rounded).
        out: where to write; None allocates one like x. Same dtype and shape as x; may be x itself.
        impl: a kernel variant name, or None for the backend's default kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out (given or new; a 0-d numpy result it allocated comes back as a numpy scalar).

    Raises:
        BadDtypeError (TypeError): unsupported dtype, or out's dtype differs from x's.
        BadShapeError (ValueError): out's shape is not x's.
        BadStridesError (ValueError): out overlaps itself or partially overlaps x.
        InvalidArgumentError (ValueError): a read-only or non-array out, mixed placements, or a tensor the
            chosen backend cannot read.
        BackendUnavailableError: the backend is not usable here.
    """
    chosen = None if backend is None else resolve(backend)
    if out is not None:
        return _relu(out, [x], (float(negative_slope),), None, impl, chosen)
    return numpy_result(_relu(new_like(x), [x], (float(negative_slope),), None, impl, chosen), None)
