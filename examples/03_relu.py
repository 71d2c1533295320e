"""03 relu: y = x > 0 ? x : slope * x (slope 0 is relu; NaN stays NaN, relu(-inf) = 0 as in torch).

Shows: relu and leaky relu through one elementwise kernel with a functor, and the special values.
Run: bazel run //examples:relu [-- --backend nvidia]
"""

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend

args = parse_args(__doc__)
x64 = np.array([-2.0, -0.5, 0.0, 0.5, 3.0, -np.inf, np.inf, np.nan])
with oprt.backend(args.backend):
    x = to_backend(x64.astype(np.float32), args.backend)
    check("relu with -inf, inf and NaN", oprt.relu(x), np.where((x64 > 0) | np.isnan(x64), x64, 0.0))
    leaky = np.where((x64 > 0) | np.isnan(x64), x64, 0.1 * x64)
    check("leaky relu, slope 0.1", oprt.relu(x, negative_slope=0.1), leaky.astype(np.float32).astype(np.float64))
