"""reduce_sum's cases: correctness (CASES, reference, tolerance) and benchmark shapes (BENCH_CASES,
bytes_moved), shared by test_reduce_sum.py, tools/run_ops and the benchmark."""

import ctypes

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "reduce_sum"


def op(x, out=None, axis=None, keepdims=False):
    return oprt.reduce_sum(x, axis=axis, keepdims=keepdims, out=out)


def reference(x, axis=None, keepdims=False):
    """numpy's x.sum(axis, keepdims) in float64 (pairwise, far more accurate than any dtype here)."""
    return np.sum(x, axis=axis, keepdims=keepdims)


def torch_reference(x, axis=None, keepdims=False):
    import torch

    if axis == () or x.dim() == 0:
        return x.clone()  # torch.sum(dim=()) would reduce everything
    dims = tuple(range(x.dim())) if axis is None else axis
    return torch.sum(x, dim=dims, keepdim=keepdims)


# The standard call of the cross-operator tests (tests/test_contract.py, tests/test_c_api.py): the sum over
# axis 1, (4, 5) -> (4,); in C: (axes, 1 axis, keepdims 0).
CONTRACTS = [testing.Contract("reduce_sum", op, reference, attrs={"axis": 1}, out_shape=lambda s: s[:1] + s[2:],
                              c_attrs=(ctypes.cast((ctypes.c_int32 * 1)(1), ctypes.POINTER(ctypes.c_int32)), 1, 0))]


def reduced_axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(a % ndim for a in axes)


def tolerance(case, inputs, dtype):
    """Sums of n terms: rtol and atol grow with sqrt(n), atol in proportion to sum |x| of each output."""
    x = np.asarray(inputs[0]).astype(np.float64)
    axis, keepdims = case.kwargs.get("axis"), case.kwargs.get("keepdims", False)
    n = int(np.prod([x.shape[a] for a in reduced_axes(x.ndim, axis)], dtype=np.int64)) if x.ndim else 1
    with np.errstate(all="ignore"):
        magnitude = np.sum(np.abs(x), axis=axis, keepdims=keepdims)
    return {"reduce_len": max(n, 1), "magnitude": magnitude}


def _attrs(axis, keepdims=False):
    return (("axis", axis), ("keepdims", keepdims))


# (shape, [axis, ...]); each runs with keepdims False and True, in every applicable input layout.
AXES = [
    ((), [None, ()]),
    ((1,), [None, 0, -1]),
    ((0,), [None, 0]),
    ((3, 0, 4), [1, (0, 2), None, ()]),  # an empty reduced axis gives zeros
    ((33, 65), [0, 1, -1, None, (), (0, 1), (1, 0)]),
    ((5, 7, 9), [0, 1, 2, (0, 2), (-1, -3), (1, 2), None]),
    ((2, 3, 4, 5), [(1, 3), (0, 2, 3), -2]),
    ((2, 1, 3, 1, 2, 2, 1, 2), [(0, 2, 4, 6), (1, 3), None]),  # 8-D
] + [((n,), [None]) for n in testing.SIZES] + [((3, n), [-1, 0]) for n in (31, 1025, 4097)]


def _axis_cases():
    out = []
    for shape, axes in AXES:
        for axis in axes:
            for keepdims in (False, True):
                out += testing.shape_cases([shape], attrs_list=[_attrs(axis, keepdims)])
    return out


CASES = (
    _axis_cases()
    + [Case(shapes=((5, 7, 9),), layouts=(lay,), out=o, attrs=_attrs(1, k)) for lay in ("contiguous", "transposed")
       for o in testing.OUT_LAYOUTS for k in (False, True)]
    + [Case(shapes=((33, 65),), out=o, attrs=_attrs(0)) for o in ("contiguous", "sliced")]
    + [Case(shapes=((64, 33),), fill="uniform", attrs=_attrs(a)) for a in (-1, 0, None)]
    + [
        Case(shapes=((4_000_000,),), fill="uniform", attrs=_attrs(None)),
        # few long rows of odd length: split rows whose parts interleave, rows 1 and 2 start misaligned
        Case(shapes=((3, 1_000_001),), fill="uniform", attrs=_attrs(-1)),
        Case(shapes=((2048, 2048),), attrs=_attrs(-1)),
        Case(shapes=((2048, 2048),), attrs=_attrs(0)),
        Case(shapes=((1024, 4096),), layouts=("transposed",), attrs=_attrs(1, True), dtypes=("float32", "bfloat16")),
        Case(shapes=((64 << 20,),), fill="uniform", attrs=_attrs(None), device_only=True, dtypes=("float32", "float16")),
        Case(shapes=((8192, 8192),), attrs=_attrs(-1), device_only=True, dtypes=("float32",)),
        # f32 rows of exactly one slice (8192 values; enough rows not to be split): the slice kernel, a row a block
        Case(shapes=((601, 8192),), fill="uniform", attrs=_attrs(-1), device_only=True, dtypes=("float32",)),
        # rows of 16 KB (f32 4096, half 8192): a block of kRowAtOnceThreads per row, every load in flight
        Case(shapes=((601, 4096),), fill="uniform", attrs=_attrs(-1), device_only=True, dtypes=("float32",)),
        Case(shapes=((601, 8192),), fill="uniform", attrs=_attrs(-1), device_only=True, dtypes=("float16", "bfloat16")),
        # half rows of 8 KB (4096 values; f32's are (2000, 2048) below): a block of kShortRowAtOnceThreads per row
        Case(shapes=((601, 4096),), fill="uniform", attrs=_attrs(-1), device_only=True, dtypes=("float16", "bfloat16")),
        # whole sums in slices (on the H200, at least 8 waves of them) whose last slice is one pack (masked loads),
        # their partials (2501 f32, 5001 f16, 12002 f32) added by blocks of 256, 512 and 1024 threads with a scalar
        # tail; the last (393 MB) with plain loads
        Case(shapes=((8192 * 2500 + 4,),), fill="uniform", attrs=_attrs(None), device_only=True, dtypes=("float32",)),
        Case(shapes=((16384 * 5000 + 8,),), fill="uniform", attrs=_attrs(None), device_only=True, dtypes=("float16",)),
        Case(shapes=((8192 * 12001 + 4,),), fill="uniform", attrs=_attrs(None), device_only=True, dtypes=("float32",)),
        # long rows: a warp per row with 8 loads in flight (many rows) or a block per row (few rows)
        Case(shapes=((2000, 2048),), attrs=_attrs(-1), device_only=True),
        Case(shapes=((3000, 3000),), attrs=_attrs(-1), device_only=True),
        # the streamed tiers (aligned rows of whole packs): a group's row in two slices (f16 on 32-lane
        # warps, f32 on 64-lane ones); a group per row in 64-thread blocks (25000 rows of 128 on an H200:
        # 16 rows per block for half types, the last block half empty);
        # a block per row in two or three slices, the last one partial
        Case(shapes=((300, 1536),), attrs=_attrs(-1)),
        Case(shapes=((25000, 128),), attrs=_attrs(-1)),
        # the tile tier (half rows of 256 and 512 columns: a row to a group of 8 lanes, two rows to a group of
        # 16; 8 rows a block): the last block partly filled (1001 = 125 blocks and a row; 333 = 41 blocks and
        # 5 rows, the last group's second row past the end), and every block full (the exact form: no row
        # test, 32-bit offsets)
        Case(shapes=((1001, 256),), attrs=_attrs(-1)),
        Case(shapes=((333, 512),), attrs=_attrs(-1)),
        Case(shapes=((1024, 256),), attrs=_attrs(-1)),
        Case(shapes=((336, 512),), attrs=_attrs(-1)),
        Case(shapes=((256, 10000),), attrs=_attrs(-1), dtypes=("float32", "float16")),
        # the cluster tier (sm_90): rows of odd length (rows 1, 2, ... and their parts start misaligned),
        # in 8 blocks per row (136x30001 f16/bf16: parts too short for 16) or 16 (f32; 12x100003; 16x262144)
        Case(shapes=((136, 30001),), fill="uniform", attrs=_attrs(-1)),
        Case(shapes=((12, 100003),), fill="uniform", attrs=_attrs(-1)),
        Case(shapes=((16, 262144),), attrs=_attrs(-1), device_only=True),
    ]
)

# Benchmark shapes: a 256M-element full sum and last-axis sums. Only the f32 256M sum and 4096x4096 f32
# exceed the ~60 MB L2 alone; the benchmark must flush L2 (or rotate buffers) for the smaller ones.
BENCH_CASES = [BenchCase(shapes=((256 << 20,),), dtype=d, attrs=(("axis", None),)) for d in ("float32", "float16", "bfloat16")] + [
    BenchCase(shapes=(s,), dtype=d, attrs=(("axis", -1),))
    for s in ((4096, 4096), (32768, 1024), (65536, 128)) for d in ("float32", "float16", "bfloat16")
]


def bytes_moved(case: BenchCase) -> int:
    """x read once, y written once."""
    shape = case.shapes[0]
    axes = reduced_axes(len(shape), case.kwargs.get("axis"))
    out = int(np.prod([n for d, n in enumerate(shape) if d not in axes], dtype=np.int64))
    return (case.numel + out) * testing.np_dtype(case.dtype).itemsize
