"""copy's cases: correctness (CASES, reference) and benchmark shapes (BENCH_CASES, bytes_moved),
shared by test_copy.py, tools/run_ops and the benchmark. Run one with testing.run_case(cases, case, dtype, backend)."""

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "copy"


def op(x, out=None):
    return oprt.copy(x, out=out)


def reference(x):
    """y = x (float64 in, float64 out)."""
    return np.array(x, dtype=np.float64, copy=True)


def torch_reference(x):
    return x.clone()


def tolerance(case, inputs, dtype):
    return {"exact": True}  # a copy is bit-exact (NaN payloads aside)


# The standard call of the cross-operator tests (tests/test_contract.py, tests/test_c_api.py).
CONTRACTS = [testing.Contract("copy", op, reference)]


SHAPES = list(testing.EDGE_SHAPES) + [(n,) for n in testing.SIZES if n != 1] + [
    (1, 1), (33, 65), (3, 1025), (5, 7, 9), (2, 3, 4, 5), (2, 1, 3, 1, 2, 2, 1, 2),  # 8-D
]
OUT_SHAPES = [(1025,), (33, 65), (5, 7, 9)]
INPLACE = [((), "contiguous"), ((1024,), "contiguous"), ((33, 65), "transposed"), ((5, 7, 9), "sliced")]

CASES = (
    testing.shape_cases(SHAPES)  # every input layout; the op allocates the output
    + testing.shape_cases(OUT_SHAPES, layouts=("contiguous", "transposed", "sliced"), outs=testing.OUT_LAYOUTS)
    + [Case(shapes=(s,), layouts=(l,), out=0) for s, l in INPLACE]
    + [Case(shapes=((64, 33),), fill="specials"), Case(shapes=((64, 33),), layouts=("transposed",), fill="specials", out="sliced")]
    + [  # big: a few, at most ~4M elements (the CPU reference is a plain loop)
        Case(shapes=((4_000_000,),)),
        Case(shapes=((2048, 2048),), layouts=("transposed",)),
        Case(shapes=((1000, 2000),), layouts=("sliced",), out="sliced", dtypes=("float32", "bfloat16")),
        Case(shapes=((64 << 20,),), device_only=True, dtypes=("float32",)),
    ]
)

# Benchmark shapes: each well above the H200's ~60 MB L2 so that DRAM bandwidth is measured.
BENCH_CASES = [BenchCase(shapes=((n,),), dtype=d) for n in (16 << 20, 64 << 20, 256 << 20)
               for d in ("float32", "float16", "bfloat16")]


def bytes_moved(case: BenchCase) -> int:
    """Bytes read plus bytes written by one call."""
    return 2 * case.numel * testing.np_dtype(case.dtype).itemsize
