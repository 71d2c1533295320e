"""Lab flush_state: what state of the device around run_ops's L2 flush changes a kernel's device time?

Session 21's A/B with torch eager as the only peer (`h200-session21/run1-*`) timed our 4096 x 4096 f16 softmax at
18.7 us, where full runs, with torch.compile, Liger and QuACK in the same rounds, have 16.7; session 11 had the
measurement right after torch.compile's run 9% faster. This lab times the same calls (the library's, installed
from a wheel, and torch's) by DeviceTimer in homogeneous loops, two rounds each, under:
  idle section (run_ops queues flush, call, flush, call, ... without synchronizing; a slow host side idles the device):
    busy          queued back to back, the device never idle (run_ops with fast peers only)
    idle_before   after each call, synchronize and spin 300 us: every flush starts on an idle device
    idle_after    after each flush, synchronize and spin 300 us: every call starts on an idle device
  residue section (a kernel run right before every flush, counted as part of the flush, not of the call):
    last16/last32 a read of 16 / 32 MB with an L2 evict_last policy (flush_state.cu), as Triton's evict_last loads
    normal32      a plain read of 32 MB (the control: the flush should replace these lines)
    compile_sm    torch.compile's softmax of an 8192 x 8192 f16 tensor (Inductor's looped reduction)
Since session 22 the lab's own timer (the idle section's) resets the L2's persisting lines before every flush, as
run_ops does; session 21's run 2 ran before that.
Run on the GPU machine: cd bench/lab && PYTHONPATH=<site with operator_runtime> python3 flush_state.py
"""
import sys
import time

import lab

GAP_US = 300
IDLE = ("busy", "idle_before", "idle_after")
RESIDUE = ("last16", "last32", "normal32", "compile_sm")


def spin(torch, us=GAP_US):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    while (time.perf_counter() - t0) * 1e6 < us:
        pass


def with_idle(torch, fn, condition):
    def call():
        if condition == "idle_after":  # the timer has just queued the flush
            spin(torch)
        fn()
        if condition == "idle_before":
            spin(torch)
    return call


def record(rows, timer, label, name, condition, rnd, fn):
    row = dict(lab.time_us(fn, by=timer), case=label, impl=name, condition=condition, round=rnd)
    rows.append(row)
    print("%-26s %-14s %-12s round %d  p50 %8.2f us (p20 %.2f, p80 %.2f)" % (
        label, name, condition, rnd, row["p50"], row["p20"], row["p80"]), flush=True)


def main():
    import torch
    import operator_runtime as oprt

    DeviceTimer = lab.benchmark().DeviceTimer
    x4 = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    x8 = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    xc = torch.randn(64 << 20, device="cuda", dtype=torch.float16)
    yc = torch.empty_like(xc)
    compiled_sum = torch.compile(lambda t: t.sum(-1), fullgraph=True, dynamic=False)
    cases = [
        ("softmax 4096x4096 f16", {"ours": lambda: oprt.softmax(x4, axis=-1), "torch_eager": lambda: torch.softmax(x4, -1)}),
        ("softmax 8192x8192 f16", {"ours": lambda: oprt.softmax(x8, axis=-1)}),
        ("reduce_sum 8192x8192 f16", {"ours": lambda: oprt.reduce_sum(x8, axis=-1), "torch_compile": lambda: compiled_sum(x8)}),
        ("copy 64M f16", {"ours": lambda: oprt.copy(xc, out=yc), "torch_eager": lambda: yc.copy_(xc)}),
    ]
    for _, fns in cases:
        for fn in fns.values():
            fn()
    # the residues
    module = lab.load("flush_state")
    sink = torch.zeros(1, device="cuda", dtype=torch.int32)
    buf = torch.randint(0, 1 << 30, (8 << 20,), device="cuda", dtype=torch.int32)  # 32 MB
    packs32 = buf.numel() * 4 // 16

    def reader(kernel, packs):
        k = module.kernel(kernel)
        return lambda: k.launch(132 * 8, 256, buf, sink, packs)
    xs = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    compiled_softmax = torch.compile(lambda t: torch.softmax(t, -1), fullgraph=True, dynamic=False)
    compiled_softmax(xs)
    residues = {"last16": reader("read_evict_last", packs32 // 2), "last32": reader("read_evict_last", packs32),
                "normal32": reader("read_evict_normal", packs32), "compile_sm": lambda: compiled_softmax(xs)}
    torch.cuda.synchronize()
    timers = {"plain": lab.timer()}
    # a residue runs right before every flush (before_flush): the timer learns its kernel as one of the flush's
    # markers, so the residue's time is never a call's
    timers.update({name: DeviceTimer(torch, before_flush=fn) for name, fn in residues.items()})
    print("flush markers:", {name: sorted(t.flush_names) for name, t in timers.items()}, flush=True)
    rows = []
    sections = [a for a in sys.argv[1:] if not a.startswith("-")] or ["idle", "residue"]
    for rnd in range(2):
        for label, fns in cases:
            if "idle" in sections:
                for condition in IDLE:
                    for name, fn in fns.items():
                        record(rows, timers["plain"], label, name, condition, rnd, with_idle(torch, fn, condition))
            if "residue" in sections:
                for condition in RESIDUE:
                    for name, fn in fns.items():
                        record(rows, timers[condition], label, name, condition, rnd, fn)
    lab.save("flush_state", rows, {"gap_us": GAP_US, "residue_bytes": {"last16": 16 << 20, "last32": 32 << 20,
                                                                      "normal32": 32 << 20}})


if __name__ == "__main__":
    if "--dry" in sys.argv:
        print(IDLE, RESIDUE)
    else:
        main()
