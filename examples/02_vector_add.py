"""02 vector_add: c = a + b with numpy broadcasting, in any dtype the runtime takes.

Shows: broadcasting a column against a row, half precision (computed in f32, rounded once), and an
in-place add (out is a itself, which the library allows only as an exact alias).
Run: bazel run //examples:vector_add [-- --backend nvidia]
"""

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend

args = parse_args(__doc__)
rng = np.random.default_rng(0)
with oprt.backend(args.backend):
    col = rng.standard_normal((4, 1)).astype(np.float32)
    row = rng.standard_normal((1, 5)).astype(np.float32)
    c = oprt.vector_add(to_backend(col, args.backend), to_backend(row, args.backend))
    check("(4,1) + (1,5) -> (4,5)", c, col.astype(np.float64) + row)

    h = rng.standard_normal(1000).astype(np.float16)
    half_sum = oprt.vector_add(to_backend(h, args.backend), to_backend(h, args.backend))
    check("f16 add (error of one f16 rounding)", half_sum, (h.astype(np.float64) * 2), rtol=1e-3, atol=1e-3)

    a = to_backend(np.ones(8, dtype=np.float32), args.backend)
    oprt.vector_add(a, a, out=a)                 # in place: out aliases a exactly
    check("in-place a += a", a, np.full(8, 2.0))
