#!/usr/bin/env bash
# Session 23, run 2 (carry dist/main, dist/cand6, dist/cand7): the bandwidth-bound elementwise kernel (copy, relu,
# vector_add; half rows 0.2-1.3% behind torch) with cache hints, every row cold: branch session23-cand6 loads with
# ld.global.L2::256B, session23-cand7 stores streaming (st.global.cs). A/B through run_ops against main, three
# rounds, torch eager the only peer; then each candidate's copy / relu / vector_add test files.
set -u
timeout 380 tools/gpu_ab.sh dist/main dist/cand6,dist/cand7 $OUT 3 --op copy,relu,vector_add --peers torch_eager
for c in cand6 cand7; do
  for t in ops/copy/test_copy.py ops/elementwise/relu/test_relu.py ops/vector_add/test_vector_add.py; do
    OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 40 python3 -m pytest -q -p no:cacheprovider -x $t \
      > $OUT/run2-$(basename $t .py)-$c.txt 2>&1
    echo "$t $c exit $?: $(tail -1 $OUT/run2-$(basename $t .py)-$c.txt)"
  done
done
