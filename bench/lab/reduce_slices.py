"""Lab reduce_slices: a block per slice of B x U x E values, loaded at once (reduce_slices.cu says why), for the
row sums we trail torch.compile on (8192 x 8192 half, 4096 x 4096 and 8192 x 8192 f32) and for the first pass of
the 64M whole sums (float partials, then the library's second pass), against the library's streamed kernel and
torch.compile in the same run, in rounds. Whole sums also report each kernel's own median.

    python3 reduce_slices.py      # on the GPU machine, after bench/lab/build.sh reduce_slices.cu
"""
import numpy as np

import lab
from reduce_scalar import (LABELS, LIBRARY_PREFIX, MANGLED, PACK, SHORT, per_kernel_us, streamed_kernel,
                           time_with_kernels)

HALF_SLICES = [(512, 4, 4), (256, 4, 8), (512, 2, 8), (1024, 2, 4), (256, 8, 4), (128, 8, 8), (1024, 4, 2)]
F32_SLICES = {4096: [(512, 2, 4), (256, 4, 4), (1024, 1, 4), (512, 4, 2), (1024, 2, 2), (128, 8, 4)],
              8192: [(512, 4, 4), (1024, 2, 4), (256, 8, 4), (1024, 4, 2)]}


def slices_for(dt, length):
    return HALF_SLICES if dt != "float32" else F32_SLICES[length]


def at_once(module, dt, parts):
    """The library's second pass for `parts` float partials: sum_row_at_once<float, T, packs a thread>."""
    packs = next(u for u in (1, 2, 4) if 1024 * u * 4 >= parts)
    name = LIBRARY_PREFIX + "15sum_row_at_onceIf%sLi%dENS0_9PlainLoadEEEvPKT_PT0_i" % (MANGLED[dt], packs)
    return module.kernel(name), packs


def row_candidates(module, dt, x, rows, cols):
    short = SHORT[dt]
    lib = streamed_kernel(module, dt, "T")
    out = {"library: streamed rows": lambda y: lib.launch(rows, 256, x, y, rows, cols, rows * cols)}
    for b, u, e in slices_for(dt, cols):
        assert b * u * e == cols
        for r in "rw":
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
    for length in ([8192] if dt != "float32" else [4096, 8192]):
        for b, u, e in slices_for(dt, length):
            parts = n // length
            fin, packs = at_once(module, dt, parts)
            for r in "rw":
                kernel = module.kernel("slice_%d_%d_%d_%s_part_%s" % (b, u, e, r, short))
                out["slice %d x %d x %d, %s, x%d + at once u%d" % (
                    b, u, e, "warp 0" if r == "w" else "block_reduce", parts, packs)] = (
                    lambda y, kernel=kernel, b=b, parts=parts, fin=fin: (
                        kernel.launch(parts, b, x, partials), fin.launch(1, 1024, partials, y, np.int32(parts))))
    return out


def main(rounds=3):
    import torch

    module = lab.load("reduce_slices")
    rows_out = []
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
    lab.save("reduce_slices", rows_out)


if __name__ == "__main__":
    main()
