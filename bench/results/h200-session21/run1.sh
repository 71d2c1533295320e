#!/usr/bin/env bash
# Session 21, run 1 (carry dist/main, dist/cand1, dist/cand2): the softmax tile tier's block size for rows that take a
# whole warp (half rows of 512 columns, f32 rows of 512 and 1024), 64 threads in main, 128 in cand1 (QuACK's 4 rows
# per 128-thread block on 8192 x 512), 256 in cand2: an A/B through run_ops's own process (tools/gpu_ab.sh, three
# rounds in rotating order, softmax and log_softmax rows, torch eager the only peer), then softmax's test file from
# each candidate's wheel.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 420 tools/gpu_ab.sh dist/main dist/cand1,dist/cand2 $OUT 3 --op softmax,log_softmax --peers torch_eager
for c in cand1 cand2; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-$c:$PWD timeout 150 python3 -m pytest -q -p no:cacheprovider \
    ops/softmax/test_softmax.py > $OUT/run1-test_softmax-$c.txt 2>&1
  echo "test_softmax $c exit $?: $(tail -1 $OUT/run1-test_softmax-$c.txt)"
done
