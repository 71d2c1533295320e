#!/usr/bin/env bash
# Session 24, run 1 (carry dist/main, dist/candA, dist/candB): QuACK's loads in the softmax tile tier. QuACK leads
# 8192x512 half rows by 1-2% through run_ops though ours is the faster kernel under ncu; its loads go global ->
# shared memory by cp.async, then to registers. candA (branch session24-candA) stages the tile tier's rows that way
# (half rows, f32 past 16 MB; the f32 rows up to 16 MB keep their evict-first loads), candB (session24-candB) also
# gives rows of a whole warp 128-thread blocks (QuACK's 4 rows per block). A/B through run_ops's own process
# (tools/gpu_ab.sh, three rounds in rotating order, softmax and log_softmax rows, torch eager the only peer), then
# softmax's test file from each candidate and reduce_sum's from main (4f7e7db's launch refactor, not yet run here).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 330 tools/gpu_ab.sh dist/main dist/candA,dist/candB $OUT 3 --op softmax,log_softmax --peers torch_eager
for c in candA candB; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 100 python3 -m pytest -q -p no:cacheprovider -x \
    ops/softmax/test_softmax.py > $OUT/run1-test_softmax-$c.txt 2>&1
  echo "test_softmax $c exit $?: $(tail -1 $OUT/run1-test_softmax-$c.txt)"
done
OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-base:$PWD timeout 80 python3 -m pytest -q -p no:cacheprovider \
  ops/reduce_sum/test_reduce_sum.py > $OUT/run1-test_reduce_sum-main.txt 2>&1
echo "test_reduce_sum main exit $?: $(tail -1 $OUT/run1-test_reduce_sum-main.txt)"
