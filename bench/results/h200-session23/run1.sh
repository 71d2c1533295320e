#!/usr/bin/env bash
# Session 23, run 1 (carry dist/main, dist/cand4, dist/cand5): reduce_sum's 16 KB rows (half 8192x8192, f32
# 4096x4096, the rows torch.compile leads by 0.2-1%) in one block per row with every load in flight, the slice
# kernel in other shapes -- branch session23-cand4 (512 threads x 2 loads, 4 blocks per SM) and session23-cand5
# (256 x 4, 8 blocks per SM) -- A/B through run_ops against main, three rounds, every reduce_sum row, torch eager the
# only peer; then each candidate's reduce_sum test file (main's cases, which hold 601 rows of 16 KB).
set -u
timeout 330 tools/gpu_ab.sh dist/main dist/cand4,dist/cand5 $OUT 3 --op reduce_sum --peers torch_eager
for c in cand4 cand5; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 80 python3 -m pytest -q -p no:cacheprovider -x \
    ops/reduce_sum/test_reduce_sum.py > $OUT/run1-test_reduce_sum-$c.txt 2>&1
  echo "test_reduce_sum $c exit $?: $(tail -1 $OUT/run1-test_reduce_sum-$c.txt)"
done
