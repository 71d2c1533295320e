"""What torch.compile (Inductor) launches for a row sum: the Triton source (TORCH_LOGS=output_code, on stderr)
and, from one profiled call, each kernel's grid, block, registers and shared memory (CUPTI's kernel records).

    TORCH_LOGS=output_code python3 inductor_launches.py 16384x256 65536x128 8192x512 2> inductor_code.log
"""
import json
import sys
import tempfile

import torch


def launches(fn, x):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn(x)
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as trace:
        prof.export_chrome_trace(trace.name)
        events = json.load(open(trace.name))["traceEvents"]
    keys = ("grid", "block", "registers per thread", "shared memory", "est. achieved occupancy %")
    return [(e["name"], {k: e.get("args", {}).get(k) for k in keys}, e.get("dur"))
            for e in events if e.get("cat") == "kernel"]


def main():
    for shape in sys.argv[1:]:
        rows, cols = (int(n) for n in shape.split("x"))
        for dtype in (torch.float16, torch.float32):
            torch._dynamo.reset()
            x = torch.randn(rows, cols, device="cuda", dtype=dtype)
            fn = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
            for _ in range(3):
                fn(x)
            for name, args, dur in launches(fn, x):
                print(shape, dtype, name, args, "dur", dur)


if __name__ == "__main__":
    main()
