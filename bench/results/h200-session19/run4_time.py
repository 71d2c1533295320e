"""Session 19, run 4: gelu (exact and tanh) through the library from the wheel on sys.path, device time p20 / p50 /
p80 (operator_runtime.benchmark.DeviceTimer: CUPTI, 256 MB L2 flush before each call) and each call's kernels;
run4.sh runs it from main's wheel (.base) and the one whose gelu keeps loads in flight (.cand) in turn."""
import json
import sys

import numpy as np
import torch

import operator_runtime as ort
from operator_runtime import benchmark

timer = benchmark.DeviceTimer(torch)
rows = []
for n in [1 << 24, 1 << 26, 1 << 28, (1 << 24) + 1000]:
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        x = torch.randn(n, device="cuda").to(dtype)
        for approximate in ("none", "tanh"):
            y = torch.empty_like(x)
            expected = torch.nn.functional.gelu(x.double(), approximate=approximate)
            ort.gelu(x, approximate, out=y)
            err = float(((y.double() - expected).abs() / (expected.abs() + 1e-3)).max())
            m = timer.measure(lambda: ort.gelu(x, approximate, out=y))
            q = [float(v) for v in np.percentile(m["device_us"], [20, 50, 80])]
            rows.append({"n": n, "dtype": str(dtype), "approximate": approximate, "p20": q[0], "p50": q[1], "p80": q[2],
                         "kernels": m["kernels"], "rel_err": err})
            print("%s %-10d %-14s %-5s p50 %8.2f us (p20 %.2f p80 %.2f) err %.1e" % (
                sys.argv[1], n, dtype, approximate, q[1], q[0], q[2], err), flush=True)
json.dump(rows, open(sys.argv[2], "w"), indent=1)
