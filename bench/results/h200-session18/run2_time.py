"""Session 18, run 2: reduce_sum's whole sums from the wheel on sys.path, device time p20 / p50 / p80
(operator_runtime.benchmark.DeviceTimer: CUPTI, 256 MB L2 flush before each call), each call's kernels and its
error against float64. run2.sh runs it from the shipped wheel (.base) and the one with 1024-thread slices (.cand)
in turn, three rounds."""
import json
import sys

import numpy as np
import torch

import operator_runtime as ort
from operator_runtime import benchmark

timer = benchmark.DeviceTimer(torch)
rows = []
for n in [1 << 24, 1 << 25, 1 << 26, (1 << 26) + 8, 1 << 28]:
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        x = torch.randn(n, device="cuda").to(dtype)
        expected = x.double().sum()
        y = ort.reduce_sum(x, axis=None)
        err = float(((y.double() - expected).abs() / (expected.abs() + n ** 0.5)).max())
        m = timer.measure(lambda: ort.reduce_sum(x, axis=None))
        q = [float(v) for v in np.percentile(m["device_us"], [20, 50, 80])]
        rows.append({"n": n, "dtype": str(dtype), "p20": q[0], "p50": q[1], "p80": q[2], "kernels": m["kernels"],
                     "rel_err": err})
        print("%s %-10d %-14s p50 %7.2f us (p20 %.2f p80 %.2f) err %.1e  %s" % (
            sys.argv[1], n, dtype, q[1], q[0], q[2], err, " + ".join(k.split("(")[0][-40:] for k in m["kernels"])),
            flush=True)
json.dump(rows, open(sys.argv[2], "w"), indent=1)
