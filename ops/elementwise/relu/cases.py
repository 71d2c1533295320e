"""relu's cases: correctness (CASES, reference) and benchmark shapes (BENCH_CASES, bytes_moved),
shared by test_relu.py, tools/run_ops and the benchmark."""

import ctypes

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "relu"


def op(x, out=None, negative_slope=0.0):
    return oprt.relu(x, negative_slope=negative_slope, out=out)


def reference(x, negative_slope=0.0):
    """x > 0 ? x : slope * x in float64, torch's special values: NaN stays NaN, relu(-inf) = 0 when
    slope == 0. The C API takes the slope as a double, so it is exact for float64 data."""
    slope = float(negative_slope)
    negative = np.zeros_like(x) if slope == 0.0 else x * slope
    return np.where((x > 0) | np.isnan(x), x, negative)


def torch_reference(x, negative_slope=0.0):
    import torch

    if negative_slope == 0.0:
        return torch.relu(x)
    return torch.nn.functional.leaky_relu(x, float(negative_slope))


# The standard call of the cross-operator tests (tests/test_contract.py, tests/test_c_api.py).
CONTRACTS = [testing.Contract("relu", op, reference, c_attrs=(ctypes.c_double(0.0),))]


SHAPES = list(testing.EDGE_SHAPES) + [(n,) for n in testing.SIZES if n != 1] + [
    (1, 1), (33, 65), (3, 1025), (5, 7, 9), (2, 3, 4, 5), (2, 1, 3, 1, 2, 2, 1, 2),
]
SLOPES = [(("negative_slope", s),) for s in (0.01, 0.2, -0.5, 2.0)]

CASES = (
    testing.shape_cases(SHAPES)  # relu, every input layout
    + testing.shape_cases([(1025,), (33, 65), (5, 7, 9)], layouts=("contiguous", "transposed", "broadcast"),
                          attrs_list=SLOPES)  # leaky relu
    + testing.shape_cases([(1025,), (33, 65), (5, 7, 9)], layouts=("contiguous", "sliced"), outs=testing.OUT_LAYOUTS)
    + [Case(shapes=((1024,),), out=0), Case(shapes=((33, 65),), layouts=("transposed",), out=0),
       Case(shapes=((5, 7, 9),), layouts=("sliced",), out=0, attrs=(("negative_slope", 0.1),)), Case(shapes=((),), out=0)]
    + [Case(shapes=((64, 33),), fill="specials", attrs=a) for a in [(), (("negative_slope", 0.1),), (("negative_slope", -1.0),)]]
    + [Case(shapes=((64, 33),), layouts=("transposed",), fill="specials", out="sliced")]
    + [
        Case(shapes=((4_000_000,),)),
        Case(shapes=((2048, 2048),), layouts=("transposed",), attrs=(("negative_slope", 0.1),)),
        Case(shapes=((1000, 2000),), layouts=("sliced",), out="transposed", dtypes=("float32", "float16")),
        Case(shapes=((64 << 20,),), device_only=True, dtypes=("float32",)),
    ]
)

BENCH_CASES = [BenchCase(shapes=((n,),), dtype=d) for n in (16 << 20, 64 << 20, 256 << 20)
               for d in ("float32", "float16", "bfloat16")]


def bytes_moved(case: BenchCase) -> int:
    return 2 * case.numel * testing.np_dtype(case.dtype).itemsize
