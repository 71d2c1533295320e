"""Lab reduce_scalar: the whole-tensor sum (64M elements; 256M for the leaders) in one kernel or two
(reduce_scalar.cu says what each candidate is), next to the library's two kernels launched as sum_rows
launches them, torch.compile's kernels timed one by one, and the best peer recorded.

    python3 reduce_scalar.py      # on the GPU machine, after bench/lab/build.sh reduce_scalar.cu
"""
import ctypes
import statistics

import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}
VARIANTS = [  # (layout, block, unroll, min blocks) as compiled in reduce_scalar.cu
    ("il", 256, 8, 1), ("il", 256, 8, 3), ("il", 256, 4, 4), ("il", 256, 4, 8), ("il", 256, 16, 1),
    ("il", 512, 8, 1), ("il", 512, 4, 2), ("il", 1024, 4, 1), ("il", 1024, 8, 1),
    ("ch", 256, 8, 1), ("ch", 512, 4, 2), ("ch", 1024, 4, 1),
]
LABELS = {1 << 26: "67108864 ->scalar", 1 << 28: "268435456 ->scalar"}  # h200-peers.json's labels


def library_kernels(module, dt):
    first = module.kernel(
        "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_blockI%sfLi256ELb1ENS0_14EvictFirstLoadEEEvPKT_PT0_lll"
        % MANGLED[dt])
    second = module.kernel(
        "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_groupIf%sLi4ELi1EiLi0ENS0_9PlainLoadEEEvPKT_PT0_lli"
        % MANGLED[dt])
    return first, second


class Cooperative:
    """cuLaunchCooperativeKernel through ctypes (cupy's launch has no cooperative flag)."""

    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")

    def launch(self, kernel, grid, block, *args):
        import torch

        holders = []
        for a in args:
            if isinstance(a, torch.Tensor):
                holders.append(ctypes.c_uint64(a.data_ptr()))
            else:
                holders.append(ctypes.c_int32(int(a)))
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        status = self.cuda.cuLaunchCooperativeKernel(ctypes.c_void_p(kernel.function.kernel.ptr), grid, 1, 1, block, 1,
                                                     1, 0, stream, params)
        if status != 0:
            raise RuntimeError("cuLaunchCooperativeKernel: CUresult %d" % status)


def per_kernel_us(fn, calls=20):
    """Median device time of each kernel fn launches (flushed before each call), by name."""
    timer = lab.timer()
    for _ in range(3):
        fn()
    events = timer._trace(fn, calls, split=False)
    durations = {}
    for name, _, duration_ns in events:
        if name in timer.flush_names:
            continue
        durations.setdefault(name, []).append(duration_ns / 1000.0)
    return {name: statistics.median(d) for name, d in durations.items()}


def inductor(x, dt, label, rows_out):
    row, compiled = lab.time_compiled_sum(label, dt, lambda t: t.sum(), x)
    row["per_kernel_us"] = per_kernel_us(lambda: compiled(x))
    print("    torch.compile's kernels:", row["per_kernel_us"], flush=True)
    rows_out.append(row)


def time_with_kernels(label, dt, variant, run, y, expected, n):
    """lab.time_row_sum's row for run(y), with the median device time of each kernel it launches (printed)."""
    row = lab.time_row_sum(label, dt, variant, run, y, expected, n)
    row["per_kernel_us"] = per_kernel_us(lambda: run(y), calls=30)
    print("    kernels:", {key[:40]: round(v, 3) for key, v in row["per_kernel_us"].items()}, flush=True)
    return row


def whole_sum_inputs(partial_count):
    """Per size (64M, 256M) and dtype: n, its label, a random x of n elements, its float64 sum, y (one element) and
    partial_count float32 partials."""
    import torch

    for n in (1 << 26, 1 << 28):
        for dt in ["float16", "bfloat16", "float32"]:
            x = torch.randn(n, device="cuda").to(getattr(torch, dt))
            yield (n, LABELS[n], dt, x, x.double().sum().reshape(1), torch.empty(1, device="cuda", dtype=x.dtype),
                   torch.empty(partial_count, device="cuda", dtype=torch.float32))


SLICE = {dt: 256 * 4 * p for dt, p in PACK.items()}  # kThreads * kStreamUnroll packs: a streamed kernel's slice


LIBRARY_PREFIX = "_ZN4oprt3gpu17reduce_sum_detail"  # the mangled namespace of the library's reduce_sum kernels


def streamed_kernel(module, dt, out):
    """The library's sum_rows_streamed_by_block<T, Out, EvictFirstLoad>: Out "T" (row sums) or "float" (a whole
    sum's pieces)."""
    out_code = "S3_" if out == "T" and dt != "float32" else "f"
    return module.kernel(LIBRARY_PREFIX + "26sum_rows_streamed_by_blockI%s%sNS0_14EvictFirstLoadEEEvPKT_PT0_lll" % (
        MANGLED[dt], out_code))


def session14_kernels(module, dt):
    """The library's kernels as reduce_sum now launches them for a whole sum (kernel.cuh: launch_whole_row)."""
    m = MANGLED[dt]
    d = LIBRARY_PREFIX
    return {
        "grid": module.kernel(d + "21sum_whole_row_by_gridI%sNS0_14EvictFirstLoadEEEvPKT_PNS_13ComputeTypeOfIS%d_E4typeEi"
                              % (m, 4 if dt == "float32" else 5)),
        "pieces": streamed_kernel(module, dt, "float"),
        "rows": streamed_kernel(module, dt, "T"),
        "group": module.kernel(d + "17sum_rows_by_groupIf%sLi4ELi1EiLi0ENS0_9PlainLoadEEEvPKT_PT0_lli" % m),
        "block": {b: module.kernel(d + "17sum_rows_by_blockIf%sLi%dELb0ENS0_9PlainLoadEEEvPKT_PT0_lll" % (m, b))
                  for b in (64, 128, 256, 512, 1024)},
    }


def second_pass_threads(parts):
    """sum_rows_by_block's threads for a row of `parts` floats (kernel.cuh: row_block_threads)."""
    packs, threads = -(-parts // 4), 64
    while threads < 256 and threads * 8 < packs:
        threads *= 2
    return threads


def session14():
    """Whole sums of 64M (and 256M) elements: the library's session-10 tier against pieces of 1-8 slices."""
    import numpy as np
    import torch

    module = lab.load("reduce_scalar")
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []
    for n, label, dt, x, expected, y, partials in whole_sum_inputs(1 << 17):
        k = session14_kernels(module, dt)

        def add(variant, run):
            rows_out.append(lab.time_row_sum(label, dt, variant, run, y, expected, n))

        add("session 10: whole_row_by_grid x%d + group" % sm_count,
            lambda y: (k["grid"].launch(sm_count, 1024, x, partials, np.int32(n)),
                       k["group"].launch(1, 256, partials, y, 1, sm_count, np.int32(32))))
        lab.time_compiled_sum(label, dt, lambda t: t.sum(), x)
        for slices in (1, 2, 4, 8):
            piece = slices * SLICE[dt]
            parts = -(-n // piece)
            if parts > partials.numel():
                continue
            threads = second_pass_threads(parts)
            add("pieces of %d slice(s): %d x256 + block%d" % (slices, parts, threads),
                lambda y, piece=piece, parts=parts, threads=threads: (
                    k["pieces"].launch(parts, 256, x, partials, parts, piece, n),
                    k["block"][threads].launch(1, threads, partials, y, 1, parts, 1)))
            if slices == 1:  # the first pass alone: what the second pass adds
                row = lab.sum_row(label, dt, "pieces of 1 slice, first pass only", lab.time_us(
                    lambda: k["pieces"].launch(parts, 256, x, partials, parts, piece, n)))
                lab.print_row(row)
                rows_out.append(row)
        if n == 1 << 26:  # the same bytes as 8192 rows of 8192: the row sum's kernel alone (y: 8192 sums)
            sums = torch.empty(8192, device="cuda", dtype=x.dtype)
            row = lab.sum_row(label, dt, "reference: 8192 rows of 8192, row sums only",
                               lab.time_us(lambda: k["rows"].launch(8192, 256, x, sums, 8192, 8192, n)))
            lab.print_row(row)
            rows_out.append(row)
    lab.save("reduce_scalar-session14", rows_out, {"sm_count": sm_count})


S16_SLICES = [(64, 8), (128, 4), (128, 8), (256, 2), (256, 4), (256, 8), (512, 1), (512, 2), (512, 4), (1024, 1),
              (1024, 2)]  # (threads, packs per thread) of reduce_scalar.cu's s16_pass_* / s16_rows_*
S16_FINS = [(1024, 1), (1024, 2), (1024, 4), (512, 4), (512, 8), (256, 8), (256, 16)]  # s16_fin_*: float4s


def session16():
    """The first pass in slices of other shapes, a second pass that loads every partial at once, and the same
    slices as the row kernel of 8192 x 8192 and 4096 x 4096 row sums (rows of exactly one slice)."""
    import numpy as np
    import torch

    module = lab.load("reduce_scalar")
    rows_out = []

    def record(row):
        lab.print_row(row)
        rows_out.append(row)
        return row

    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        label, short = LABELS[n], SHORT[dt]
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum().reshape(1)
        y = torch.empty(1, device="cuda", dtype=x.dtype)
        partials = torch.empty(1 << 17, device="cuda", dtype=torch.float32)
        k = session14_kernels(module, dt)

        def add(variant, run):
            rows_out.append(lab.time_row_sum(label, dt, variant, run, y, expected, n))

        compiled_row, compiled = lab.time_compiled_sum(label, dt, lambda t: t.sum(), x)
        compiled_row["per_kernel_us"] = per_kernel_us(lambda: compiled(x))
        print("    torch.compile's kernels:", compiled_row["per_kernel_us"], flush=True)
        rows_out.append(compiled_row)
        parts, threads = n // SLICE[dt], second_pass_threads(n // SLICE[dt])

        def library_first():
            k["pieces"].launch(parts, 256, x, partials, parts, SLICE[dt], n)

        def library(y):
            library_first()
            k["block"][threads].launch(1, threads, partials, y, 1, parts, 1)

        add("library: pieces x%d + block%d" % (parts, threads), library)
        rows_out[-1]["per_kernel_us"] = per_kernel_us(lambda: library(y))
        print("    library's kernels:", rows_out[-1]["per_kernel_us"], flush=True)
        for b, u in S16_FINS:
            if b * u * 4 >= parts and b * (u // 2) * 4 < parts:  # the fewest loads per thread that cover them
                fin = module.kernel("s16_fin_b%d_u%d_%s" % (b, u, short))
                add("library pieces + fin b%d u%d" % (b, u),
                    lambda y, fin=fin, b=b: (library_first(), fin.launch(1, b, partials, y, np.int32(parts))))
        packs = n // PACK[dt]
        for b, u in S16_SLICES:
            slices = packs // (b * u)
            first = module.kernel("s16_pass_b%d_u%d_%s" % (b, u, short))
            record(lab.sum_row(label, dt, "slices b%d u%d x%d, first pass only" % (b, u, slices), lab.time_us(
                lambda first=first, b=b, slices=slices: first.launch(slices, b, x, partials, np.int32(packs)))))
            fins = [(fb, fu) for fb, fu in S16_FINS if fb == 1024 and fb * fu * 4 >= slices]
            if fins:
                fb, fu = fins[0]
                fin = module.kernel("s16_fin_b%d_u%d_%s" % (fb, fu, short))
                add("slices b%d u%d x%d + fin b%d u%d" % (b, u, slices, fb, fu),
                    lambda y, first=first, fin=fin, b=b, fb=fb, slices=slices: (
                        first.launch(slices, b, x, partials, np.int32(packs)),
                        fin.launch(1, fb, partials, y, np.int32(slices))))
    for rows, cols, dt in [(8192, 8192, "float16"), (8192, 8192, "bfloat16"), (4096, 4096, "float32"),
                           (8192, 8192, "float32")]:
        label, short = "%dx%d axis=-1" % (rows, cols), SHORT[dt]
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        y = torch.empty(rows, device="cuda", dtype=x.dtype)
        k = session14_kernels(module, dt)
        rows_out.append(lab.time_compiled_sum(label, dt, lambda t: t.sum(-1), x)[0])
        rows_out.append(lab.time_row_sum(label, dt, "library: streamed rows x%d" % rows, lambda y: k["rows"].launch(
            rows, 256, x, y, rows, cols, rows * cols), y, expected, cols))
        packs = cols // PACK[dt]
        for b, u in S16_SLICES:
            if b * u == packs:
                kernel = module.kernel("s16_rows_b%d_u%d_%s" % (b, u, short))
                rows_out.append(lab.time_row_sum(label, dt, "rows b%d u%d" % (b, u), lambda y, kernel=kernel, b=b: (
                    kernel.launch(rows, b, x, y, np.int32(rows * packs))), y, expected, cols))
    lab.save("reduce_scalar-session16", rows_out)


def session16b(rounds=3):
    """Run 3: the second pass's own device time (median per kernel) for the library's block of 256, 512 and 1024
    threads and the at-once kernels, and the row sums' candidates again, in rounds."""
    import numpy as np
    import torch

    module = lab.load("reduce_scalar")
    rows_out = []
    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        label, short = LABELS[n], SHORT[dt]
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        y = torch.empty(1, device="cuda", dtype=x.dtype)
        partials = torch.empty(1 << 17, device="cuda", dtype=torch.float32)
        k = session14_kernels(module, dt)
        parts = n // SLICE[dt]
        seconds = {"library block%d" % b: (lambda b=b: k["block"][b].launch(1, b, partials, y, 1, parts, 1))
                   for b in (256, 512, 1024)}
        for b, u in S16_FINS:
            if b * u * 4 >= parts:
                fin = module.kernel("s16_fin_b%d_u%d_%s" % (b, u, short))
                seconds["fin b%d u%d" % (b, u)] = lambda fin=fin, b=b: fin.launch(1, b, partials, y, np.int32(parts))
        expected = float(x.double().sum())
        for r in range(rounds):
            for name, second in seconds.items():
                def both(second=second):
                    k["pieces"].launch(parts, 256, x, partials, parts, SLICE[dt], n)
                    second()
                both()
                torch.cuda.synchronize()
                err = abs(float(y.double()) - expected) / (abs(expected) + n ** 0.5)
                per = per_kernel_us(both, calls=30)
                second_us = [v for key, v in per.items() if "streamed" not in key]
                row = {"shape": label, "dtype": dt, "variant": "second pass: " + name, "round": r,
                       "per_kernel_us": per, "second_us": second_us[0] if second_us else None, "rel_err": err}
                print("%s %-9s round %d %-24s second pass %.3f us (first %.3f) err %.1e" % (
                    label, dt, r, name, row["second_us"], max(per.values()), err), flush=True)
                rows_out.append(row)
    for rows, cols, dt, shapes in [(8192, 8192, "float32", [(512, 4), (1024, 2)]),
                                   (8192, 8192, "float16", [(512, 2)]), (4096, 4096, "float32", [(512, 2)])]:
        label, short = "%dx%d axis=-1" % (rows, cols), SHORT[dt]
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        y = torch.empty(rows, device="cuda", dtype=x.dtype)
        k = session14_kernels(module, dt)
        packs = cols // PACK[dt]
        for r in range(rounds):
            rows_out.append(lab.time_row_sum(label, dt, "library: streamed rows (round %d)" % r, lambda y: k[
                "rows"].launch(rows, 256, x, y, rows, cols, rows * cols), y, expected, cols))
            for b, u in shapes:
                kernel = module.kernel("s16_rows_b%d_u%d_%s" % (b, u, short))
                rows_out.append(lab.time_row_sum(label, dt, "rows b%d u%d (round %d)" % (b, u, r), lambda y, kernel=kernel, b=b: (
                    kernel.launch(rows, b, x, y, np.int32(rows * packs))), y, expected, cols))
    lab.save("reduce_scalar-session16b", rows_out)


S16C_CLUSTERS = [(256, 4, 2), (256, 4, 4), (256, 4, 8), (1024, 2, 2), (1024, 2, 4)]  # s16_cluster_b*_u*_c*


def session16c(rounds=3):
    """Fewer partials for the at-once second pass: the library's pieces (one 16 KB slice a block) and its second
    pass, against wider slices (1024 x 2 packs) and clusters of 2-8 blocks adding their slices' sums in block 0's
    mailbox, each with the at-once kernel that covers its partials; per-kernel medians and totals, in rounds."""
    import numpy as np
    import torch

    module = lab.load("reduce_scalar")
    rows_out = []
    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        label, short = LABELS[n], SHORT[dt]
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum().reshape(1)
        y = torch.empty(1, device="cuda", dtype=x.dtype)
        partials = torch.empty(1 << 17, device="cuda", dtype=torch.float32)
        k = session14_kernels(module, dt)
        packs = n // PACK[dt]

        def fin_for(parts):
            """The at-once kernel of 1024 threads with the fewest float4s a thread that covers `parts`."""
            u = next(u for u in (1, 2, 4) if 1024 * u * 4 >= parts)
            return u, module.kernel("s16_fin_b1024_u%d_%s" % (u, short))

        candidates = {}
        parts = n // SLICE[dt]
        u, fin = fin_for(parts)
        candidates["library pieces x%d + fin b1024 u%d" % (parts, u)] = lambda y, parts=parts, fin=fin: (
            k["pieces"].launch(parts, 256, x, partials, parts, SLICE[dt], n), fin.launch(1, 1024, partials, y, np.int32(parts)))
        wide = module.kernel("s16_pass_b1024_u2_%s" % short)
        parts_wide = packs // 2048
        u, fin = fin_for(parts_wide)
        candidates["slices b1024 u2 x%d + fin b1024 u%d" % (parts_wide, u)] = lambda y, p=parts_wide, fin=fin: (
            wide.launch(p, 1024, x, partials, np.int32(packs)), fin.launch(1, 1024, partials, y, np.int32(p)))
        for b, per, c in S16C_CLUSTERS:
            blocks = packs // (b * per)
            kernel = module.kernel("s16_cluster_b%d_u%d_c%d_%s" % (b, per, c, short))
            u, fin = fin_for(blocks // c)
            candidates["clusters of %d, b%d u%d x%d + fin b1024 u%d" % (c, b, per, blocks, u)] = (
                lambda y, kernel=kernel, b=b, blocks=blocks, c=c, fin=fin: (
                    kernel.launch(blocks, b, x, partials, np.int32(packs)),
                    fin.launch(1, 1024, partials, y, np.int32(blocks // c))))
        for r in range(rounds):
            for name, run in candidates.items():
                rows_out.append(time_with_kernels(label, dt, "%s (round %d)" % (name, r), run, y, expected, n))
    lab.save("reduce_scalar-session16c", rows_out)


def main():
    import cupy
    import torch

    module = lab.load("reduce_scalar")
    coop = Cooperative()
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []

    def occupancy(kernel, block):
        return cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.function.kernel.ptr, block, 0)

    for n, label, dt, x, expected, y, partials in whole_sum_inputs(1 << 16):
        counter = torch.zeros(1, device="cuda", dtype=torch.int32)
        fin = module.kernel("fin_%s" % SHORT[dt])

        def add(variant, run):
            row = lab.time_row_sum(label, dt, variant, run, y, expected, n)
            rows_out.append(row)
            return row

        first, second = library_kernels(module, dt)
        wave = occupancy(first, 256) * sm_count
        add("library: split %d + second pass" % wave,
            lambda y: (first.launch((wave, 1), 256, x, partials, 1, n, wave),
                       second.launch(1, 256, partials, y, 1, wave, 32)))
        inductor(x, dt, label, rows_out)
        variants = VARIANTS if n == 1 << 26 else [("il", 256, 8, 3), ("il", 512, 4, 2), ("il", 1024, 4, 1)]
        for layout, block, unroll, min_blocks in variants:
            name = "%s_b%d_u%d_m%d_%s" % (layout, block, unroll, min_blocks, SHORT[dt])
            pass_kernel = module.kernel("pass_" + name)
            coop_kernel = module.kernel("coop_" + name)
            ticket_kernel = module.kernel("ticket_" + name)
            resident = occupancy(pass_kernel, block)
            grids = sorted({sm_count * resident, sm_count * max(1, resident // 2), 2 * sm_count * resident})
            for grid in grids:
                add("%s x%d + fin" % (name, grid),
                    lambda y, grid=grid: (pass_kernel.launch(grid, block, x, partials, n),
                                          fin.launch(1, 256, partials, y, grid)))
            grid = sm_count * min(resident, occupancy(coop_kernel, block))
            add("coop %s x%d" % (name, grid), lambda y, grid=grid: coop.launch(coop_kernel, grid, block, x, partials, y, n))
            grid = sm_count * min(resident, occupancy(ticket_kernel, block))
            add("ticket %s x%d" % (name, grid),
                lambda y, grid=grid: ticket_kernel.launch(grid, block, x, partials, counter, y, n))

            def memset_ticket(y, grid=grid):
                cupy.cuda.runtime.memsetAsync(counter.data_ptr(), 0, 4, torch.cuda.current_stream().cuda_stream)
                ticket_kernel.launch(grid, block, x, partials, counter, y, n)

            add("memset+ticket %s x%d" % (name, grid), memset_ticket)
    lab.save("reduce_scalar", rows_out, {"sm_count": sm_count})


if __name__ == "__main__":
    import sys

    if "--session16c" in sys.argv:
        session16c()
    elif "--session16b" in sys.argv:
        session16b()
    elif "--session16" in sys.argv:
        session16()
    elif "--session14" in sys.argv:
        session14()
    else:
        main()
