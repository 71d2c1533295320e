"""Value generators: the sizes and edge shapes every op runs, random inputs, special values, the sentinel."""

from __future__ import annotations

import numpy as np

from .dtypes import dtype_name, np_dtype

# Extents around the usual block / warp / vector-width boundaries, for every op's 1-D cases.
SIZES = (1, 31, 1023, 1024, 1025, 4097)
# The degenerate shapes every op must handle: 0-d, one element, empty (also with other extents).
EDGE_SHAPES = ((), (1,), (0,), (2, 0, 3))
SENTINEL = -7.25  # exactly representable in every dtype; what outputs are pre-filled with


def huge(dtype) -> float:
    """A large finite value of the dtype: 6e4 (f16), 3e38 (f32, bf16), 1e308 (f64)."""
    return {"float16": 6e4, "float32": 3e38, "bfloat16": 3e38, "float64": 1e308}[dtype_name(dtype)]


def special_values(dtype) -> np.ndarray:
    """NaN, +inf, -inf, +-huge, +-0, +-1 and the smallest normal of the dtype."""
    d = np_dtype(dtype)
    h = huge(dtype)
    tiny = float(np.finfo(np.float32).tiny) if dtype_name(dtype) == "bfloat16" else float(np.finfo(d).tiny)
    return np.array([np.nan, np.inf, -np.inf, h, -h, 0.0, -0.0, 1.0, -1.0, tiny], dtype=np.float64).astype(d)


def random_values(shape, dtype, rng, kind: str = "normal", scale: float = 1.0) -> np.ndarray:
    """Values of `shape` in `dtype` (contiguous): "normal", "uniform" ([0, 1)), "specials" (normal with
    about 10% NaN / +-inf / +-huge), "ones", "arange" (0, 1, 2, ... each exact in the dtype)."""
    shape = tuple(shape)
    if kind in ("normal", "specials"):
        v = rng.standard_normal(shape) * scale
    elif kind == "uniform":
        v = rng.random(shape) * scale
    elif kind == "ones":
        v = np.ones(shape)
    elif kind == "arange":
        v = (np.arange(int(np.prod(shape, dtype=np.int64))) % 256).reshape(shape).astype(np.float64)
    else:
        raise ValueError("unknown value kind %r" % kind)
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(all="ignore"):
        v = v.astype(np_dtype(dtype))
    if kind == "specials":
        v = with_specials(v, rng)
    return v


def with_specials(values, rng, fraction: float = 0.1, kinds=("nan", "inf", "-inf", "huge", "-huge")) -> np.ndarray:
    """A copy of `values` with about `fraction` of the elements replaced by special values."""
    v = np.array(values, copy=True)
    if v.size == 0:
        return v
    table = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "huge": huge(v.dtype), "-huge": -huge(v.dtype)}
    flat = v.reshape(-1)
    count = max(1, int(flat.size * fraction))
    positions = rng.choice(flat.size, size=min(count, flat.size), replace=False)
    picks = rng.integers(0, len(kinds), size=positions.size)
    flat[positions] = np.array([table[kinds[i]] for i in picks], dtype=np.float64).astype(v.dtype)
    return flat.reshape(v.shape)
