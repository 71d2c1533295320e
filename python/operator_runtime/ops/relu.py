import ctypes

from .._dispatch import Operator
from ..tensor import empty_like, view_of

_relu = Operator("relu", [ctypes.c_double], num_inputs=1)


def relu(x, negative_slope=0.0, out=None, *, impl=None):
    """max(x, 0), or leaky relu x if x > 0 else negative_slope * x; NaN stays NaN."""
    if out is None:
        v = view_of(x)
        out = empty_like(v, v.shape)
    return _relu(out, [x], (float(negative_slope),), impl=impl)
