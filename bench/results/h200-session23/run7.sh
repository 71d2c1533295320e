#!/usr/bin/env bash
# Session 23, run 7 (carry dist/main2, dist/cand8): run 6 showed torch.compile's kernels for the 64M elementwise rows
# run 65536 blocks of 128 threads, one 16-byte pack a thread in half types, where ours run 256-thread blocks.
# Branch session23-cand8 gives bandwidth-bound functors in 16-bit types 128-thread blocks: A/B through run_ops
# against main, three rounds, copy / relu / vector_add, torch eager the only peer; then cand8's test files.
set -u
timeout 300 tools/gpu_ab.sh dist/main2 dist/cand8 $OUT 3 --op copy,relu,vector_add --peers torch_eager
for t in ops/copy/test_copy.py ops/elementwise/relu/test_relu.py ops/vector_add/test_vector_add.py ops/gelu/test_gelu.py; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-cand8:$PWD timeout 40 python3 -m pytest -q -p no:cacheprovider -x $t \
    > $OUT/run7-$(basename $t .py).txt 2>&1
  echo "$t exit $?: $(tail -1 $OUT/run7-$(basename $t .py).txt)"
done
