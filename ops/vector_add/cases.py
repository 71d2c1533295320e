"""vector_add's cases: correctness (CASES, reference) and benchmark shapes (BENCH_CASES, bytes_moved),
shared by test_vector_add.py, tools/run_ops and the benchmark."""

import itertools

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "vector_add"


def op(a, b, out=None):
    return oprt.vector_add(a, b, out=out)


def reference(a, b):
    """c = a + b with numpy broadcasting, in float64."""
    return np.add(a, b)


def torch_reference(a, b):
    return a + b


# The standard call of the cross-operator tests (tests/test_contract.py, tests/test_c_api.py).
CONTRACTS = [testing.Contract("vector_add", op, reference)]


SHAPES = list(testing.EDGE_SHAPES) + [(n,) for n in testing.SIZES if n != 1] + [
    (1, 1), (33, 65), (3, 1025), (5, 7, 9), (2, 3, 4, 5), (2, 1, 3, 1, 2, 2, 1, 2),
]
# (a's layout, b's layout) for same-shape operands.
LAYOUT_PAIRS = [("contiguous", "contiguous"), ("transposed", "contiguous"), ("contiguous", "sliced"),
                ("sliced", "transposed"), ("broadcast", "contiguous"), ("contiguous", "broadcast")]
# numpy broadcasting between different shapes.
BROADCAST_SHAPES = [((4, 1, 5), (3, 1)), ((1,), (1023,)), ((), (31,)), ((1025,), ()), ((0, 3), (3,)),
                    ((5, 1), (1, 1025)), ((2, 3, 4, 5), (4, 1)), ((3, 1, 7), (1, 6, 1)), ((2, 1, 3, 1, 2, 2, 1, 2), (2, 1, 2))]


def _same_shape_cases():
    out = []
    for s, (la, lb) in itertools.product(SHAPES, LAYOUT_PAIRS):
        if testing.layout_applies(la, s) and testing.layout_applies(lb, s):
            out.append(Case(shapes=(s, s), layouts=(la, lb)))
    return out


CASES = (
    _same_shape_cases()
    + [Case(shapes=p) for p in BROADCAST_SHAPES]
    + [Case(shapes=((33, 65), (65,)), layouts=("transposed", "sliced")), Case(shapes=((5, 7, 9), (7, 1)), layouts=("sliced",))]
    + [Case(shapes=(s, s), layouts=("transposed", "contiguous"), out=o) for s in [(1025,), (33, 65), (5, 7, 9)]
       for o in testing.OUT_LAYOUTS]
    + [  # in place: c is a (or b) itself
        Case(shapes=((1024,), (1024,)), out=0),
        Case(shapes=((33, 65), (65,)), layouts=("transposed",), out=0),
        Case(shapes=((7, 1), (7, 9)), layouts=("contiguous", "sliced"), out=1),
        Case(shapes=((5, 7, 9), (5, 7, 9)), layouts=("sliced", "transposed"), out=1),
        Case(shapes=((), ()), out=0),
    ]
    + [Case(shapes=((64, 33), (64, 33)), fill="specials"), Case(shapes=((64, 33), (33,)), fill="specials", out="sliced")]
    + [  # big
        Case(shapes=((4_000_000,), (4_000_000,))),
        Case(shapes=((2048, 2048), (2048, 2048)), layouts=("transposed", "contiguous")),
        Case(shapes=((2000, 2000), (2000, 1)), out="sliced", dtypes=("float32", "float16")),
        Case(shapes=((64 << 20,), (64 << 20,)), device_only=True, dtypes=("float32",)),
    ]
)

BENCH_CASES = [BenchCase(shapes=((n,), (n,)), dtype=d) for n in (16 << 20, 64 << 20, 256 << 20)
               for d in ("float32", "float16", "bfloat16")]


def bytes_moved(case: BenchCase) -> int:
    """a and b read, c written."""
    return 3 * case.numel * testing.np_dtype(case.dtype).itemsize
