"""What torch.compile (Inductor) launches for a row sum: the Triton source (TORCH_LOGS=output_code, on stderr)
and, from one profiled call, each kernel's grid, block, registers and shared memory (CUPTI's kernel records).

    TORCH_LOGS=output_code python3 inductor_launches.py 16384x256 65536x128 8192x512 2> inductor_code.log

A shape without "x" (67108864) is a whole-tensor sum, x.sum(); --bf16 adds bfloat16 to float16 and float32.
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
    dtypes = [torch.float16, torch.float32] + ([torch.bfloat16] if "--bf16" in sys.argv else [])
    for shape in (a for a in sys.argv[1:] if not a.startswith("--")):
        sizes = [int(n) for n in shape.split("x")]
        for dtype in dtypes:
            torch._dynamo.reset()
            x = torch.randn(*sizes, device="cuda", dtype=dtype)
            fn = torch.compile((lambda t: t.sum(-1)) if len(sizes) == 2 else (lambda t: t.sum()), dynamic=False,
                               fullgraph=True)
            for _ in range(3):
                fn(x)
            for name, args, dur in launches(fn, x):
                print(shape, dtype, name, args, "dur", dur)


if __name__ == "__main__":
    main()
