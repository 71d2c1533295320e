"""Lab reduce_slices: a block per slice of B x U x E values, loaded at once (reduce_slices.cu says why), for the
row sums we trail torch.compile on (8192 x 8192 half, 4096 x 4096 and 8192 x 8192 f32) and for the first pass of
the 64M whole sums (float partials, then the library's second pass), against the library's streamed kernel and
torch.compile in the same run, in rounds. Whole sums also report each kernel's own median.

    python3 reduce_slices.py [whole] [rows] [placement] [interleaved]   # on the GPU machine, after build.sh reduce_slices.cu
"""
import numpy as np

import lab
from reduce_scalar import (LABELS, LIBRARY_PREFIX, MANGLED, PACK, SHORT, per_kernel_us, streamed_kernel,
                           time_with_kernels)

HALF_SLICES = [(512, 4, 4), (256, 4, 8), (512, 2, 8), (1024, 2, 4), (256, 8, 4), (128, 8, 8), (1024, 4, 2)]
F32_SLICES = {4096: [(512, 2, 4), (256, 4, 4), (1024, 1, 4), (512, 4, 2), (1024, 2, 2), (128, 8, 4)],
              8192: [(512, 4, 4), (1024, 2, 4), (256, 8, 4), (1024, 4, 2)]}


# Whole sums only: slices longer than a row we time, for fewer partials (64M: 4096 or 2048).
WIDE_SLICES = {"half": {16384: [(512, 4, 8), (1024, 2, 8)], 32768: [(1024, 4, 8)]},
               "float32": {16384: [(1024, 4, 4)]}}


# Whole sums in one kernel, the last block adding the partials (reduce_slices.cu: slice_sum_ticket).
TICKET_SLICES = {"float16": [(256, 4, 8), (512, 4, 8), (1024, 4, 8)], "bfloat16": [(256, 4, 8), (1024, 4, 8)],
                 "float32": [(256, 4, 4), (1024, 4, 4)]}


# First passes of 64 KB in flight per SM (run 1's fastest) followed by second passes in smaller blocks
# (partials_sum: B threads x U float4s, exactly the partials).
LEAN_FIRST = {"float16": [(1024, 2, 8), (256, 4, 8)], "bfloat16": [(1024, 2, 8)], "float32": [(1024, 2, 4)]}
LEAN_SECOND = {4096: [(128, 8), (256, 4), (512, 2)], 8192: [(256, 8), (512, 4)]}


def slices_for(dt, length):
    wide = WIDE_SLICES["half" if dt != "float32" else "float32"]
    if length in wide:
        return wide[length]
    return HALF_SLICES if dt != "float32" else F32_SLICES[length]


def at_once(module, dt, parts):
    """Session 17's second pass for `parts` float partials: sum_row_at_once<float, T, 1024 threads, packs a thread>
    (the library now sizes that block to the partials: kernel.cuh, launch_partials_sum)."""
    packs = next(u for u in (1, 2, 4) if 1024 * u * 4 >= parts)
    name = LIBRARY_PREFIX + "15sum_row_at_onceIf%sLi1024ELi%dENS0_9PlainLoadEEEvPKT_PT0_i" % (MANGLED[dt], packs)
    return module.kernel(name), packs


def row_candidates(module, dt, x, rows, cols, slices=None):
    """The library's streamed kernel and the slice kernels (b, u, e, combine: "r" block_reduce, "w" warp 0) on the
    rows of x; by default every slice of cols values with both combines."""
    short = SHORT[dt]
    lib = streamed_kernel(module, dt, "T")
    out = {"library: streamed rows": lambda y: lib.launch(rows, 256, x, y, rows, cols, rows * cols)}
    for b, u, e, r in slices or [(b, u, e, r) for b, u, e in slices_for(dt, cols) for r in "rw"]:
        assert b * u * e == cols
        kernel = module.kernel("slice_%d_%d_%d_%s_rows_%s" % (b, u, e, r, short))
        out["slice %d x %d x %d, %s" % (b, u, e, "warp 0" if r == "w" else "block_reduce")] = (
            lambda y, kernel=kernel, b=b: kernel.launch(rows, b, x, y))
    return out


def whole_candidates(module, dt, x, partials, n):
    short = SHORT[dt]
    out = {}
    slice_values = 256 * 4 * PACK[dt]  # the library's pieces: a streamed kernel's slice
    parts = n // slice_values
    lib, (fin, packs) = streamed_kernel(module, dt, "float"), at_once(module, dt, parts)
    out["library: pieces x%d + at once u%d" % (parts, packs)] = lambda y, parts=parts, fin=fin: (
        lib.launch(parts, 256, x, partials, parts, slice_values, n), fin.launch(1, 1024, partials, y, np.int32(parts)))
    for length in ([8192, 16384, 32768] if dt != "float32" else [4096, 8192, 16384]):
        for b, u, e in slices_for(dt, length):
            parts = n // length
            fin, packs = at_once(module, dt, parts)
            kernel = module.kernel("slice_%d_%d_%d_w_part_%s" % (b, u, e, short))  # warp 0 combines (as Triton)
            out["slice %d x %d x %d, x%d + at once u%d" % (b, u, e, parts, packs)] = (
                lambda y, kernel=kernel, b=b, parts=parts, fin=fin: (
                    kernel.launch(parts, b, x, partials), fin.launch(1, 1024, partials, y, np.int32(parts))))
    for b, u, e in LEAN_FIRST[dt]:
        first, parts = module.kernel("slice_%d_%d_%d_w_part_%s" % (b, u, e, short)), n // (b * u * e)
        for fb, fu in LEAN_SECOND[parts]:
            fin = module.kernel("partials_%d_%d_%s" % (fb, fu, short))
            out["slice %d x %d x %d, x%d + partials %d x %d" % (b, u, e, parts, fb, fu)] = (
                lambda y, first=first, b=b, parts=parts, fin=fin, fb=fb: (
                    first.launch(parts, b, x, partials), fin.launch(1, fb, partials, y)))
    ticket = partials.new_zeros(1)  # an unsigned counter to the kernel: zero bits either way
    for b, u, e in TICKET_SLICES[dt]:
        kernel, parts = module.kernel("ticket_%d_%d_%d_%s" % (b, u, e, short)), n // (b * u * e)
        out["ticket %d x %d x %d, x%d in one kernel" % (b, u, e, parts)] = (
            lambda y, kernel=kernel, b=b, parts=parts: kernel.launch(parts, b, x, partials, ticket, y))
    return out


def time_rows(module, rounds, rows_out):
    import torch

    for rows, cols, dt in [(8192, 8192, "float16"), (8192, 8192, "bfloat16"), (4096, 4096, "float32"),
                           (8192, 8192, "float32")]:
        label = "%dx%d axis=-1" % (rows, cols)
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        y = torch.empty(rows, device="cuda", dtype=x.dtype)
        candidates = row_candidates(module, dt, x, rows, cols)
        for r in range(rounds):
            row, _ = lab.time_compiled_sum(label, dt, lambda t: t.sum(-1), x)
            row["round"] = r
            rows_out.append(row)
            for name, run in candidates.items():
                row = lab.time_row_sum(label, dt, "%s (round %d)" % (name, r), run, y, expected, cols)
                row["round"] = r
                rows_out.append(row)


def time_whole(module, rounds, rows_out):
    import torch

    n = 1 << 26
    for dt in ["float16", "bfloat16", "float32"]:
        label = LABELS[n]
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum().reshape(1)
        y = torch.empty(1, device="cuda", dtype=x.dtype)
        partials = torch.empty(1 << 15, device="cuda", dtype=torch.float32)
        candidates = whole_candidates(module, dt, x, partials, n)
        for r in range(rounds):
            row, compiled = lab.time_compiled_sum(label, dt, lambda t: t.sum(), x)
            row.update({"round": r, "per_kernel_us": per_kernel_us(lambda: compiled(x), calls=30)})
            rows_out.append(row)
            for name, run in candidates.items():
                row = time_with_kernels(label, dt, "%s (round %d)" % (name, r), run, y, expected, n)
                row["round"] = r
                rows_out.append(row)


# Placement: the rows where the lab and run_ops disagree (f32 8192 x 8192: the lab timed torch.compile and the
# streamed kernel at 67.4-67.8 us, run_ops at 64-65), with x allocated behind pads of these sizes.
PLACEMENT_PADS_MB = [0, 2, 32, 256, 1024, 4096]
PLACEMENT_SLICES = {"float32": [(1024, 2, 4, "r"), (512, 4, 4, "w")], "float16": [(512, 2, 8, "r"), (512, 4, 4, "w")]}


def time_placement(module, rounds, rows_out):
    import torch

    for rows, cols, dt in [(8192, 8192, "float32"), (8192, 8192, "float16")]:
        label = "%dx%d axis=-1" % (rows, cols)
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
        for pad_mb in PLACEMENT_PADS_MB:
            pad = torch.empty(pad_mb << 20, device="cuda", dtype=torch.uint8) if pad_mb else None
            x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
            expected, y = x.double().sum(-1), torch.empty(rows, device="cuda", dtype=x.dtype)
            compiled(x)
            candidates = row_candidates(module, dt, x, rows, cols, PLACEMENT_SLICES[dt])
            where = "pad %d MB, x at 0x%x" % (pad_mb, x.data_ptr())
            for r in range(rounds):
                row = lab.sum_row(label, dt, "torch.compile, %s (round %d)" % (where, r),
                                  lab.time_us(lambda: compiled(x)))
                lab.print_row(row)
                rows_out.append(dict(row, pad_mb=pad_mb, round=r))
                for name, run in candidates.items():
                    row = lab.time_row_sum(label, dt, "%s, %s (round %d)" % (name, where, r), run, y, expected, cols)
                    rows_out.append(dict(row, pad_mb=pad_mb, round=r))
            del pad, x, expected, y
            torch.cuda.empty_cache()


# Interleaved: the placement section's rows timed as run_ops times a row (DeviceTimer.measure_many: the candidates'
# calls in shuffled rounds, a flush before each), to learn whether the lab's block-by-block timing is what puts
# torch.compile and the streamed kernel 2-3 us above run_ops's numbers on f32 8192 x 8192 (session 19's run 3).
def time_interleaved(module, rounds, rows_out):
    import torch

    for rows, cols, dt in [(8192, 8192, "float32"), (8192, 8192, "float16"), (4096, 4096, "float32")]:
        label = "%dx%d axis=-1" % (rows, cols)
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        compiled(x)
        slices = {8192: PLACEMENT_SLICES[dt], 4096: [(1024, 1, 4, "r"), (512, 2, 4, "w")]}[cols]
        outs = {}
        fns = {"torch.compile": lambda: compiled(x)}
        for name, run in row_candidates(module, dt, x, rows, cols, slices).items():
            y = outs[name] = torch.empty(rows, device="cuda", dtype=x.dtype)
            fns[name] = lambda run=run, y=y: run(y)
        lab.time_sums_interleaved(rows_out, label, dt, fns, outs, expected, cols, rounds,
                                  variant="%s, interleaved (round %d)")


def main(sections=("whole", "rows"), rounds=3):
    """The whole sums first (their wider slices are this lab's newest candidates); saved after each section, so a
    run cut short by its time limit keeps what finished."""
    module = lab.load("reduce_slices")
    rows_out = []
    for section in sections:
        {"whole": time_whole, "rows": time_rows, "placement": time_placement,
         "interleaved": time_interleaved}[section](module, rounds, rows_out)
        lab.save("reduce_slices", rows_out)


if __name__ == "__main__":
    import sys

    main(tuple(sys.argv[1:]) or ("whole", "rows"))
