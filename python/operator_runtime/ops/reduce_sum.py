import ctypes

from .._dispatch import Operator, axis_or_dim, int32_axis
from ..tensor import empty_like, view_of

_reduce_sum = Operator(
    "reduce_sum", [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.c_int32], num_inputs=1
)


def _axes_tuple(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(int32_axis(a) for a in axis) if isinstance(axis, (tuple, list)) else (int32_axis(axis),)


def reduced_shape(shape, axes, keepdims):
    """numpy's output shape; axes out of range are left for the library to reject."""
    ndim = len(shape)
    reduced = {a % ndim for a in axes if -ndim <= a < ndim} if ndim else set()
    return tuple(1 if d in reduced else n for d, n in enumerate(shape) if keepdims or d not in reduced)


def reduce_sum(x, axis=None, keepdims=False, out=None, *, dim=None, impl=None):
    """x.sum(axis, keepdims) with numpy semantics: axis (or dim) None (all), an int or a tuple of ints."""
    v = view_of(x)
    axes = _axes_tuple(axis_or_dim(axis, dim, None), len(v.shape))
    if out is None:
        out = empty_like(v, reduced_shape(v.shape, axes, keepdims))
    axes_array = (ctypes.c_int32 * max(len(axes), 1))(*axes)
    # The array object differs per call; the cache key holds the axes themselves.
    return _reduce_sum(out, [x], _Attrs(axes, axes_array, int(bool(keepdims))), impl=impl)


class _Attrs(tuple):
    """(axes pointer, count, keepdims) for the C call, hashed and compared by the axes' values."""

    def __new__(cls, axes, axes_array, keepdims):
        self = super().__new__(cls, (axes_array, len(axes), keepdims))
        self._key = (axes, keepdims)
        return self

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, _Attrs) and self._key == other._key
