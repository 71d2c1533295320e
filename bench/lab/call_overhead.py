"""Lab call_overhead: where does one call of ours spend its host time in run_ops's wall-time loop?

    cd bench/lab && python3 call_overhead.py   # on the GPU machine, operator_runtime importable

run_ops's session 11 run has our softmax's wall time per call (a flush, a synchronize, then the call and a
synchronize) 100-250 us above its device time, more than QuACK's and torch eager's, while a loop of calls
without synchronizing costs ours ~13 us a call. Here, per shape (f16): the same call timed three ways (a
loop without synchronizing, a synchronize after every call, and run_ops's flush + synchronize before every
call), for ours allocating its output, ours with out=, torch eager, and the output allocation alone; then
cProfile of ours in run_ops's loop, the functions that took the most time.

Session 11 (`bench/results/lab/lab-call_overhead.json`, `bench/results/h200-session11/run2-*`), with run_ops's
flush + synchronize, us per call: 4096x4096 ours 57.2 (out= 50.7, torch eager 71.3), 8192x8192 106.9 (103.8,
273.1), 65536x128 30.3 (24.6, 33.8), 1x1048576 44.5 (35.7, 251.0); new_empty alone 11.4-11.8. So alone, a call of
ours costs 14-40 us above its device time, eager's 12-17; in run_ops's process (runB) ours took 100-250. The
profile (8192x8192): every call of ours left the fast path for `_dispatch._call_python`, as softmax's descriptor
for rows past 1024 columns asks for a workspace, which the fast path then left to Python; it now takes them.
"""

import cProfile
import io
import pstats
import sys
import time

import numpy as np
import torch

import lab

SHAPES = [(4096, 4096), (8192, 8192), (65536, 128), (1, 1048576)]


def per_call_us(fn, calls, before=None):
    """p50 us of fn() + synchronize, each after before() and a synchronize; before=False: no synchronize
    at all, the loop's average."""
    if before is False:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / calls * 1e6
    times = []
    for _ in range(calls):
        if before is not None:
            before()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e6)
    return float(np.percentile(times, 50))


def main():
    import operator_runtime as oprt

    flush = lab.timer().flush
    rows = []
    with oprt.backend("nvidia"):
        for shape in SHAPES:
            x = torch.randn(*shape, device="cuda", dtype=torch.float16)
            y = torch.empty_like(x)
            fns = {"ours": lambda: oprt.softmax(x, axis=-1), "ours out=": lambda: oprt.softmax(x, axis=-1, out=y),
                   "torch eager": lambda: torch.softmax(x, -1), "new_empty alone": lambda: x.new_empty(x.shape)}
            for fn in fns.values():
                for _ in range(20):
                    fn()
            for name, fn in fns.items():
                row = {"shape": "x".join(map(str, shape)), "impl": name,
                       "loop_us": per_call_us(fn, 200, before=False), "sync_us": per_call_us(fn, 100),
                       "flush_sync_us": per_call_us(fn, 100, before=flush)}
                rows.append(row)
                print("%-12s %-16s loop %7.1f us   sync each %7.1f us   flush+sync each %7.1f us" % (
                    row["shape"], name, row["loop_us"], row["sync_us"], row["flush_sync_us"]), flush=True)
            if shape == (8192, 8192):
                profile = cProfile.Profile()
                profile.enable()
                per_call_us(fns["ours"], 50, before=flush)
                profile.disable()
                text = io.StringIO()
                pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(14)
                print(text.getvalue(), flush=True)
            del x, y
    lab.save("call_overhead", rows)


if __name__ == "__main__":
    sys.exit(main())
