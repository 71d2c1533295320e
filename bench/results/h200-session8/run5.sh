#!/usr/bin/env bash
# Session 8, run 5: the reduce_sum cluster tier with an all-to-all mailbox (every block receives; the
# head / tail loops of thread_partial_sum as they were): synccheck and racecheck on its cases, the
# reduce_sum tests on nvidia, and the reduce_sum rows of issue 11's matrix against torch eager and
# torch.compile (reduce-final.json; Liger and QuACK have no sum).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
for tool in synccheck racecheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 -m pytest -q -p no:cacheprovider ops/reduce_sum -k "136x30001 or 12x100003 or 16x262144" > $OUT/$tool.log 2>&1
  echo "$tool exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|failed" $OUT/$tool.log | tail -2
done
OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum > $OUT/test_reduce_sum.txt 2>&1; tail -1 $OUT/test_reduce_sum.txt
timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum --peers torch_eager,torch_compile \
  --json $OUT/reduce-final.json > $OUT/reduce-final.log 2>&1; echo "bench exit $?"; grep -A4 "== summary" $OUT/reduce-final.log
