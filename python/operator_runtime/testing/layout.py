"""Layouts and strided views: inputs and outputs in several memory layouts, views that overlap, and the
raw memory span of a tensor (to see writes into its gaps)."""

from __future__ import annotations

import numpy as np

import operator_runtime as oprt

from .backends import to_backend
from .dtypes import np_dtype
from .values import SENTINEL, random_values

LAYOUTS = ("contiguous", "transposed", "sliced", "broadcast")  # of inputs
OUT_LAYOUTS = ("contiguous", "transposed", "sliced")  # of a given out= (never broadcast)


def layout_applies(layout: str, shape) -> bool:
    """Whether `layout` means something different from contiguous for `shape`."""
    shape = tuple(shape)
    if layout == "contiguous":
        return True
    if layout == "transposed":
        return sum(n > 1 for n in shape) >= 2
    if layout == "sliced":
        return len(shape) >= 1
    if layout == "broadcast":
        return any(n > 1 for n in _broadcast_dims(shape).values())
    raise ValueError("unknown layout %r" % layout)


def _broadcast_dims(shape):
    """The dims a broadcast layout makes 0-stride: every other dim from the first (the only one in 1-D)."""
    return {d: n for d, n in enumerate(shape) if d % 2 == 0}


def _permutation(ndim: int):
    """Memory order of the transposed layout: reversed for 2-D, rotated (last dim outermost) above."""
    if ndim <= 2:
        return tuple(reversed(range(ndim)))
    return (ndim - 1,) + tuple(range(ndim - 1))


def arrange(values, layout: str, gap=np.nan) -> np.ndarray:
    """`values` (any numpy array) laid out as `layout`, same shape and dtype:

    contiguous  row-major copy
    transposed  a permuted view of a row-major buffer (reversed dims in 2-D, rotated in n-D)
    sliced      base[1:, ..., ::2] of a larger buffer whose gaps hold `gap` (NaN: reading one shows)
    broadcast   np.broadcast_to of a slice: dims 0, 2, 4... take values[0] (0 strides); this CHANGES
                the values, so always compute references from the returned array
    """
    values = np.asarray(values)
    nd, shape = values.ndim, values.shape
    if layout == "contiguous" or (layout != "broadcast" and not layout_applies(layout, shape)):
        return values.copy(order="C")
    if layout == "transposed":
        perm = _permutation(nd)
        buf = values.transpose(perm).copy(order="C")
        return buf.transpose(np.argsort(perm))
    if layout == "sliced":
        base_shape = list(shape)
        index = [slice(None)] * nd
        base_shape[0] += 1
        index[0] = slice(1, None)
        base_shape[-1] *= 2
        index[-1] = slice(index[-1].start, None, 2)
        if nd == 1:
            base_shape[0] = 2 * shape[0] + 1
            index[0] = slice(1, None, 2)
        base = np.full(base_shape, gap, dtype=values.dtype)
        view = base[tuple(index)]
        view[...] = values
        return view
    if layout == "broadcast":
        index = tuple(slice(0, 1) if d in _broadcast_dims(shape) else slice(None) for d in range(nd))
        return np.broadcast_to(values[index].copy(order="C"), shape)
    raise ValueError("unknown layout %r" % layout)


def layouts(values, kinds=LAYOUTS) -> list:
    """[(layout name, array)]: `values` in every layout of `kinds` that applies to its shape."""
    return [(k, arrange(values, k)) for k in kinds if layout_applies(k, np.shape(values))]


def make_output(shape, dtype, layout: str = "contiguous", fill=SENTINEL) -> np.ndarray:
    """An output array of `shape` in `layout`, every byte of its buffer (gaps too) set to `fill`."""
    return arrange(np.full(tuple(shape), fill, dtype=np_dtype(dtype)), layout, gap=fill)


def contiguous_strides(shape) -> tuple:
    """Row-major strides of `shape`, in elements."""
    strides, step = [], 1
    for n in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def _element_strides(obj):
    """(shape, strides in elements) of a numpy array or oprt.Tensor."""
    if isinstance(obj, oprt.Tensor):
        return obj.shape, obj.element_strides
    a = np.asarray(obj)
    return a.shape, tuple(s // a.itemsize for s in a.strides)


def _span_elements(shape, strides) -> int:
    if any(n == 0 for n in shape):
        return 0
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1


def _span(obj) -> np.ndarray:
    """Every element from obj's first to its last, gaps included, as a flat host copy."""
    n = _span_elements(*_element_strides(obj))
    if isinstance(obj, oprt.Tensor):
        flat = oprt.Tensor(obj._buffer, obj._offset, (n,), (1,), obj.dtype)
        return flat.numpy().copy()
    a = np.asarray(obj)
    return np.lib.stride_tricks.as_strided(a, (n,), (a.itemsize,), writeable=False).copy()


def _element_mask(obj) -> np.ndarray:
    """Boolean mask over _span(obj): True at the positions that are elements of obj."""
    shape, strides = _element_strides(obj)
    mask = np.zeros(_span_elements(shape, strides), dtype=bool)
    if mask.size:
        offsets = np.zeros((), dtype=np.int64)
        for n, s in zip(shape, strides):
            offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * s)
        mask[offsets.ravel()] = True
    return mask


def strided_view(obj, shape, strides, offset: int = 0):
    """A view of obj's memory (numpy array or oprt.Tensor) starting `offset` elements after obj's first
    element, with `shape` and element `strides`: how tests make overlapping and self-overlapping
    tensors on any backend (np.lib.stride_tricks.as_strided on the host)."""
    shape, strides = tuple(shape), tuple(strides)
    if isinstance(obj, oprt.Tensor):
        return oprt.Tensor(obj._buffer, obj._offset + offset * obj.dtype.itemsize, shape, strides, obj.dtype)
    a = np.asarray(obj)
    n = _span_elements(*_element_strides(a))
    start = np.lib.stride_tricks.as_strided(a, (n,), (a.itemsize,))[offset:]
    return np.lib.stride_tricks.as_strided(start, shape, tuple(s * a.itemsize for s in strides))


def overlapping_pair(backend: str, dtype, shape, shift: int = 1, rng=None, out_shape=None):
    """(x, out): two row-major views into ONE buffer on `backend`, x of `shape` and out of `out_shape`
    (default: `shape`) starting `shift` elements after x, so that they partially overlap (an in-place
    call gone wrong)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    out_shape = tuple(shape) if out_shape is None else tuple(out_shape)
    n = max(int(np.prod(shape, dtype=np.int64)), int(np.prod(out_shape, dtype=np.int64)) + shift)
    base = to_backend(random_values((n,), dtype, rng), backend)
    return (strided_view(base, shape, contiguous_strides(shape), 0),
            strided_view(base, out_shape, contiguous_strides(out_shape), shift))


def self_overlapping_output(backend: str, dtype, shape):
    """An output of `shape` on `backend` whose first dim of extent > 1 has stride 0 (as_strided on the
    host), so that several indices address one element; filled with SENTINEL."""
    shape = tuple(shape)
    strides = list(contiguous_strides(shape))
    for d, n in enumerate(shape):
        if n > 1:
            strides[d] = 0
            break
    span = _span_elements(shape, strides)
    base = to_backend(np.full((max(span, 1),), SENTINEL, dtype=np_dtype(dtype)), backend)
    return strided_view(base, shape, strides)
