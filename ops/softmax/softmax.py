import ctypes

from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, axis_or_dim, int32_axis
from operator_runtime.tensor import new_like

__all__ = ["softmax", "log_softmax"]

_softmax = Operator("softmax", [ctypes.c_int32], num_inputs=1, names=("out", "x"), c_names=("y", "x"))
_log_softmax = Operator("log_softmax", [ctypes.c_int32], num_inputs=1, names=("out", "x"), c_names=("y", "x"))

_PARAMETERS = """
    Parameters:
        x: the input tensor (numpy array, oprt.Tensor, torch / cupy tensor, DLPack object); float32,
            float16, bfloat16 (computed in float32) or float64; any strides, any rank >= 1.
        axis: the axis to normalize along (negative counts from the end); default -1.
        out: where to write; None allocates one like x. Same dtype and shape as x; may be x itself.
        dim: torch's name for axis (give one of them).
        impl: a kernel variant name, or None for the backend's default kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out (given or new; softmax needs rank >= 1, so never a scalar).

    Raises:
        InvalidArgumentError (ValueError): axis out of range (or outside int32), a read-only or non-array
            out, mixed placements, or a tensor the chosen backend cannot read.
        TypeError: a non-integer axis, or both axis and dim.
        BadDtypeError (TypeError): unsupported dtype, or out's dtype differs from x's.
        BadShapeError (ValueError): out's shape is not x's, or x is 0-d.
        BadStridesError (ValueError): out overlaps itself or partially overlaps x.
        BackendUnavailableError: the backend is not usable here.
"""


def softmax(x, axis=-1, out=None, *, dim=None, impl=None, backend=None):
    """exp(x - max) / sum(exp(x - max)) along axis; torch's results for -inf / +inf / NaN."""
    axis = int32_axis(axis if dim is None else axis_or_dim(axis, dim, -1))
    chosen = None if backend is None else resolve(backend)
    if out is None:
        out = new_like(x)
    return _softmax(out, [x], (axis,), None, impl, chosen)


def log_softmax(x, axis=-1, out=None, *, dim=None, impl=None, backend=None):
    """x - max - log(sum(exp(x - max))) along axis; torch's results for -inf / +inf / NaN."""
    axis = int32_axis(axis if dim is None else axis_or_dim(axis, dim, -1))
    chosen = None if backend is None else resolve(backend)
    if out is None:
        out = new_like(x)
    return _log_softmax(out, [x], (axis,), None, impl, chosen)


softmax.__doc__ += _PARAMETERS
log_softmax.__doc__ += _PARAMETERS
