#!/usr/bin/env bash
# Session 22, run 3 (carry dist/main, dist/cand): evict-first loads (branch session22-evict-first) in the softmax tile
# tier up to 16 MiB (session 20's branch: lab 1-4% faster, run_ops then 1-1.5% slower on half rows -- with torch.compile's
# pinned lines never reset) and in the bandwidth-bound elementwise kernel, A/B through run_ops (now resetting persisting
# lines before every flush): three rounds, softmax, copy, relu and vector_add rows, torch eager the only peer; then the
# candidate's test files for those ops.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 400 tools/gpu_ab.sh dist/main dist/cand $OUT 3 --op softmax,copy,relu,vector_add --peers torch_eager
for t in ops/softmax/test_softmax.py ops/copy/test_copy.py ops/vector_add/test_vector_add.py ops/elementwise/relu/test_relu.py; do
  [ -f $t ] || continue
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-cand:$PWD timeout 100 python3 -m pytest -q -p no:cacheprovider -x $t \
    > $OUT/run3-$(basename $t .py).txt 2>&1
  echo "$t exit $?: $(tail -1 $OUT/run3-$(basename $t .py).txt)"
done
