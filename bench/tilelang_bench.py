"""tilelang vs nvidia vs torch, every public op, a few shapes each (issue #8).

    PYTHONPATH=<oprt wheel site>:<tilelang site>:$PWD python3 bench/tilelang_bench.py --json out.json

Per (op, shape, dtype) and implementation (tilelang: oprt.<op>(..., backend="tilelang"); nvidia: the same call
with backend="nvidia"; torch: the torch equivalent, out= where it has one), all on torch CUDA tensors with a
preallocated out:
  * first_call_s: wall time of the first call (for tilelang it includes compiling its kernels;
    compile_s is the compile time alone, from operator_runtime._tilelang.COMPILE_SECONDS; run with
    TILELANG_DISABLE_CACHE=1, as the H200 run did, so that a compile is a real one and not tilelang's disk cache);
  * device time per call from torch.profiler (CUPTI kernel records): `iters` calls, each after an L2 flush
    (bitwise_not of a 256 MB buffer: 2x the 60 MB L2 of an H200, a kernel no op here uses, so its records mark
    the iteration boundaries); a call's time is the sum of its kernels' durations (dense copies of the tilelang
    launchers included); p20 / p50 / p80 over the calls, and the kernel count per call;
  * wall_us: wall time per call of a loop of back-to-back calls (launch overhead included), no flush;
  * GB/s at the p50 from the bytes a single-pass kernel moves.
Writes JSON (machine, versions, command, rows) to --json and a table to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import socket
import sys
import time

import numpy as np


def cases(quick: bool):
    """(op, label, shapes, dtype, attrs, bytes) rows."""
    rows = []
    big = [1 << 24, 1 << 28] if not quick else [1 << 24]
    for n in big:
        for d in ("float16", "float32"):
            rows.append(("copy", "%d" % n, [(n,)], d, {}))
            rows.append(("relu", "%d" % n, [(n,)], d, {}))
            rows.append(("vector_add", "%d" % n, [(n,), (n,)], d, {}))
    rows.append(("copy", "%d" % (1 << 24), [(1 << 24,)], "bfloat16", {}))
    rows.append(("leaky_relu", "%d" % (1 << 24), [(1 << 24,)], "float16", {"negative_slope": 0.1}))
    rows.append(("copy", "4096x4096 transposed", [(4096, 4096)], "float16", {"transposed": True}))
    rows.append(("vector_add", "8192x8192 + 8192 (bias row)", [(8192, 8192), (8192,)], "float16", {}))
    rows.append(("vector_add", "4096x4096 + 4096x1 (column)", [(4096, 4096), (4096, 1)], "float32", {}))
    for d in ("float32", "float16"):
        rows.append(("reduce_sum", "%d all" % (1 << 28 if not quick else 1 << 24), [((1 << 28) if not quick else (1 << 24),)],
                     d, {"axis": None}))
        rows.append(("reduce_sum", "4096x4096 axis=-1", [(4096, 4096)], d, {"axis": -1}))
        rows.append(("reduce_sum", "4096x4096 axis=0", [(4096, 4096)], d, {"axis": 0}))
    rows.append(("reduce_sum", "16x1048576 axis=-1", [(16, 1 << 20)], "bfloat16", {"axis": -1}))
    for shape, dtypes in (((4096, 4096), ("float16", "bfloat16", "float32")), ((8192, 8192), ("float16",)),
                          ((32768, 1024), ("float16", "float32")), ((128, 131072), ("float16",)),
                          ((16, 262144), ("float16", "float32")), ((4, 1 << 20), ("float32",))):
        for d in dtypes:
            rows.append(("softmax", "x".join(map(str, shape)), [shape], d, {"axis": -1}))
    rows.append(("softmax", "4096x4096 axis=0", [(4096, 4096)], "float16", {"axis": 0}))
    for d in ("float16", "float32"):
        rows.append(("log_softmax", "4096x4096", [(4096, 4096)], d, {"axis": -1}))
        rows.append(("log_softmax", "32768x1024", [(32768, 1024)], d, {"axis": -1}))
    return rows


def bytes_moved(op, shapes, out_shape, itemsize):
    n_in = sum(math.prod(s) for s in shapes)
    return (n_in + math.prod(out_shape)) * itemsize


def make(op, shapes, dtype, attrs, torch):
    """(inputs, out) torch CUDA tensors."""
    tdtype = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = [torch.randn(s, dtype=torch.float32, device="cuda", generator=gen).mul_(3).to(tdtype) for s in shapes]
    if attrs.get("transposed"):
        inputs = [x.t() for x in inputs]  # a transposed view: strided input, contiguous out
    if op == "reduce_sum":
        axis = attrs["axis"]
        x = inputs[0]
        out_shape = () if axis is None else tuple(n for d, n in enumerate(x.shape) if d != axis % x.dim())
    elif op == "vector_add":
        out_shape = tuple(torch.broadcast_shapes(*[x.shape for x in inputs]))
    else:
        out_shape = tuple(inputs[0].shape)
    out = torch.empty(out_shape, dtype=tdtype, device="cuda")
    return inputs, out


def callables(op, inputs, out, attrs, oprt, torch):
    """{impl: fn()} for tilelang, nvidia and torch."""
    x = inputs[0]
    axis = attrs.get("axis", -1)

    def ours(backend):
        if op == "copy":
            return lambda: oprt.copy(x, out=out, backend=backend)
        if op == "relu":
            return lambda: oprt.relu(x, out=out, backend=backend)
        if op == "leaky_relu":
            return lambda: oprt.relu(x, attrs["negative_slope"], out=out, backend=backend)
        if op == "vector_add":
            return lambda: oprt.vector_add(x, inputs[1], out=out, backend=backend)
        if op == "reduce_sum":
            return lambda: oprt.reduce_sum(x, axis=axis, out=out, backend=backend)
        if op == "softmax":
            return lambda: oprt.softmax(x, axis=axis, out=out, backend=backend)
        if op == "log_softmax":
            return lambda: oprt.log_softmax(x, axis=axis, out=out, backend=backend)
        raise ValueError(op)

    if op == "copy":
        t = lambda: out.copy_(x)  # noqa: E731
    elif op == "relu":
        t = lambda: torch.clamp_min(x, 0, out=out)  # noqa: E731  (torch.relu has no out=)
    elif op == "leaky_relu":
        t = lambda: torch.nn.functional.leaky_relu(x, attrs["negative_slope"])  # noqa: E731
    elif op == "vector_add":
        t = lambda: torch.add(x, inputs[1], out=out)  # noqa: E731
    elif op == "reduce_sum":
        dims = tuple(range(x.dim())) if axis is None else axis  # (torch.sum(x, out=) has no dim-less form)
        t = lambda: torch.sum(x, dim=dims, out=out)  # noqa: E731
    elif op == "softmax":
        t = lambda: torch.softmax(x, dim=axis)  # noqa: E731
    elif op == "log_softmax":
        t = lambda: torch.log_softmax(x, dim=axis)  # noqa: E731
    return {"tilelang": ours("tilelang"), "nvidia": ours("nvidia"), "torch": t}


FLUSH_MARK = "bitwise_not"


def kernel_records(prof):
    """[(name, start_us, duration_us)] of the CUDA kernels a torch.profiler run recorded, by start time."""
    from torch.autograd import DeviceType

    out = []
    for e in prof.events():
        if getattr(e, "device_type", None) != DeviceType.CUDA:
            continue
        start = e.time_range.start
        dur = e.time_range.elapsed_us()
        out.append((e.name, start, dur))
    out.sort(key=lambda r: r[1])
    return out


SEPARATOR = "neg"  # a marker kernel (neg_ of a small tensor) between the implementations of one case


def device_times(fns, flush, iters, torch):
    """{impl: (per-call device times in us, kernels per call)}: one profiler session for a case, the
    implementations one after another (a SEPARATOR kernel before each), every call after an L2 flush."""
    from torch.profiler import ProfilerActivity, profile

    sep = torch.zeros(16, device="cuda")
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for fn in fns.values():
            sep.neg_()
            for _ in range(iters):
                flush.bitwise_not_()
                fn()
        torch.cuda.synchronize()
    segments = []  # per impl: list of [time, kernels] per call
    for name, _start, dur in kernel_records(prof):
        if SEPARATOR in name and "bitwise" not in name:
            segments.append([])
        elif FLUSH_MARK in name:
            if segments:
                segments[-1].append([0.0, 0])
        elif segments and segments[-1]:
            segments[-1][-1][0] += dur
            segments[-1][-1][1] += 1
    out = {}
    for impl, seg in zip(fns, segments):
        out[impl] = ([c[0] for c in seg], [c[1] for c in seg])
    return out


def wall_per_call(fn, torch, seconds=0.1):
    fn()
    torch.cuda.synchronize()
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(10):
            fn()
        n += 10
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        if elapsed > seconds or n >= 2000:
            return elapsed / n * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", required=True, help="where to write the results")
    p.add_argument("--iters", type=int, default=25)
    p.add_argument("--quick", action="store_true", help="small shapes only")
    p.add_argument("--ops", default="", help="comma-separated ops (default: all)")
    p.add_argument("--impls", default="tilelang,nvidia,torch")
    p.add_argument("--warm", type=int, default=-1, help="first compile every tilelang kernel with "
                   "operator_runtime._tilelang.warm(N processes; 0: one per CPU) and report those compile times "
                   "(default: skip)")
    p.add_argument("--compile-times", default="", help="a JSON {kernel key: seconds} written by an earlier warm()")
    args = p.parse_args(argv)

    import torch

    import operator_runtime as oprt
    from operator_runtime import _tilelang

    impls = args.impls.split(",")
    warm_times = {}
    if args.compile_times:
        with open(args.compile_times) as f:
            warm_times = json.load(f)
    if args.warm >= 0:
        start = time.perf_counter()
        warm_times = {str(k): v for k, v in _tilelang.warm(args.warm).items()}
        print("warm: %d kernels in %.1f s" % (len(warm_times), time.perf_counter() - start), flush=True)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    for op, label, shapes, dtype, attrs in cases(args.quick):
        if args.ops and op not in args.ops.split(","):
            continue
        inputs, out = make(op, shapes, dtype, attrs, torch)
        fns = callables(op, inputs, out, attrs, oprt, torch)
        nbytes = bytes_moved(op, [tuple(x.shape) for x in inputs] if op != "vector_add" else
                             [tuple(x.shape) for x in inputs], tuple(out.shape), out.element_size())
        ok = {}
        for impl in impls:
            fn = fns[impl]
            row = {"op": op, "case": label, "dtype": dtype, "impl": impl, "shapes": [list(s) for s in shapes],
                   "attrs": {k: v for k, v in attrs.items()}, "bytes": nbytes}
            try:
                compiled_before = dict(_tilelang.COMPILE_SECONDS)
                torch.cuda.synchronize()
                start = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                row["first_call_s"] = time.perf_counter() - start
                if impl == "tilelang":
                    new = [k for k in _tilelang.COMPILE_SECONDS if k not in compiled_before]
                    row["kernels_compiled"] = [list(map(str, k)) for k in new]
                    # the first call's tilelang.compile time (a disk-cache load after warm()) ...
                    row["first_call_compile_s"] = sum(_tilelang.COMPILE_SECONDS[k] for k in new)
                    # ... and the real compile time of those kernels, measured by warm() (fresh compiles)
                    row["compile_s"] = sum(warm_times.get(str(tuple(k)), float("nan")) for k in new) if warm_times else None
                for _ in range(3):
                    fn()
                row["wall_us"] = wall_per_call(fn, torch)
                ok[impl] = fn
            except Exception as e:  # noqa: BLE001: a row that cannot run says why
                row["error"] = "%s: %s" % (type(e).__name__, e)
            rows.append(row)
        case_rows = rows[-len(impls):]
        try:
            times = device_times(ok, flush, args.iters, torch)
        except Exception as e:  # noqa: BLE001
            times = {}
            for row in case_rows:
                row.setdefault("error", "profiler: %s: %s" % (type(e).__name__, e))
        for row in case_rows:
            if row["impl"] not in times:
                print(_line(row), flush=True)
                continue
            calls, counts = times[row["impl"]]
            q = np.percentile(calls, [20, 50, 80]) if calls else [float("nan")] * 3
            row.update(p20_us=float(q[0]), p50_us=float(q[1]), p80_us=float(q[2]), calls=len(calls),
                       kernels_per_call=(int(np.median(counts)) if counts else 0))
            row["gbps_p50"] = nbytes / (row["p50_us"] * 1e-6) / 1e9 if row["p50_us"] > 0 else None
            print(_line(row), flush=True)
        del inputs, out
        torch.cuda.empty_cache()

    versions = {"python": sys.version.split()[0], "torch": torch.__version__, "cuda": torch.version.cuda,
                "numpy": np.__version__, "operator_runtime": oprt.__version__}
    try:
        import tilelang

        versions["tilelang"] = tilelang.__version__
    except Exception:  # noqa: BLE001
        pass
    result = {
        "what": "tilelang vs nvidia vs torch per op (bench/tilelang_bench.py)",
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "machine": {"host": socket.gethostname(), "gpu": torch.cuda.get_device_name(),
                    "sms": torch.cuda.get_device_properties(0).multi_processor_count,
                    "platform": platform.platform()},
        "versions": versions,
        "env": {k: v for k, v in os.environ.items() if k.startswith(("TILELANG_", "OPRT_"))},
        "method": "device time: torch.profiler CUPTI kernel records summed per call, each call after an L2 flush "
                  "(bitwise_not of 256 MB); p20/p50/p80 over %d calls; wall_us: back-to-back calls, no flush; "
                  "first_call_s: first call wall time (tilelang: includes compile_s)" % args.iters,
        "tilelang_kernels": _tilelang.kernel_cache_info(),
        "compile_s_per_kernel": warm_times,
        "rows": rows,
    }
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    return 0


def _line(r):
    if "error" in r:
        return "%-12s %-30s %-9s %-9s ERROR %s" % (r["op"], r["case"], r["dtype"], r["impl"], r["error"][:200])
    extra = " compile %.2fs" % r["compile_s"] if r.get("compile_s") else ""
    if "p50_us" not in r:
        return "%-12s %-30s %-9s %-9s wall %8.1f us (no device time)" % (r["op"], r["case"], r["dtype"], r["impl"],
                                                                          r.get("wall_us", float("nan")))
    return "%-12s %-30s %-9s %-9s p50 %9.1f us (p20 %9.1f p80 %9.1f) %7.0f GB/s  wall %8.1f us  k/call %d  first %.3fs%s" % (
        r["op"], r["case"], r["dtype"], r["impl"], r["p50_us"], r["p20_us"], r["p80_us"], r["gbps_p50"] or 0,
        r["wall_us"], r["kernels_per_call"], r["first_call_s"], extra)


if __name__ == "__main__":
    raise SystemExit(main())
