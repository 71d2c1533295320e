"""Session 16, run 6: reduce_sum's cluster tier (rows of 128x131072, 16x262144, 136x30001) from the wheel on
sys.path, device time p50 (operator_runtime.benchmark.DeviceTimer: CUPTI, 256 MB L2 flush before each call).
run6.sh runs it from the benchmarked wheel and from the one whose send-only blocks leave their mailbox unarmed,
in turn, three rounds."""
import json
import sys

import numpy as np
import torch

import operator_runtime as ort
from operator_runtime import benchmark

timer = benchmark.DeviceTimer(torch)
rows = []
for shape in [(128, 131072), (16, 262144), (136, 30001)]:
    for dtype in (torch.float32, torch.float16):
        x = torch.randn(*shape, device="cuda").to(dtype)
        expected = x.double().sum(-1)
        y = ort.reduce_sum(x, axis=-1)
        err = float(((y.double() - expected).abs() / (expected.abs() + shape[1] ** 0.5)).max())
        m = timer.measure(lambda: ort.reduce_sum(x, axis=-1))
        p50 = float(np.percentile(m["device_us"], 50))
        rows.append({"shape": shape, "dtype": str(dtype), "p50": p50, "kernels": m["kernels"], "rel_err": err})
        print("%s %-10s %-14s p50 %7.2f us  err %.1e  %s" % (sys.argv[1], "x".join(map(str, shape)), dtype, p50, err,
                                                           m["kernels"][0][:60]), flush=True)
json.dump(rows, open(sys.argv[2], "w"), indent=1)
