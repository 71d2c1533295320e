"""The operator packages: the one registration line a new operator adds."""

OPERATORS = [
    "//ops/copy",
    "//ops/elementwise/relu",
    "//ops/gelu",
    "//ops/reduce_sum",
    "//ops/softmax",
    "//ops/vector_add",
]
