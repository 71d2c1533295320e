#!/usr/bin/env bash
# Session 22, run 6 (carry dist/cand2 = main after the merge, dist/cand3): branch session22-cand3 -- rows of half a
# slice (f32 4096, half 8192) two to a block of the slice kernel's shape, as f32 rows of a whole slice -- A/B through
# run_ops against main: two rounds (little device time left), every reduce_sum row, torch eager the only peer; then the candidate's reduce_sum
# test file.
set -u
timeout 150 tools/gpu_ab.sh dist/cand2 dist/cand3 $OUT 2 --op reduce_sum --peers torch_eager
OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-cand3:$PWD timeout 70 python3 -m pytest -q -p no:cacheprovider -x \
  ops/reduce_sum/test_reduce_sum.py > $OUT/run6-test_reduce_sum.txt 2>&1
echo "test_reduce_sum exit $?: $(tail -1 $OUT/run6-test_reduce_sum.txt)"
