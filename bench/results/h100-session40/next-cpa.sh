#!/usr/bin/env bash
# Session 40, any card (carry dist/final, dist/cpa128, dist/cpa256, dist/v32): softmax's tests from the cpa128 wheel,
# then the run_ops A/B of cand-cpa.patch (half rows past 8 KiB cached in shared memory by cp.async, QuACK's load
# path, blocks of kSharedAsyncThreads = 128 or 256) and v32 against main on the half rows it changes.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/cpa128/operator_runtime*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 120 python3 -m pytest -q -x -p no:cacheprovider \
  ops/softmax/ > $OUT/tests-cpa128.log 2>&1; echo "tests exit $?: $(tail -n 1 $OUT/tests-cpa128.log)"
AB_BUDGET_S=${AB_BUDGET_S:-300} tools/gpu_ab.sh dist/final dist/cpa128,dist/cpa256,dist/v32 "$OUT" 3 \
  --op softmax,log_softmax --shapes ${AB_SHAPES:-8192x8192,4096x16384} --cases float16 --peers liger 2>&1 | tail -24
