"""Lab reduce_persist: 64M whole sums with a first pass of one wave of long-lived blocks, each summing an equal
contiguous share two steps at a time (reduce_persist.cu says why), then one 128-thread block over their partials,
against the library's pair (sum_slices, 1024 x 2 packs a block, then sum_row_at_once) and torch.compile, all
interleaved as run_ops times a row (measure_many), in rounds; then each candidate's own kernels' medians.
Session 27 (`bench/results/h200-session27/`): blocks streaming their own regions lost 2-6 us (run 1), interleaved
steps (the grid reading one window at a time, as the slices do) 2 us (run 2); graded slices lost in proportion to
the share of small slices (run 3; f32 stopped there on a second pass too large, skipped since).

    python3 reduce_persist.py [wave] [graded] [rounds]   # on the GPU machine, after build.sh reduce_persist.cu

Section graded: the library's slices with the last 1/32 to 1/2 of the tensor in smaller slices (a shorter tail).
"""
import lab
from reduce_scalar import LABELS, LIBRARY_PREFIX, MANGLED, PACK, SHORT, per_kernel_us

# (threads, packs a thread per step, blocks per SM): 16-64 KB to 64-128 KB in flight per SM.
FIRST_PASSES = [(1024, 2, 1), (1024, 4, 1), (512, 2, 2), (512, 2, 3), (512, 4, 1), (512, 4, 2), (256, 4, 4),
                (256, 4, 6), (256, 8, 2), (256, 8, 4)]
LAYOUTS = {"first": "own regions", "inter": "interleaved"}  # kernel prefix: a block's steps
SECOND_THREADS = 128  # second_128_<dtype>: up to 8 partials a thread


def at_once(module, dt, parts):
    """The library's second pass for `parts` float partials: sum_row_at_once<float, T, B, 4> in the smallest B of
    128-1024 whose 4 packs a thread hold them (launch_partials_sum), and B."""
    threads = next(b for b in (128, 256, 512, 1024) if b * 4 * 4 >= parts)
    return module.kernel(LIBRARY_PREFIX + "15sum_row_at_onceIf%sLi%dELi4ENS0_9PlainLoadEEEvPKT_PT0_i"
                         % (MANGLED[dt], threads)), threads


def library_pair(module, dt, x, partials, y, n):
    """The library's large whole sum as launch_whole_row launches it: sum_slices<T, EvictFirstLoad, 1024, 2>,
    a block per 2048 packs, then at_once."""
    import numpy as np

    slices = n // (1024 * 2 * PACK[dt])
    first = module.kernel(LIBRARY_PREFIX + "10sum_slicesI%sNS0_14EvictFirstLoadELi1024ELi2ELi1EfEEvPKT_PT4_l"
                          % MANGLED[dt])
    second, threads = at_once(module, dt, slices)
    name = "library: slices x%d + at once %d" % (slices, threads)
    return name, lambda: (first.launch(slices, 1024, x, partials, n), second.launch(1, threads, partials, y,
                                                                                     np.int32(slices)))


def wave_candidates(module, dt, x, packs, sms):
    """Section wave: FIRST_PASSES in both layouts, then second_128. name -> (call, its output)."""
    import numpy as np
    import torch

    short = SHORT[dt]
    second = module.kernel("second_%d_%s" % (SECOND_THREADS, short))
    out = {}
    for (layout, what), (b, d, per_sm) in [(lay, shape) for lay in LAYOUTS.items() for shape in FIRST_PASSES]:
        blocks = sms * per_sm
        first = module.kernel("%s_%d_%d_%s" % (layout, b, d, short))
        partials = torch.empty(blocks, device="cuda", dtype=torch.float32)
        y = torch.empty(1, device="cuda", dtype=x.dtype)
        out["%s %d x %d packs, %d a SM (x%d)" % (what, b, d, per_sm, blocks)] = (
            lambda first=first, b=b, blocks=blocks, partials=partials, y=y: (
                first.launch(blocks, b, x, partials, packs),
                second.launch(1, SECOND_THREADS, partials, y, np.int32(blocks))), y)
    return out


# Section graded: the last 1/32 to 1/2 of the packs in slices of 1024 or 512 packs (16 or 8 KB of 16-byte packs).
GRADED_TAILS = [32, 16, 8, 4, 2]
GRADED_SMALL = [1024, 512]


def graded_candidates(module, dt, x, packs, sms):
    import numpy as np
    import torch

    out = {}
    for small in GRADED_SMALL:
        first = module.kernel("graded_%d_%s" % (small, SHORT[dt]))
        for tail in GRADED_TAILS:
            tail_packs = packs // tail
            big, smalls = (packs - tail_packs) // 2048, tail_packs // small
            assert big * 2048 + smalls * small == packs
            parts = big + smalls
            if parts > 1024 * 4 * 4:  # more than the library's at-once second pass takes
                continue
            second, threads = at_once(module, dt, parts)
            partials = torch.empty(parts, device="cuda", dtype=torch.float32)
            y = torch.empty(1, device="cuda", dtype=x.dtype)
            out["graded: last 1/%d in %d-pack slices (x%d + at once %d)" % (tail, small, parts, threads)] = (
                lambda first=first, parts=parts, big=big, partials=partials, y=y, second=second, threads=threads: (
                    first.launch(parts, 1024, x, partials, big),
                    second.launch(1, threads, partials, y, np.int32(parts))), y)
    return out


def main(sections=("wave",), rounds=3):
    import torch

    module = lab.load("reduce_persist")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []
    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        label = LABELS[n]
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum().reshape(1)
        packs = n // PACK[dt]
        fns, outs = {}, {}
        compiled = torch.compile(lambda t: t.sum(), dynamic=False, fullgraph=True)
        compiled(x)
        fns["torch.compile"] = lambda compiled=compiled: compiled(x)
        lib_partials = torch.empty(1 << 14, device="cuda", dtype=torch.float32)
        outs_lib = torch.empty(1, device="cuda", dtype=x.dtype)
        name, fn = library_pair(module, dt, x, lib_partials, outs_lib, n)
        fns[name], outs[name] = fn, outs_lib
        for section in sections:
            for name, (fn, y) in {"wave": wave_candidates, "graded": graded_candidates}[section](
                    module, dt, x, packs, sms).items():
                fns[name], outs[name] = fn, y
        lab.time_sums_interleaved(rows_out, label, dt, fns, outs, expected, n, rounds)
        for name, fn in fns.items():
            kernels = per_kernel_us(fn, calls=30)
            rows_out.append({"shape": label, "dtype": dt, "variant": name, "per_kernel_us": kernels})
            print("    %-44s kernels:" % name, [round(v, 3) for v in kernels.values()], flush=True)
        lab.save("reduce_persist", rows_out)


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    main(tuple(a for a in args if not a.isdigit()) or ("wave",),
         next((int(a) for a in args if a.isdigit()), 3))
