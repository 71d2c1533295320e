"""gelu's cases: what "right" means (reference), the cases that check it (CASES), its contract entry for the
cross-operator tests (CONTRACTS) and its benchmark shapes (BENCH_CASES), shared by test_gelu.py, tools/run_ops
and tests/test_contract.py."""

import math

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "gelu"


def op(x, out=None, approximate="none"):
    return oprt.gelu(x, approximate=approximate, out=out)


_ERFC = np.frompyfunc(math.erfc, 1, 1)  # numpy has no erfc


def reference(x, approximate="none"):
    """x * Phi(x) in float64: exact 0.5 x erfc(-x / sqrt(2)), or the tanh approximation
    0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3); gelu(-inf) = -inf * 0 = NaN.
    Written without 1 + erf / 1 + tanh, which cancel for x < -3. (So there is no torch_reference: torch's
    kernels compute 1 + erf(...) in float and lose the negative tail, which this reference does not.)"""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
            return x / (1.0 + np.exp(-2.0 * u))
        return 0.5 * x * np.asarray(_ERFC(-x / math.sqrt(2.0)), dtype=np.float64)


CONTRACTS = [testing.Contract("gelu", op, reference, c_attrs=(0,))]

SHAPES = list(testing.EDGE_SHAPES) + [(n,) for n in testing.SIZES] + [(33, 65), (5, 7, 9), (2, 1, 3, 1, 2, 2, 1, 2)]
TANH = [(("approximate", "tanh"),)]

CASES = (
    testing.shape_cases(SHAPES)  # exact, every input layout
    + testing.shape_cases(SHAPES, attrs_list=TANH)  # the tanh approximation
    + testing.shape_cases([(1025,), (33, 65)], layouts=("contiguous", "sliced"), outs=testing.OUT_LAYOUTS)
    + [Case(shapes=((1024,),), out=0), Case(shapes=((33, 65),), layouts=("transposed",), out=0, attrs=TANH[0])]
    + [Case(shapes=((64, 33),), fill="specials", attrs=a) for a in [(), TANH[0]]]
    + [Case(shapes=((4_000_000,),)), Case(shapes=((4_000_000,),), attrs=TANH[0]),
       Case(shapes=((64 << 20,),), device_only=True, dtypes=("float32",))]
)

BENCH_CASES = [BenchCase(shapes=((n,),), dtype=d) for n in (16 << 20, 256 << 20) for d in ("float32", "float16", "bfloat16")]


def bytes_moved(case: BenchCase) -> int:
    return 2 * case.numel * testing.np_dtype(case.dtype).itemsize
