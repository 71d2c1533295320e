"""The CuTe variants of copy and vector_add against the hand-written kernels and torch, on the nvidia
backend: kernel time by CUDA events around each call with a 256 MB L2 flush before it (p20/p50/p80 of
30 runs), GB/s and % of the measured copy peak. Writes JSON with the machine and the command.

    python3 bench/cute_variants.py --json bench/results/h200-cute.json
"""

import argparse
import json
import sys

import numpy as np
import torch

import operator_runtime as oprt
from operator_runtime import benchmark

SIZES = [1 << 20, 1 << 24, 1 << 26, 1 << 28]
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def quantiles_us(fn, flush, repeats=30):
    for _ in range(3):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    for s, e in zip(starts, ends):
        flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
    return {q: float(np.percentile(times, p)) for q, p in (("p20", 20), ("p50", 50), ("p80", 80))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    flush = torch.empty(benchmark.L2_FLUSH_BYTES // 4, dtype=torch.float32, device="cuda")
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    peak = 2 * src.numel() / (quantiles_us(lambda: dst.copy_(src), flush)["p50"] * 1e-6) / 1e9
    del src, dst
    rows = []
    with oprt.backend("nvidia"):
        for name, dtype in DTYPES.items():
            for n in SIZES:
                a = torch.randn(n, device="cuda").to(dtype)
                b = torch.randn(n, device="cuda").to(dtype)
                out = torch.empty_like(a)
                for op, nbytes, calls in [
                    ("copy", 2 * a.nbytes, {"default": lambda: oprt.copy(a, out=out),
                                            "cute": lambda: oprt.copy(a, out=out, impl="cute"),
                                            "torch": lambda: out.copy_(a)}),
                    ("vector_add", 3 * a.nbytes, {"default": lambda: oprt.vector_add(a, b, out=out),
                                                  "cute": lambda: oprt.vector_add(a, b, out=out, impl="cute"),
                                                  "torch": lambda: torch.add(a, b, out=out)}),
                ]:
                    calls["cute"]()
                    want = a if op == "copy" else (a.float() + b.float()).to(dtype)
                    assert torch.equal(out, want), (op, name, n)
                    row = {"op": op, "dtype": name, "n": n, "bytes": nbytes}
                    for impl, fn in calls.items():
                        q = quantiles_us(fn, flush)
                        row[impl] = dict(q, gbps=nbytes / (q["p50"] * 1e-6) / 1e9,
                                         pct_peak=100 * nbytes / (q["p50"] * 1e-6) / 1e9 / peak)
                    row["cute_vs_default"] = row["default"]["p50"] / row["cute"]["p50"]
                    rows.append(row)
                    print("%-10s %-8s %10d  default %8.1f us  cute %8.1f us (%.2fx)  torch %8.1f us  cute %5.1f%% of peak"
                          % (op, name, n, row["default"]["p50"], row["cute"]["p50"], row["cute_vs_default"],
                             row["torch"]["p50"], row["cute"]["pct_peak"]))
    result = {"machine": benchmark.machine_info("nvidia"),
              "device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "measured_copy_peak_gbps": peak, "method": "CUDA events around each call, 256 MB memset L2 flush "
              "before each, 30 runs, p20/p50/p80 in us", "command": " ".join(sys.argv), "rows": rows}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
