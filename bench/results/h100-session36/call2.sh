#!/usr/bin/env bash
# Session 36, call 2 (any card; carry dist/final, dist/tilephase, dist/tilelean, dist/combo): combo is tilephase's
# wide tiles (two rows a group of 16 lanes in 64-thread blocks, each row's loads then its adds) with tilelean's exact
# form (no row test, 32-bit offsets where the blocks cover the rows exactly), for 256 and 512 columns alike.
# 1. run_ops A/B of main against the three, 2 rounds; 2. reduce_sum's tests from combo's wheel;
# 3. compute-sanitizer memcheck / racecheck / synccheck over the tile cases from combo's wheel.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 330 tools/gpu_ab.sh dist/final dist/tilephase,dist/tilelean,dist/combo $OUT 2 --op reduce_sum \
  --peers torch_compile --shapes 16384x256,8192x512 2>&1 | tail -n 9
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/combo/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia
timeout 120 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_TORCH=0 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    ops/reduce_sum/ -k "1000x256 or 333x512 or 1024x256 or 336x512" > $OUT/sanitize-$tool.log 2>&1
  echo "$tool exit $? $(grep -E 'passed|failed' $OUT/sanitize-$tool.log | tail -n 1) $(grep -E 'SUMMARY' $OUT/sanitize-$tool.log | tail -n 1)"
done
