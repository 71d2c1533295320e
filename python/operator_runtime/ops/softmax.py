import ctypes

from .._dispatch import Operator, axis_or_dim, int32_axis
from ..tensor import empty_like, view_of

_softmax = Operator("softmax", [ctypes.c_int32], num_inputs=1)
_log_softmax = Operator("log_softmax", [ctypes.c_int32], num_inputs=1)


def softmax(x, axis=-1, out=None, *, dim=None, impl=None):
    """exp(x - max) / sum(exp(x - max)) along axis (or dim); torch semantics for -inf/+inf/NaN."""
    axis = int32_axis(axis_or_dim(axis, dim, -1))
    if out is None:
        v = view_of(x)
        out = empty_like(v, v.shape)
    return _softmax(out, [x], (axis,), impl=impl)


def log_softmax(x, axis=-1, out=None, *, dim=None, impl=None):
    """x - max - log(sum(exp(x - max))) along axis (or dim)."""
    axis = int32_axis(axis_or_dim(axis, dim, -1))
    if out is None:
        v = view_of(x)
        out = empty_like(v, v.shape)
    return _log_softmax(out, [x], (axis,), impl=impl)
