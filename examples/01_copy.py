"""01 copy: out[...] = x for any two layouts.

Shows: a transposed (strided) view copied into a dense array, and a row broadcast to a matrix. The kernel
sees only shapes and strides in elements: the same call copies contiguous, strided and broadcast data.
Run: bazel run //examples:copy [-- --backend nvidia]
"""

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend

args = parse_args(__doc__)
with oprt.backend(args.backend):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    xt = to_backend(a.T, args.backend)          # a 4x3 view with strides (1, 4)
    dense = oprt.copy(xt, out=to_backend(np.empty((4, 3), np.float32), args.backend))  # strides (3, 1)
    check("copy of a transposed 3x4 view", dense, a.T)

    row = to_backend(np.array([1.0, 2.0, 3.0], dtype=np.float32), args.backend)
    out = to_backend(np.zeros((2, 3), dtype=np.float32), args.backend)
    oprt.copy(row, out=out)                     # row's stride along the new dim is 0
    check("copy of a row broadcast to 2x3", out, np.array([[1.0, 2.0, 3.0]] * 2))
