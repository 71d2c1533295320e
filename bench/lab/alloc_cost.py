"""Lab alloc_cost: what allocating the output costs our call in run_ops's wall loop, with and without a
profiler session right before it.

    cd bench/lab && python3 alloc_cost.py   # on the GPU machine, operator_runtime importable

launch_latency (session 13, run 2) put the gap between ours and torch eager before the launch: with out= our
launch API call comes 17 us into the call, torch.relu's 31, ours allocating its output (x.new_empty) 52. That ran
under the profiler, which records every torch op a call makes from Python. run_ops times wall time right after
each row's profiled loop. Here, per call, a flush and a synchronize, then the call and a synchronize, timed
without the profiler: the allocation alone three ways, ours allocating, ours with out=, torch.relu; each
measured fresh and right after a profiled loop of the same calls (as run_ops's DeviceTimer does).
"""

import sys

import torch

import lab
from call_overhead import per_call_us

CALLS = 100


def main():
    import operator_runtime as oprt

    timer = lab.timer()
    flush = timer.flush
    x = torch.randn(64 * 1024 * 1024, device="cuda", dtype=torch.float16)
    out = torch.empty_like(x)
    shape = tuple(x.shape)
    fns = {
        "x.new_empty(x.shape)": lambda: x.new_empty(x.shape),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
        "torch.empty(shape, dtype, device)": lambda: torch.empty(shape, dtype=x.dtype, device=x.device),
        "ours relu": lambda: oprt.relu(x),
        "ours relu out=": lambda: oprt.relu(x, out=out),
        "torch relu": lambda: torch.relu(x),
    }
    rows = []
    for name, fn in fns.items():
        for _ in range(10):
            fn()
        fresh = per_call_us(fn, CALLS, before=flush)
        timer._trace(fn, 40, split=False)  # the profiled loop run_ops's DeviceTimer runs before its wall loop
        after = per_call_us(fn, CALLS, before=flush)
        again = per_call_us(fn, CALLS, before=flush)
        rows.append({"impl": name, "fresh_us": fresh, "after_profiler_us": after, "later_us": again})
        print("%-36s wall p50: fresh %6.1f us, right after a profiled loop %6.1f, then %6.1f" % (name, fresh, after,
                                                                                                 again), flush=True)
    lab.save("alloc_cost", rows)


if __name__ == "__main__":
    sys.exit(main())
