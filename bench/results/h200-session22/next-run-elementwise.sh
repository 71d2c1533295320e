#!/usr/bin/env bash
# Written in session 22, not run (no device time left). Carry dist/main2 (main's wheel), dist/cand6, dist/cand7: the
# bandwidth-bound elementwise kernel (copy, relu, vector_add; half rows 0.2-0.7% behind torch eager / torch.compile)
# with cache hints, now that every row is timed cold: session22-cand6 loads with ld.global.L2::256B (L2 fetches the
# 256-byte block around each load), session22-cand7 stores streaming (st.global.cs). Evict-first loads lost 1.5-5.8%
# (run 3), so the L2's policy matters here. A/B through run_ops against main, three rounds, torch eager the only
# peer; then each candidate's copy / relu / vector_add test files.
set -u
timeout 330 tools/gpu_ab.sh dist/main2 dist/cand6,dist/cand7 $OUT 3 --op copy,relu,vector_add --peers torch_eager
for c in cand6 cand7; do
  for t in ops/copy/test_copy.py ops/elementwise/relu/test_relu.py ops/vector_add/test_vector_add.py; do
    OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 40 python3 -m pytest -q -p no:cacheprovider -x $t \
      > $OUT/next-$(basename $t .py)-$c.txt 2>&1
    echo "$t $c exit $?: $(tail -1 $OUT/next-$(basename $t .py)-$c.txt)"
  done
done
