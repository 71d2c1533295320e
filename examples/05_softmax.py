"""05 softmax / log_softmax: exp(x - max) / sum(exp(x - max)) along one axis, and its log.

Shows: the max subtraction that keeps exp from overflowing (rows of 1000s), a softmax over a
non-contiguous axis, and log_softmax where softmax would underflow to 0.
Run: bazel run //examples:softmax [-- --backend nvidia]
"""

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend


def softmax64(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


args = parse_args(__doc__)
a = (np.random.default_rng(0).standard_normal((8, 300)) * 4 + 1000).astype(np.float32)
ref = a.astype(np.float64)
with oprt.backend(args.backend):
    x = to_backend(a, args.backend)
    check("softmax of rows around 1000 (no overflow)", oprt.softmax(x, axis=-1), softmax64(ref, -1), atol=1e-6)
    check("softmax over axis 0 (strided)", oprt.softmax(x, axis=0), softmax64(ref, 0), atol=1e-6)
    wide = np.array([[0.0, -200.0]], dtype=np.float32)
    check("log_softmax where softmax underflows", oprt.log_softmax(to_backend(wide, args.backend)),
          np.array([[0.0, -200.0]]), atol=1e-4)
