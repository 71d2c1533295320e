"""Lab reduce_rows_any: rows of 5 to 15 KB of lengths other than a slice's (reduce_rows_any.cu) in the row
blocks they took until session 33 and in sum_row_at_once, a block per row of B threads x K packs loaded at once
(masked to the row; today's tier), timed interleaved with torch.compile by reduce_rows8k.py's main; the exact
8 KB rows (today's sum_slices) are the control for what the masking costs.

    python3 reduce_rows_any.py [rounds]    # on the GPU machine, after bench/lab/build.sh reduce_rows_any.cu
"""
import sys

import numpy as np

import reduce_rows8k
from reduce_rows8k import MANGLED, OUT_MANGLED

EVICT_FIRST = reduce_rows8k.LOADS["evict-first"]
# 4096 rows of 320 to 960 packs (512: the exact 8 KB rows), f16 and f32.
SHAPES = ([(4096, 8 * p, "float16") for p in (320, 384, 512, 640, 768, 960)]
          + [(4096, 4 * p, "float32") for p in (320, 384, 640, 768)])
AT_ONCE_THREADS = [128, 256, 512]


def candidates(module, dt, x, rows, cols):
    """name -> a call of one candidate on x, and name -> the sums it writes (its own output each)."""
    import torch

    packs = cols // (16 // x.element_size())
    fns, outs = {}, {}

    def add(name, kernel, block, *args):
        k = module.kernel(kernel)
        y = outs[name] = torch.empty(rows, device="cuda", dtype=x.dtype)
        fns[name] = lambda: k.launch(rows, block, x, y, *args)

    before = 64 if packs <= 64 * 8 else 128  # row_block_threads: about kRowBlockPacks = 8 packs a thread
    for b in (64, 128):
        add("row block %d%s" % (b, " (session 32)" if b == before and packs != 512 else ""),
            reduce_rows8k.row_block_kernel(dt, b, EVICT_FIRST), b, rows, cols, 1)
    today = 256 if packs <= 512 else 512  # launch_long_rows since session 33: two packs a thread
    for b in AT_ONCE_THREADS:
        k = -(-packs // b)
        add("at once %d x %d%s" % (b, k, " (today)" if b == today and packs != 512 else ""), "_ZN4oprt3gpu17reduce_sum_detail15sum_row_at_onceI%s%sLi%dELi%dENS0_%sEEEvPKT_PT0_i"
            % (MANGLED[dt], OUT_MANGLED[dt], b, k, EVICT_FIRST), b, np.int32(cols))
    if packs == 512 and dt == "float16":
        add("slice 256 x 2, 8/SM (today)", reduce_rows8k.slice_kernel(dt, 256, 2, 8, EVICT_FIRST), 256, rows * cols)
    return fns, outs


if __name__ == "__main__":
    reduce_rows8k.main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, name="reduce_rows_any", shapes=SHAPES,
                       make_candidates=candidates)
