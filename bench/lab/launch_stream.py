"""Lab launch_stream (session 27): why every kernel the lab launched through cupy in session 27's runs 4 and 5 took
2-4% longer than the same kernel through the library's API (the library's contiguous_kernel, from the lab's cubin:
64M f16 copy 66.0-66.2 us against 64.4-64.5). The library's copy kernel and torch's peers, interleaved as run_ops
times them, under run_ops's loop; the lab kernel launched on the stream lab.Kernel.launch uses (cupy's
ExternalStream of torch's current stream), on cupy's null stream, and after a torch.cuda.synchronize() of its own.
Printed per implementation: p20 / p50 / p80 device time and the p50 and minimum of the gap from the flush kernel's
end to the call's first kernel's start (a negative gap: the call ran beside the flush).

    cd bench/lab && PYTHONPATH=<site with operator_runtime> python3 launch_stream.py [rounds]
"""
import statistics
import sys

import numpy as np

import lab
from elementwise_bulk import LIB
from launch_gap import make_timer, timed_calls


def main(rounds=50):
    import cupy
    import operator_runtime as oprt
    import torch

    benchmark = lab.benchmark()
    kernel = lab.load("elementwise_bulk").kernel(LIB[("copy", 2)])
    n = 64 << 20
    x = torch.randn(n, device="cuda", dtype=torch.float16)
    blocks = n // (8 * 256)
    bits = torch.int16

    def lab_call(stream=None, synchronize=False):
        def call():
            out = torch.empty_like(x)
            if synchronize:
                torch.cuda.synchronize()
            if stream is None:
                kernel.launch(blocks, 256, n, np.uint8(0), out.view(bits), x.view(bits), x.view(bits))
            else:  # lab.Kernel.launch's arguments, on another stream
                kernel.function((blocks,), (256,), (np.int64(n), np.uint8(0), np.uint64(out.data_ptr()),
                                                    np.uint64(x.data_ptr()), np.uint64(x.data_ptr())), stream=stream)
            return out
        return call

    compiled = torch.compile(lambda t: t.clone(), fullgraph=True, dynamic=False)
    fns = {"ours": lambda: oprt.copy(x), "torch_eager": lambda: x.clone(), "torch_compile": lambda: compiled(x),
           "lab, ExternalStream(current)": lab_call(),
           "lab, cupy null stream": lab_call(cupy.cuda.Stream.null),
           "lab, synchronized first": lab_call(synchronize=True)}
    for name, fn in fns.items():
        assert torch.equal(fn(), x), name
    torch.cuda.synchronize()
    print("torch current stream:", torch.cuda.current_stream().cuda_stream, "cupy null:", cupy.cuda.Stream.null.ptr,
          "cupy", cupy.__version__, flush=True)
    rows = []
    for r in range(3):
        measured = timed_calls(benchmark, make_timer(benchmark, torch, "run_ops"), fns, "run_ops", rounds)
        for name, calls in measured.items():
            device = [d for d, _ in calls]
            gaps = [g for _, g in calls]
            q = np.percentile(device, [20, 50, 80])
            row = {"round": r, "impl": name, "p20": float(q[0]), "p50": float(q[1]), "p80": float(q[2]),
                   "gap_p50_us": statistics.median(gaps), "gap_min_us": min(gaps)}
            rows.append(row)
            print("round %d  %-30s p20 %7.2f p50 %7.2f p80 %7.2f us  gap p50 %6.2f min %6.2f us" % (
                r, name, row["p20"], row["p50"], row["p80"], row["gap_p50_us"], row["gap_min_us"]), flush=True)
    lab.save("launch_stream", rows)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
