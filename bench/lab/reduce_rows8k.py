"""Lab reduce_rows8k: rows of 8 KB (half 4096 x 4096, f32 4096 x 2048) in the library's own kernels
(reduce_rows8k.cu), timed interleaved with torch.compile as run_ops times a row (lab.time_interleaved: each round
one DeviceTimer.measure_many, a flush before every call), with each candidate's paired ratio to torch.compile.

    python3 reduce_rows8k.py [rounds]      # on the GPU machine, after bench/lab/build.sh reduce_rows8k.cu

Candidates: "row block B" is sum_rows_by_block in B threads a row (today's path: B = 64, evict-first loads);
"slice B x N, M/SM" is sum_slices with a row a slice of B threads x N 16-byte loads, M blocks asked per SM.
"""
import sys

import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
OUT_MANGLED = {"float16": "S3_", "bfloat16": "S3_", "float32": "f"}
LOADS = {"evict-first": "14EvictFirstLoad", "plain": "9PlainLoad"}
ROW_BLOCKS = [64, 128]
SLICES = [(512, 1, 4), (256, 2, 8), (256, 2, 4), (128, 4, 16), (128, 4, 8), (64, 8, 16), (64, 8, 8)]
SHAPES = [(4096, 4096, "float16"), (4096, 4096, "bfloat16"), (4096, 2048, "float32")]


def row_block_kernel(dt, threads, mangled_load):
    """The mangled name of sum_rows_by_block<T, T, threads, false, Load> (reduce_rows*.cu instantiate it)."""
    return ("_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_blockI%s%sLi%dELb0ENS0_%sEEEvPKT_PT0_lll"
            % (MANGLED[dt], OUT_MANGLED[dt], threads, mangled_load))


def slice_kernel(dt, threads, loads, min_blocks, mangled_load):
    """The mangled name of sum_slices<T, Load, threads, loads, min_blocks, T>."""
    return ("_ZN4oprt3gpu17reduce_sum_detail10sum_slicesI%sNS0_%sELi%dELi%dELi%dE%sEEvPKT_PT4_l"
            % (MANGLED[dt], mangled_load, threads, loads, min_blocks, OUT_MANGLED[dt]))


def candidates(module, dt, x, rows, cols, row_blocks=ROW_BLOCKS, slices=SLICES, loads=LOADS):
    """name -> a call of one candidate on x, and name -> the sums it writes (its own output each)."""
    import torch

    fns, outs = {}, {}
    for load, mangled_load in loads.items():
        for b in row_blocks:
            name = "row block %d, %s" % (b, load)
            k = module.kernel(row_block_kernel(dt, b, mangled_load))
            y = outs[name] = torch.empty(rows, device="cuda", dtype=x.dtype)
            fns[name] = lambda k=k, b=b, y=y: k.launch(rows, b, x, y, rows, cols, 1)
        for b, n, m in slices:
            name = "slice %d x %d, %d/SM, %s" % (b, n, m, load)
            k = module.kernel(slice_kernel(dt, b, n, m, mangled_load))
            y = outs[name] = torch.empty(rows, device="cuda", dtype=x.dtype)
            fns[name] = lambda k=k, b=b, y=y: k.launch(rows, b, x, y, rows * cols)
    return fns, outs


def main(rounds=3, name="reduce_rows8k", shapes=SHAPES, make_candidates=candidates, **shape_of_candidates):
    """Each shape's candidates (make_candidates(module, dtype, x, rows, cols, **shape_of_candidates)) and
    torch.compile, interleaved; saved as the lab `name` (its cubin, its JSON)."""
    import torch

    module = lab.load(name)
    rows_out = []
    for rows, cols, dt in shapes:
        label = "%dx%d axis=-1" % (rows, cols)
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        fns, outs = make_candidates(module, dt, x, rows, cols, **shape_of_candidates)
        compiled = lab.compile_like_run_ops(lambda t: t.sum(-1))
        fns["torch.compile"] = lambda: compiled(x)
        lab.check_sums(label, dt, fns, outs, x.double().sum(-1), cols)  # every candidate before any is timed
        rows_out += lab.time_interleaved(fns, rounds, {"shape": label, "dtype": dt},
                                         x.numel() * x.element_size() + rows * x.element_size(), "%s %s" % (label, dt))
        lab.save(name, rows_out)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
