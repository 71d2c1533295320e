#!/usr/bin/env bash
# Written in session 22, not run (no device time left); next-run-elementwise.sh is the other half. Carry dist/main2 (main's wheel: build it first), dist/cand4,
# dist/cand5: reduce_sum's rows of 16 KB (half 8192x8192, f32 4096x4096, the rows torch.compile still leads by
# 0.2-1%) in one block per row with every load in flight at once -- branch session22-cand4 (512 threads x 2 loads,
# torch.compile's row layout in 16-byte loads, 4 blocks per SM) and session22-cand5 (256 x 4, 8 blocks per SM) --
# A/B through run_ops against main, three rounds, every reduce_sum row, torch eager the only peer; then each
# candidate's reduce_sum test file (run from the candidate's checkout for its 601-row cases).
set -u
timeout 300 tools/gpu_ab.sh dist/main2 dist/cand4,dist/cand5 $OUT 3 --op reduce_sum --peers torch_eager
for c in cand4 cand5; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 80 python3 -m pytest -q -p no:cacheprovider -x \
    ops/reduce_sum/test_reduce_sum.py > $OUT/next-test_reduce_sum-$c.txt 2>&1
  echo "test_reduce_sum $c exit $?: $(tail -1 $OUT/next-test_reduce_sum-$c.txt)"
done
