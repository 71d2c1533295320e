"""06 gelu: x * Phi(x), exact (erf) or torch's tanh approximation, as torch.nn.functional.gelu(x, approximate=...).

Shows: both forms against float64 numpy, and why the kernel is written with erfc: the textbook
0.5 * x * (1 + erf(x / sqrt(2))) in float32 loses most of its digits for x < -3 (1 + erf cancels), while
0.5 * x * erfc(-x / sqrt(2)) keeps them. gelu is also the generator's worked example
(docs/how-to-add-an-operator.md): `git show c84c566` is the folder as `new_op` wrote it.
Run: bazel run //examples:gelu [-- --backend nvidia]
"""

import math

import numpy as np

import operator_runtime as oprt
from examples.common import check, parse_args, to_backend, to_numpy

args = parse_args(__doc__)
a = np.linspace(-8.0, 4.0, 4097, dtype=np.float32)
ref = a.astype(np.float64)
erfc = np.vectorize(math.erfc)
exact = 0.5 * ref * erfc(-ref / math.sqrt(2.0))
u = math.sqrt(2.0 / math.pi) * (ref + 0.044715 * ref ** 3)
tanh_form = ref / (1.0 + np.exp(-2.0 * u))
with oprt.backend(args.backend):
    x = to_backend(a, args.backend)
    y = oprt.gelu(x)
    check("exact gelu, float32 (relative error, even at x = -8)", y, exact, rtol=1e-5, atol=0)
    check("tanh approximation", oprt.gelu(x, approximate="tanh"), tanh_form, rtol=1e-5, atol=0)

erf = np.vectorize(math.erf)
textbook = (np.float32(0.5) * a * (np.float32(1) + erf(a / np.float32(math.sqrt(2.0))).astype(np.float32)))
tail = ref < -5
print("x < -5: largest relative error of the textbook float32 formula %.1e, of oprt.gelu %.1e"
      % (np.max(np.abs(textbook[tail] - exact[tail]) / np.abs(exact[tail])),
         np.max(np.abs(to_numpy(y)[tail] - exact[tail]) / np.abs(exact[tail]))))
