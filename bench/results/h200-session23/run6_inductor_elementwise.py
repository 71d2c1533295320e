"""Session 23, run 6: what torch.compile's Triton kernels for the half elementwise rows are (they lead ours by
0.2-1.3% there; bench/notes/elementwise-tuning.md): Inductor's generated code for clone, relu and add of 64M
f16 / f32 values (XBLOCK, num_warps, the load and store lines), and each kernel's grid and block from the
profiler's trace. Run on the GPU machine: python3 run6_inductor_elementwise.py OUT_DIR."""
import json
import re
import sys

import torch
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

out_dir = sys.argv[1]
report = {}
for name, fn, arity in (("copy", lambda x: x.clone(), 1), ("relu", torch.relu, 1), ("vector_add", torch.add, 2)):
    for dtype in (torch.float16, torch.float32):
        torch._dynamo.reset()
        args = [torch.randn(64 << 20, device="cuda", dtype=dtype) for _ in range(arity)]
        compiled = torch.compile(fn, dynamic=False, fullgraph=True)
        _, codes = run_and_get_code(compiled, *args)
        code = "\n".join(codes)
        lines = [l.strip() for l in code.splitlines()
                 if re.search(r"XBLOCK|num_warps|tl\.load|tl\.store|triton_heuristics|size_hints|grid", l)]
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                compiled(*args)
            torch.cuda.synchronize()
        trace = "/tmp/trace-%s-%s.json" % (name, str(dtype)[6:])
        prof.export_chrome_trace(trace)
        events = [e for e in json.load(open(trace))["traceEvents"] if e.get("cat") == "kernel"]
        launches = sorted({(e["name"], str(e["args"].get("grid")), str(e["args"].get("block")),
                            e["args"].get("registers per thread"), e["args"].get("shared memory")) for e in events})
        key = "%s-%s" % (name, str(dtype)[6:])
        report[key] = {"code_lines": lines, "launches": launches,
                       "durations_us": [round(e["dur"], 2) for e in events]}
        print(key, launches, report[key]["durations_us"])
        for l in lines:
            print("   ", l[:160])
json.dump(report, open(out_dir + "/run6-inductor-elementwise.json", "w"), indent=1)
