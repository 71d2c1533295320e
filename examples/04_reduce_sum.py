"""04 reduce_sum: x.sum(axis, keepdims) with numpy's rules for axis (None, an int, a tuple, negative).

Shows: a full sum, a row sum (the reduced axis is the contiguous one), a column sum (it is not), and
keepdims. Each is a different kernel path on a GPU backend; all accumulate in f32 or wider.
Run: bazel run //examples:reduce_sum [-- --backend nvidia]
"""

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend

args = parse_args(__doc__)
a = np.random.default_rng(0).standard_normal((64, 1000)).astype(np.float32)
ref = a.astype(np.float64)
with oprt.backend(args.backend):
    x = to_backend(a, args.backend)
    check("sum of everything", oprt.reduce_sum(x), ref.sum(), rtol=1e-5, atol=1e-3)
    check("row sums (axis=-1)", oprt.reduce_sum(x, axis=-1), ref.sum(-1), rtol=1e-5, atol=1e-4)
    check("column sums (axis=0)", oprt.reduce_sum(x, axis=0), ref.sum(0), rtol=1e-5, atol=1e-4)
    check("axis=(0, 1), keepdims=True", oprt.reduce_sum(x, axis=(0, 1), keepdims=True),
          ref.sum((0, 1), keepdims=True), rtol=1e-5, atol=1e-3)
