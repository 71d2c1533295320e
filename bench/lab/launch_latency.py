"""Lab launch_latency: where, on the host and device timelines, does one call of ours spend the time that
run_ops's wall column has above its device time?

    cd bench/lab && python3 launch_latency.py   # on the GPU machine, operator_runtime importable

run_ops (session 12) has wall minus device time at a median 64 us for ours against torch eager's 32, on rows
whose calls cost about the same on the host in a loop without synchronizing (ours relu 20.5 us, torch's
17.3). Here each call runs as in run_ops's wall loop (a flush, a synchronize, the call, a synchronize) under
torch.profiler, inside record_function spans, and the trace (host API calls and kernels, one clock) splits
it: the call's host span, its first launch API call's start within it, the kernel's start after that call
(the launch latency), the kernel, and the synchronize that follows. Twice: in a fresh process, and again
after torch.compile has run once in it (run_ops's process has compiled every row by the time it times ours).
Session 42 added softmax by tier (SOFTMAX_SHAPES) with QuACK beside ours where importable: in the H100 record ours
has 4-8 us more wall above device time than QuACK on the shared-memory and cluster tiers, none on the tile tier.
"""

import json
import os
import statistics
import sys
import tempfile

import torch

import lab

CALLS = 40
LAUNCH_APIS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel")


def timeline(fns, flush):
    """Per implementation, per call: (host span, launch API start after the span's start and its duration,
    kernel start after that API call's start (after the span's start where no API call was traced), kernel
    us, synchronize us, kernel end after the span's end); medians printed and returned."""
    names = list(fns)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        for k in range(CALLS * len(names)):
            name = names[k % len(names)]
            flush()
            torch.cuda.synchronize()
            with torch.profiler.record_function("call:" + name):
                fns[name]()
            with torch.profiler.record_function("sync:" + name):
                torch.cuda.synchronize()
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    spans = sorted((e for e in events if e.get("cat") == "user_annotation" and e.get("name", "").startswith(
        ("call:", "sync:"))), key=lambda e: e["ts"])  # the host's spans (not their gpu_user_annotation copies)
    launches = sorted((e for e in events if e.get("name") in LAUNCH_APIS), key=lambda e: e["ts"])
    kernels = {e["args"].get("correlation"): e for e in events if e.get("cat") == "kernel"}
    ordered_kernels = sorted(kernels.values(), key=lambda e: e["ts"])
    per = {name: [] for name in names}
    for i, span in enumerate(spans):
        if not span["name"].startswith("call:"):
            continue
        name = span["name"][5:]
        mine = [l for l in launches if span["ts"] <= l["ts"] <= span["ts"] + span["dur"]]
        if mine:  # the launch API call CUPTI saw, and its kernel
            api_start, api_dur = mine[0]["ts"] - span["ts"], mine[0]["dur"]
            kernel = kernels.get(mine[0]["args"].get("correlation"))
        else:  # no API call seen (a runtime CUPTI does not trace): the first kernel after the span began
            api_start = api_dur = float("nan")
            kernel = next((k for k in ordered_kernels if k["ts"] >= span["ts"] and "bitwise_not" not in k["name"]), None)
        sync = spans[i + 1] if i + 1 < len(spans) and spans[i + 1]["name"].startswith("sync:") else None
        if kernel is None or sync is None:
            continue
        launch_ts = mine[0]["ts"] if mine else span["ts"]
        per[name].append((span["dur"], api_start, api_dur, kernel["ts"] - launch_ts, kernel["dur"], sync["dur"],
                          kernel["ts"] + kernel["dur"] - (span["ts"] + span["dur"])))
    out = {}
    for name, rows in per.items():
        if not rows:
            print("  %-22s no launch found in its spans (categories: %s)" % (name, sorted({e.get("cat") for e in events})),
                  flush=True)
            continue
        med = [statistics.median(r[j] for r in rows) for j in range(7)]
        out[name] = dict(zip(("host_span", "api_start", "api_dur", "kernel_after_api", "kernel", "sync",
                              "kernel_end_after_span"), med), calls=len(rows))
        print("  %-22s host span %6.1f | API at +%5.1f, %4.1f long | kernel +%6.1f after API, %7.1f long, ends %+7.1f"
              " after span | sync %6.1f" % (name, med[0], med[1], med[2], med[3], med[4], med[6], med[5]), flush=True)
    return out


# Softmax rows whose wall minus device time in session 42's H100 record differs by tier (f16, us): the
# cp.async shared-memory tier (4096x4096: ours +28, QuACK +22), the 16-block cluster tier (16x262144: +30
# against +22) and the tile tier (65536x128: +23 against +23, the control).
SOFTMAX_SHAPES = ((4096, 4096), (16, 262144), (65536, 128))


def quack_softmax():
    """QuACK's softmax_fwd where importable (tools/gpu_peers_site.sh's /tmp/site on PYTHONPATH), else None."""
    try:
        from quack.softmax import softmax_fwd
    except Exception as error:  # noqa: BLE001 - any import failure leaves QuACK out
        print("QuACK absent: %s" % error, flush=True)
        return None
    return softmax_fwd


def main():
    import operator_runtime as oprt

    flush = lab.timer().flush
    quack = quack_softmax()
    x = torch.randn(64 * 1024 * 1024, device="cuda", dtype=torch.float16)
    xo = torch.empty_like(x)
    fns = {"ours relu": lambda: oprt.relu(x), "ours relu out=": lambda: oprt.relu(x, out=xo),
           "torch relu": lambda: torch.relu(x)}
    inputs = {}
    for rows, cols in SOFTMAX_SHAPES:
        s = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        so = torch.empty_like(s)
        tag = " %dx%d" % (rows, cols)
        inputs[tag] = s
        fns["ours softmax" + tag] = lambda s=s: oprt.softmax(s, axis=-1)
        fns["ours softmax out=" + tag] = lambda s=s, so=so: oprt.softmax(s, axis=-1, out=so)
        fns["torch softmax" + tag] = lambda s=s: torch.softmax(s, -1)
        if quack is not None:
            fns["quack softmax" + tag] = lambda s=s: quack(s)
    for fn in fns.values():
        for _ in range(5):
            fn()
    torch.cuda.synchronize()
    report = {}
    for phase in ("fresh process", "after torch.compile"):
        if phase == "after torch.compile":
            compiled = torch.compile(lambda t: torch.softmax(t, -1))
            for tag, s in inputs.items():
                fns["torch.compile softmax" + tag] = lambda s=s: compiled(s)
                for _ in range(5):
                    compiled(s)
        for backend_context in (False, True):
            label = phase + (", within oprt.backend('nvidia')" if backend_context else "")
            print("== " + label, flush=True)
            if backend_context:
                with oprt.backend("nvidia"):
                    report[label] = timeline(fns, flush)
            else:
                report[label] = timeline(fns, flush)
    lab.save("launch_latency", [dict(phase=p, impl=n, **v) for p, r in report.items() for n, v in r.items()])


if __name__ == "__main__":
    sys.exit(main())
