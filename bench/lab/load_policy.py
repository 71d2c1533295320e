"""Lab load_policy (load_policy.cu says why): the library's whole-sum and streamed row kernels with evict-first
loads (as shipped up to 256 MiB) against the same kernels with plain loads, torch.compile beside them, timed as
run_ops times a row (DeviceTimer.measure_many: interleaved calls, a flush before each), three rounds.

    python3 load_policy.py [whole] [rows]   # on the GPU machine, after build.sh load_policy.cu
"""
import numpy as np

import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
POLICY = {"evict-first": "14EvictFirstLoad", "plain": "9PlainLoad"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}
PREFIX = "_ZN4oprt3gpu17reduce_sum_detail"
SLICE_THREADS, SLICE_LOADS, AT_ONCE_PACKS = 1024, 2, 4  # kernel.cuh: kSliceThreads, kSliceLoads, kAtOnceMaxPacks


def slices_kernel(module, dt, policy):
    index = "S4" if dt == "float32" else "S5"
    return module.kernel(PREFIX + "10sum_slicesI%sNS0_%sEEEvPKT_PNS_13ComputeTypeOfI%s_E4typeEl" % (
        MANGLED[dt], POLICY[policy], index))


def partials_kernel(module, dt, threads):
    return module.kernel(PREFIX + "15sum_row_at_onceIf%sLi%dELi4ENS0_9PlainLoadEEEvPKT_PT0_i" % (MANGLED[dt], threads))


def streamed_kernel(module, dt, policy):
    out = "f" if dt == "float32" else "S3_"
    return module.kernel(PREFIX + "26sum_rows_streamed_by_blockI%s%sNS0_%sEEEvPKT_PT0_lll" % (
        MANGLED[dt], out, POLICY[policy]))


def time_whole(module, rounds, rows_out):
    import torch

    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum().reshape(1)
        parts = n // (SLICE_THREADS * SLICE_LOADS * PACK[dt])
        threads = max(128, -(-(parts // 4) // AT_ONCE_PACKS))  # launch_partials_sum's block
        second = partials_kernel(module, dt, threads)
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(), dynamic=False, fullgraph=True)
        fns, outs = {"torch.compile": lambda: compiled(x).reshape(1)}, {}
        for policy in POLICY:
            first = slices_kernel(module, dt, policy)
            partials = torch.empty(parts, device="cuda", dtype=torch.float32)
            y = outs["library, %s" % policy] = torch.empty(1, device="cuda", dtype=x.dtype)
            fns["library, %s" % policy] = lambda first=first, partials=partials, y=y: (
                first.launch(parts, SLICE_THREADS, x, partials, n), second.launch(1, threads, partials, y,
                                                                                  np.int32(parts)))
        lab.time_sums_interleaved(rows_out, "67108864 ->scalar", dt, fns, outs, expected, n, rounds)
        del x
        torch.cuda.empty_cache()


def time_rows(module, rounds, rows_out):
    import torch

    for rows, cols, dt in [(8192, 8192, "float16"), (8192, 8192, "bfloat16"), (8192, 8192, "float32"),
                           (4096, 4096, "float32")]:
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
        fns, outs = {"torch.compile": lambda: compiled(x)}, {}
        for policy in POLICY:
            kernel = streamed_kernel(module, dt, policy)
            y = outs["library, %s" % policy] = torch.empty(rows, device="cuda", dtype=x.dtype)
            fns["library, %s" % policy] = lambda kernel=kernel, y=y: kernel.launch(rows, 256, x, y, rows, cols,
                                                                                   rows * cols)
        lab.time_sums_interleaved(rows_out, "%dx%d axis=-1" % (rows, cols), dt, fns, outs, expected, cols,
                                  rounds)
        del x
        torch.cuda.empty_cache()


def main(sections=("whole", "rows"), rounds=3):
    module = lab.load("load_policy")
    rows_out = []
    for section in sections:
        {"whole": time_whole, "rows": time_rows}[section](module, rounds, rows_out)
        lab.save("load_policy", rows_out)


if __name__ == "__main__":
    import sys

    main(tuple(sys.argv[1:]) or ("whole", "rows"))
