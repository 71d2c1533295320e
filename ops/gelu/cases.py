"""gelu's cases: what "right" means (reference), the cases that check it (CASES), its contract entry for the
cross-operator tests (CONTRACTS) and its benchmark shapes (BENCH_CASES), shared by test_gelu.py, tools/run_ops
and tests/test_contract.py."""

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "gelu"


def op(x, out=None):
    return oprt.gelu(x, out=out)


def reference(x):
    """gelu(x) in float64 with numpy: the answer every backend is compared with (per-dtype tolerances)."""
    raise NotImplementedError("gelu: write its numpy reference in ops/gelu/cases.py")


CONTRACTS = [testing.Contract("gelu", op, reference)]

SHAPES = list(testing.EDGE_SHAPES) + [(n,) for n in testing.SIZES] + [(33, 65), (5, 7, 9), (2, 1, 3, 1, 2, 2, 1, 2)]

CASES = (
    testing.shape_cases(SHAPES)  # every input layout
    + testing.shape_cases([(1025,), (33, 65)], layouts=("contiguous", "sliced"), outs=testing.OUT_LAYOUTS)
    + [Case(shapes=((1024,),), out=0), Case(shapes=((64, 33),), fill="specials")]
    + [Case(shapes=((4_000_000,),)), Case(shapes=((64 << 20,),), device_only=True, dtypes=("float32",))]
)

BENCH_CASES = [BenchCase(shapes=((n,),), dtype=d) for n in (16 << 20, 256 << 20) for d in ("float32", "float16")]


def bytes_moved(case: BenchCase) -> int:
    return 2 * case.numel * testing.np_dtype(case.dtype).itemsize
