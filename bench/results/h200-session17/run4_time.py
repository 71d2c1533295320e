"""Session 17, run 4: reduce_sum's row sums of one slice and whole sums from the wheel on sys.path, device time p20 /
p50 / p80 (operator_runtime.benchmark.DeviceTimer: CUPTI, 256 MB L2 flush before each call), with each call's
kernels and its error against float64. run4.sh runs it from the shipped wheel (.base) and the one with the slice
kernel (.cand), in turn, three rounds."""
import json
import sys

import numpy as np
import torch

import operator_runtime as ort
from operator_runtime import benchmark

timer = benchmark.DeviceTimer(torch)
rows = []
for shape, axis in [((8192, 8192), -1), ((4096, 4096), -1), ((8192, 8192), None), ((1 << 26,), None),
                    (((1 << 26) + 8,), None)]:
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        x = torch.randn(*shape, device="cuda").to(dtype)
        expected = x.double().sum(axis) if axis is not None else x.double().sum()
        y = ort.reduce_sum(x, axis=axis)
        length = shape[-1] if axis is not None else x.numel()
        err = float(((y.double() - expected).abs() / (expected.abs() + length ** 0.5)).max())
        m = timer.measure(lambda: ort.reduce_sum(x, axis=axis))
        q = [float(v) for v in np.percentile(m["device_us"], [20, 50, 80])]
        rows.append({"shape": shape, "axis": axis, "dtype": str(dtype), "p20": q[0], "p50": q[1], "p80": q[2],
                     "kernels": m["kernels"], "rel_err": err})
        print("%s %-12s %-5s %-14s p50 %7.2f us (p20 %.2f p80 %.2f) err %.1e  %s" % (
            sys.argv[1], "x".join(map(str, shape)), axis, dtype, q[1], q[0], q[2], err,
            " + ".join(k.split("(")[0][-40:] for k in m["kernels"])), flush=True)
json.dump(rows, open(sys.argv[2], "w"), indent=1)
