#!/usr/bin/env bash
# Session 33, call 2 (its first was session 32's next-call.sh): the any-length rows build (dist/anyrows): its kernels by oprt.explain, reduce_sum's tests,
# compute-sanitizer over test_rows_at_once, every test file (gpu_suites), then lab reduce_rows_any (2 rounds);
# then lab reduce_rows16k on an H200, reduce_tile on an H100. Carry dist/anyrows, bench/lab/build. <= 8 files back.
export OUT=$1
nvidia-smi --query-gpu=name,clocks.max.mem --format=csv,noheader
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/anyrows/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
python3 -c "
import torch, operator_runtime as oprt; oprt.set_backend('nvidia')
for dt, n in ((torch.float16, 2560), (torch.bfloat16, 5120), (torch.float16, 4096), (torch.float32, 1536), (torch.float32, 4092)):
    print(dt, n, [str(l).split(' (')[0] for l in oprt.explain(oprt.reduce_sum, torch.randn(4096, n, device='cuda', dtype=dt), axis=-1).launches])"
OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/test_rows_at_once.py ops/reduce_sum/test_reduce_sum.py 2>&1 | tail -n 1
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    ops/reduce_sum/test_rows_at_once.py > $OUT/san-$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'passed|failed' $OUT/san-$tool.log | tail -n 1) | $(grep -E 'SUMMARY' $OUT/san-$tool.log | tail -n 1)"
done
timeout 200 tools/gpu_suites.sh /tmp/oprt-site $OUT/suites > $OUT/suites.txt 2>&1; echo "suites exit $?"; tail -n 2 $OUT/suites.txt
grep -E "failed|error" $OUT/suites.txt | grep -v " 0 failed" | head -5
tar czf $OUT/sanitize-suites.tgz -C $OUT san-memcheck.log san-racecheck.log san-synccheck.log suites.txt suites && rm -rf $OUT/san-*.log $OUT/suites $OUT/suites.txt
(cd bench/lab && timeout 150 python3 reduce_rows_any.py 2 > $OUT/lab-reduce_rows_any.log 2>&1; echo "lab exit $?")
grep -E "p50" $OUT/lab-reduce_rows_any.log | grep -v "round 1" | sed 's/  */ /g' | cut -c1-120
lab=reduce_tile; [[ $card == *H200* ]] && lab=reduce_rows16k
(cd bench/lab && timeout 100 python3 $lab.py 2 > $OUT/lab-$lab.log 2>&1; echo "lab $lab exit $?")
grep -E "p50" $OUT/lab-$lab.log | grep -v "round 1" | sed 's/  */ /g' | cut -c1-120
