"""Lab reduce_tile: half-type row sums of 256 and 512 columns in "tile" kernels (reduce_tile.cu: a group of
kLanes lanes per kRows rows, kPacks packs of each per lane, no loop) next to the library's streamed group kernel,
launched as launch_short_rows_streamed launches it, and the best peer recorded.

    python3 reduce_tile.py      # on the GPU machine, after bench/lab/build.sh reduce_tile.cu
"""
import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16"}
SHORT = {"float16": "f16", "bfloat16": "bf16"}
PACK = 8
TILES = [  # (lanes, packs, rows per group, block) as compiled in reduce_tile.cu
    (8, 4, 1, 64), (8, 4, 1, 128), (8, 4, 2, 64), (16, 2, 2, 32), (16, 2, 2, 64), (32, 1, 4, 32), (32, 1, 4, 64),
    (32, 1, 2, 32), (4, 8, 1, 64), (16, 4, 1, 64), (16, 4, 1, 128), (16, 4, 2, 64), (32, 2, 2, 32), (32, 2, 2, 64),
    (32, 2, 1, 32), (8, 8, 1, 64), (32, 2, 4, 32),
]


def main():
    import torch

    module = lab.load("reduce_tile")
    rows_out = []
    for rows, cols in ((16384, 256), (8192, 512)):
        label = "%dx%d axis=-1" % (rows, cols)
        packs = cols // PACK
        for dt in ("float16", "bfloat16"):
            x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
            expected = x.double().sum(-1)
            y = torch.empty(rows, device="cuda", dtype=x.dtype)
            width = min(32, 1 << max(0, (-(-packs // 4) - 1).bit_length()))
            library = module.kernel("_ZN4oprt3gpu17reduce_sum_detail26sum_rows_streamed_by_groupI%sLi%dENS0_14"
                                    "EvictFirstLoadELi64EEEvPKT_PS5_lli" % (MANGLED[dt], width))
            tasks = -(-rows // (64 // width))
            rows_out.append(lab.time_compiled_sum(label, dt, lambda t: t.sum(-1), x)[0])
            for _ in range(2):  # twice: the spread between two timings of one kernel in this run
                row = lab.time_row_sum(label, dt, "library: streamed group W%d x %d blocks of 64" % (width, tasks),
                                       lambda y: library.launch(tasks, 64, x, y, rows, cols, 1), y, expected, cols)
                rows_out.append(row)
            for lanes, per_lane, rows_per_group, block in TILES:
                if lanes * per_lane != packs:
                    continue
                kernel = module.kernel("tile_l%d_k%d_r%d_b%d_%s" % (lanes, per_lane, rows_per_group, block, SHORT[dt]))
                blocks = rows // (block // lanes * rows_per_group)
                variant = "tile lanes %d packs %d rows %d block %d (%d blocks)" % (lanes, per_lane, rows_per_group,
                                                                                 block, blocks)
                rows_out.append(lab.time_row_sum(label, dt, variant, lambda y, k=kernel, b=blocks, t=block:
                                                 k.launch(b, t, x, y, cols), y, expected, cols))
    lab.save("reduce_tile", rows_out)


if __name__ == "__main__":
    main()
