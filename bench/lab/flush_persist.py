"""Lab flush_persist: do lines that torch.compile's looped softmax loads with an L2 evict_last policy survive run_ops's
256 MB flush, and does the driver's cuCtxResetPersistingL2Cache let the flush evict them?

Session 21 run 3: our 4096 x 4096 f16 softmax took 16.7 us when torch.compile's kernel for the row
(triton_red_fused__softmax_exp_prepare_softmax_online_sub_0, whose first loop reads x evict_last) shared the rounds,
18.5 without it; Liger's 16.7 / 18.7 alike. Here ours and torch.compile are timed together as run_ops times a row
(measure_many), by three timers: run_ops's (flush queued right behind the previous call), one that synchronizes
before each flush (the control for the next), and run_ops --flush_reset_persisting's, which synchronizes and calls
cuCtxResetPersistingL2Cache before each flush (benchmark.persisting_l2_reset).
Run on the GPU machine: cd bench/lab && PYTHONPATH=<site with operator_runtime> python3 flush_persist.py
"""
import lab


def main():
    import torch
    import operator_runtime as oprt

    benchmark = lab.benchmark()
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    compiled = torch.compile(lambda t: torch.softmax(t, -1), fullgraph=True, dynamic=False)
    fns = {"ours": lambda: oprt.softmax(x, axis=-1), "torch_compile": lambda: compiled(x)}
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()

    timers = {"run_ops": benchmark.DeviceTimer(torch),
              "sync": benchmark.DeviceTimer(torch, before_flush=torch.cuda.synchronize),
              "reset": benchmark.DeviceTimer(torch, before_flush=benchmark.persisting_l2_reset(torch))}
    rows = []
    # ours alone first: lines torch.compile's warm-up call pinned may still be there (the run_ops timer shows
    # whether they last), then ours with torch.compile in the rounds
    for rnd in range(2):
        for tname, timer in timers.items():
            for alone in (True, False):
                row_fns = {"ours": fns["ours"]} if alone else fns
                m = timer.measure_many(row_fns)
                for name in row_fns:
                    row = dict(lab.stats(m[name]["device_us"]), timer=tname, with_compile=not alone, impl=name,
                               round=rnd)
                    rows.append(row)
                    print("%-8s %-13s %-14s round %d  p50 %7.2f us (p20 %.2f, p80 %.2f)" % (
                        tname, "ours alone" if alone else "with compile", name, rnd, row["p50"], row["p20"],
                        row["p80"]), flush=True)
    lab.save("flush_persist", rows)


if __name__ == "__main__":
    main()
