#!/usr/bin/env bash
# Session 10, run 5: reduce_sum's tile tier (sum_rows_in_tiles: half rows of 256 and 512 columns) from the sm_90 and
# the compute_80 PTX-only wheels (carry dist/main, dist/ptx): reduce_sum's tests on nvidia from both at once,
# compute-sanitizer on the new cases, and run_ops's 16384x256 and 8192x512 row sums against torch.compile.
set -u
for w in main ptx; do rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl; done
for w in main ptx; do
  PYTHONPATH=/tmp/site-$w:$PWD OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum \
    > $OUT/run5-test_reduce_sum-$w.txt 2>&1 &
done
wait
for w in main ptx; do echo "tests ($w): $(tail -1 $OUT/run5-test_reduce_sum-$w.txt)"; grep -m3 "^FAILED" $OUT/run5-test_reduce_sum-$w.txt; done
export PYTHONPATH=/tmp/site-main:$PWD
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 -m pytest -q -p no:cacheprovider ops/reduce_sum -k "1000x256 or 333x512" > $OUT/run5-$tool.txt 2>&1
  echo "$tool exit $?: $(grep -E 'SUMMARY' $OUT/run5-$tool.txt | tail -1) $(tail -1 $OUT/run5-$tool.txt)"
done
for c in 16384x256 8192x512; do
  timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum --cases $c --peers torch_compile \
    --json $OUT/run5-rows-$c.json > $OUT/run5-rows-$c.log 2>/dev/null; echo "bench $c exit $?"
  grep -E "^reduce_sum " $OUT/run5-rows-$c.log
done
cd $OUT && tar czf run5.tgz run5-* && rm -f run5-*.txt
