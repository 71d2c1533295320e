import ctypes

from .._dispatch import Operator
from ..tensor import empty_like, view_of

_softmax = Operator("softmax", [ctypes.c_int32], num_inputs=1)
_log_softmax = Operator("log_softmax", [ctypes.c_int32], num_inputs=1)


def softmax(x, axis=-1, out=None):
    """exp(x - max) / sum(exp(x - max)) along axis; torch semantics for -inf/+inf/NaN."""
    if out is None:
        v = view_of(x)
        out = empty_like(v, v.shape)
    return _softmax(out, [x], (int(axis),))


def log_softmax(x, axis=-1, out=None):
    """x - max - log(sum(exp(x - max))) along axis."""
    if out is None:
        v = view_of(x)
        out = empty_like(v, v.shape)
    return _log_softmax(out, [x], (int(axis),))
