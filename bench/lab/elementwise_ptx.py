"""Lab elementwise_ptx: what torch.compile's Triton kernel for the 64M half copy / relu / add rows is, instruction by
instruction, beside ours, and how each runs right after run_ops's flush under ncu.

    cd bench/lab && PYTHONPATH=<site with operator_runtime> python3 elementwise_ptx.py [--ncu-calls]

Session 24's full run (paired per-round ratios) has every half copy / relu / add row 0.2-0.8% behind torch.compile
with an interval below 1.00, while every f32 row leads by 0.1-1%; the same kernel template serves both types, and
session 23's cand8 gave the half kernel Triton's grid and block (tied). This script compiles the three rows with
torch.compile, copies Inductor's Triton sources and PTX from its cache into $OUT (with --ncu-calls it instead makes,
for ncu, after a warm-up: flush, ours, flush, torch.compile's, three times per row: f16 and f32 copies, f16 relu
and add).
"""
import os
import pathlib
import shutil
import sys

import torch


def main():
    import operator_runtime as oprt

    out = pathlib.Path(os.environ.get("OUT", "/tmp"))
    n = 64 << 20
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    for dtype in (torch.float16, torch.float32):
        x = torch.randn(n, device="cuda", dtype=dtype)
        b = torch.randn_like(x)
        rows.append(("copy", dtype, lambda x=x: oprt.copy(x), torch.compile(lambda t: t.clone(), dynamic=False), (x,)))
        if dtype == torch.float16:
            rows.append(("relu", dtype, lambda x=x: oprt.relu(x), torch.compile(torch.relu, dynamic=False), (x,)))
            rows.append(("add", dtype, lambda x=x, b=b: oprt.vector_add(x, b),
                         torch.compile(lambda p, q: p + q, dynamic=False), (x, b)))
    for _, _, ours, compiled, inputs in rows:  # compiles, warms up
        for _ in range(3):
            ours()
            compiled(*inputs)
    torch.cuda.synchronize()
    if "--ncu-calls" in sys.argv:
        for _ in range(3):
            for _, _, ours, compiled, inputs in rows:
                flush.bitwise_not_()
                ours()
                flush.bitwise_not_()
                compiled(*inputs)
        torch.cuda.synchronize()
        return
    caches = [pathlib.Path(os.environ.get("TRITON_CACHE_DIR", pathlib.Path.home() / ".triton" / "cache"))]
    caches += list(pathlib.Path("/tmp").glob("torchinductor_*"))
    kept = out / "triton"
    kept.mkdir(parents=True, exist_ok=True)
    for cache in caches:
        for path in cache.rglob("*"):
            if (path.is_file() and path.suffix in (".ptx", ".ttgir", ".cubin", ".py")
                    and path.stat().st_size < 200_000 and "poi" in path.read_bytes().decode("latin-1")):
                shutil.copy(path, kept / (path.parent.name[:8] + "-" + path.name))
    print("kept", len(list(kept.iterdir())), "files from", [str(c) for c in caches])


if __name__ == "__main__":
    main()
