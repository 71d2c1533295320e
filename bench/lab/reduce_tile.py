"""Lab reduce_tile: half-type row sums of 256 and 512 columns in "tile" kernels (reduce_tile.cu: a group of
kLanes lanes per kRows rows, kPacks packs of each per lane, no loop) next to the library's tile kernel
(sum_rows_in_tiles, launched as launch_rows_in_tiles launches it), timed interleaved with torch.compile by
reduce_rows8k.py's main (each round one DeviceTimer.measure_many, a paired ratio to torch.compile per candidate).

    python3 reduce_tile.py [rounds]    # on the GPU machine, after bench/lab/build.sh reduce_tile.cu
"""
import sys

import numpy as np

import reduce_rows8k
from reduce_rows8k import MANGLED

SHORT = {"float16": "f16", "bfloat16": "bf16"}
PACK = 8
TILE_THREADS = 64  # kTileThreads
STREAM_UNROLL = 4  # kStreamUnroll: packs per lane of the library's tile
WIDE_ROWS = {8: 1, 16: 2}  # the library's rows per group of 8 and of 16 lanes (tile_group_rows)
TILES = [  # (lanes, packs, rows per group, block) as compiled in reduce_tile.cu
    (8, 4, 1, 64), (8, 4, 1, 128), (8, 4, 2, 64), (16, 2, 2, 32), (16, 2, 2, 64), (32, 1, 4, 32), (32, 1, 4, 64),
    (32, 1, 2, 32), (4, 8, 1, 64), (16, 4, 1, 64), (16, 4, 1, 128), (16, 4, 2, 64), (32, 2, 2, 32), (32, 2, 2, 64),
    (32, 2, 1, 32), (8, 8, 1, 64), (32, 2, 4, 32),
]
PLAIN_TILES = [(32, 1, 4, 32), (32, 2, 2, 32)]  # torch.compile's launches, compiled with plain loads too
SHAPES = [(rows, cols, dt) for rows, cols in ((16384, 256), (8192, 512)) for dt in ("float16", "bfloat16")]


def candidates(module, dt, x, rows, cols):
    """name -> a call of one candidate on x, and name -> the sums it writes (its own output each)."""
    import torch

    packs = cols // PACK
    fns, outs = {}, {}

    def add(name, kernel, blocks, block, *args):
        y = outs[name] = torch.empty(rows, device="cuda", dtype=x.dtype)
        fns[name] = lambda: kernel.launch(blocks, block, x, y, *args)

    width = packs // STREAM_UNROLL
    group_rows = WIDE_ROWS[width]
    for load, label in (("14EvictFirstLoad", "(today)"), ("9PlainLoad", "plain loads")):
        library = module.kernel("_ZN4oprt3gpu17reduce_sum_detail17sum_rows_in_tilesI%sLi%dENS0_%sELb1EEEvPKT_PS5_l"
                                % (MANGLED[dt], width, load))  # the exact form: the rows fill the blocks
        add("library: tile W%d x 4 x %d rows, %d threads %s" % (width, group_rows, TILE_THREADS, label), library,
            rows // (TILE_THREADS // width * group_rows), TILE_THREADS, rows)
    for tiles, suffix, label in ((TILES, "", ""), (PLAIN_TILES, "_plain", ", plain loads")):
        for lanes, per_lane, rows_per_group, block in tiles:
            if lanes * per_lane == packs:
                kernel = module.kernel("tile_l%d_k%d_r%d_b%d_%s%s" % (lanes, per_lane, rows_per_group, block,
                                                                      SHORT[dt], suffix))
                add("tile lanes %d packs %d rows %d block %d%s" % (lanes, per_lane, rows_per_group, block, label),
                    kernel, rows // (block // lanes * rows_per_group), block, np.int32(cols))
    return fns, outs


if __name__ == "__main__":
    reduce_rows8k.main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, name="reduce_tile", shapes=SHAPES,
                       make_candidates=candidates)
