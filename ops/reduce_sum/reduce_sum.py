import ctypes

from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, axis_or_dim, int32_axis, numpy_result
from operator_runtime.tensor import empty_like, view_of

__all__ = ["reduce_sum"]

_reduce_sum = Operator(
    "reduce_sum", [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.c_int32], num_inputs=1,
    names=("out", "x"), c_names=("y", "x"),
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


def reduce_sum(x, axis=None, keepdims=False, out=None, *, dim=None, impl=None, backend=None):
    """The sum of x's elements over the given axes, with numpy's semantics (x.sum(axis, keepdims=...)).

    Sums accumulate in float32 for half types, in the dtype otherwise; the result has x's dtype.

    Parameters:
        x: the input tensor (numpy array, oprt.Tensor, torch / cupy tensor, DLPack object); float32,
            float16, bfloat16 or float64; any strides.
        axis: None (every axis), an int or a tuple of ints (negative ones count from the end).
        keepdims: keep the reduced axes with extent 1.
        out: where to write; None allocates one like x, of the reduced shape. Same dtype as x; it may not
            overlap x.
        dim: torch's name for axis (give one of them).
        impl: a kernel variant name, or None for the backend's default kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out; when out is None and the sum is a scalar of a numpy input, a numpy scalar (np.float32(...)),
        as numpy's sum returns.

    Raises:
        InvalidArgumentError (ValueError): an axis out of range or repeated, a read-only or non-array out,
            mixed placements, or a tensor the chosen backend cannot read.
        TypeError: a non-integer axis, or both axis and dim.
        BadDtypeError (TypeError): unsupported dtype, or out's dtype differs from x's.
        BadShapeError (ValueError): out's shape is not the reduced shape.
        BadStridesError (ValueError): out overlaps itself or overlaps x.
        BackendUnavailableError: the backend is not usable here.
    """
    v = view_of(x)
    axes = _axes_tuple(axis_or_dim(axis, dim, None), len(v.shape))
    given = out
    if out is None:
        out = empty_like(v, reduced_shape(v.shape, axes, keepdims))
    axes_array = (ctypes.c_int32 * max(len(axes), 1))(*axes)
    # The array object differs per call; the cache key holds the axes themselves.
    chosen = None if backend is None else resolve(backend)
    return numpy_result(_reduce_sum(out, [x], _Attrs(axes, axes_array, int(bool(keepdims))), None, impl, chosen), given)


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
