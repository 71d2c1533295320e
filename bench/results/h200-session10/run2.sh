#!/usr/bin/env bash
# Session 10, run 2: reduce_sum's whole-sum tier (sum_whole_row_by_grid: a block of 1024 threads per SM, then
# a second pass) from the sm_90 wheel (carry dist/main): reduce_sum's tests on nvidia, compute-sanitizer on
# the whole-sum and split cases, and the 64M / 256M whole-sum rows of run_ops's bench (torch eager and
# torch.compile in the same run).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
OPRT_TEST_BACKENDS=nvidia timeout 200 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum > $OUT/run2-test_reduce_sum.txt 2>&1
echo "tests exit $?"; tail -1 $OUT/run2-test_reduce_sum.txt; grep -m5 "^FAILED" $OUT/run2-test_reduce_sum.txt
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 -m pytest -q -p no:cacheprovider ops/reduce_sum -k "4000000 or 3x1000001 or 1025 or 4097" > $OUT/run2-$tool.txt 2>&1
  echo "$tool exit $?: $(grep -E 'SUMMARY' $OUT/run2-$tool.txt | tail -1) $(tail -1 $OUT/run2-$tool.txt)"
done
timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum --cases 67108864,268435456 \
  --json $OUT/run2-wholesums.json > $OUT/run2-wholesums.log 2> $OUT/run2-wholesums.stderr; echo "bench exit $?"
grep -E "^reduce_sum " $OUT/run2-wholesums.log
