#!/usr/bin/env bash
# Session 36, call 4 (any card; carry dist/final = main with combo64's tiles merged): reduce_sum's tests; compute-sanitizer
# over the tile cases; run_ops on the two short-row shapes with torch.compile
# (one process: 246 device seconds were left).
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 30 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest \
    -q -p no:cacheprovider ops/reduce_sum/ -k "1001x256 or 333x512 or 1024x256 or 336x512" > $OUT/sanitize-$tool.log 2>&1
  echo "$tool exit $? $(grep -E 'passed|failed' $OUT/sanitize-$tool.log | tail -n 1) $(grep -E 'SUMMARY' $OUT/sanitize-$tool.log | tail -n 1)"
done
for i in 1; do
  timeout 60 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum --peers torch_compile \
    --shapes 16384x256,8192x512 --json $OUT/rows-$i.json > $OUT/rows-$i.log 2>&1; echo "run_ops $i exit $?"
  grep -E "^reduce_sum" $OUT/rows-$i.log | head -12
done
