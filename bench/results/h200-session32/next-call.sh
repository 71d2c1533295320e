#!/usr/bin/env bash
# The next lease's first call, written in session 32 and NOT RUN (its device time ran out): main's wheel from
# 4e1aba4 on (8 KB rows always 256 x 2 slices; copy it to dist/final): its 8 KB-row kernel by oprt.explain,
# reduce_sum's tests on nvidia, compute-sanitizer over the 8 KB rows; then labs reduce_rows16k and reduce_rows_any,
# two rounds each (run bench/lab/build.sh reduce_rows16k.cu reduce_rows_any.cu first). From a checkout, device
# tool carry: dist/final, bench/lab/build. At most 8 files come back: this call leaves 5.
export OUT=$1
nvidia-smi --query-gpu=name,clocks.max.mem --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
python3 -c "
import torch, operator_runtime as oprt; oprt.set_backend('nvidia')
for dt, n in ((torch.float16, 4096), (torch.bfloat16, 4096), (torch.float32, 2048)):
    print(dt, n, [str(l) for l in oprt.explain(oprt.reduce_sum, torch.randn(4096, n, device='cuda', dtype=dt), axis=-1).launches])"
OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/test_rows8k.py ops/reduce_sum/test_reduce_sum.py 2>&1 | tail -n 1
for tool in memcheck racecheck synccheck; do
  OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    ops/reduce_sum/test_reduce_sum.py ops/reduce_sum/test_rows8k.py -k "601x4096 or 2000x2048 or rows_of_8kb" > $OUT/san-$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'passed|failed' $OUT/san-$tool.log | tail -n 1) | $(grep -E 'SUMMARY' $OUT/san-$tool.log | tail -n 1)"
done
tar czf $OUT/sanitize-rows8k.tgz -C $OUT san-memcheck.log san-racecheck.log san-synccheck.log && rm -f $OUT/san-*.log
(cd bench/lab && timeout 110 python3 reduce_rows16k.py 2 > $OUT/lab-reduce_rows16k.log 2>&1; echo "lab exit $?")
grep -E "p50" $OUT/lab-reduce_rows16k.log | sed 's/  */ /g' | cut -c1-140
(cd bench/lab && timeout 110 python3 reduce_rows_any.py 2 > $OUT/lab-reduce_rows_any.log 2>&1; echo "lab exit $?")
grep -E "p50" $OUT/lab-reduce_rows_any.log | sed 's/  */ /g' | cut -c1-140
