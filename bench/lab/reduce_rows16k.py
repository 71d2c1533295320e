"""Lab reduce_rows16k: rows of 16 KB (f32 4096 x 4096, half 8192 x 8192) in the library's own kernels
(reduce_rows16k.cu), timed as reduce_rows8k.py times the 8 KB rows (interleaved with torch.compile, paired ratios),
evict-first loads only (plain loads lost 15-25% on the 8 KB rows).

    python3 reduce_rows16k.py [rounds]     # on the GPU machine, after bench/lab/build.sh reduce_rows16k.cu

"slice 512 x 2, 4/SM" is today's kernel for these rows; "row block B" is sum_rows_by_block in B threads a row.
"""
import sys

import reduce_rows8k

SHAPES = [(4096, 4096, "float32"), (8192, 8192, "float16"), (8192, 8192, "bfloat16")]
SLICES = [(1024, 1, 2), (1024, 1, 1), (512, 2, 4), (512, 2, 3), (512, 2, 2), (256, 4, 8), (256, 4, 4),
          (128, 8, 8)]  # 128 x 8 at 16/SM spills (112-236 bytes): not built

if __name__ == "__main__":
    reduce_rows8k.main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, name="reduce_rows16k", shapes=SHAPES,
                       row_blocks=[128, 256], slices=SLICES, loads={"evict-first": reduce_rows8k.LOADS["evict-first"]})
