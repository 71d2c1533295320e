#!/usr/bin/env bash
# The next lease's first call, written in session 33 and NOT RUN (its device time ran out): reduce_sum's tests
# from main's wheel; run_ops A/B (run_ops --shapes) of the any-length rows against the row blocks they took until
# session 33 (dist/rowblocks: main 06a880b's kernels) with torch.compile, on any card; then on an H200 labs
# reduce_rows_any and reduce_rows16k, one round each. From a checkout: bench/lab/build.sh reduce_rows_any.cu
# reduce_rows16k.cu; main's wheel in dist/final, 06a880b's in dist/rowblocks; device tool carry dist/final,
# dist/rowblocks and the two cubins (bench/lab/build/reduce_rows_any.cubin, bench/lab/build/reduce_rows16k.cubin;
# all of bench/lab/build is over the 64 MiB a call carries).
export OUT=$1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
timeout 300 tools/gpu_ab.sh dist/rowblocks dist/final $OUT 2 --op reduce_sum --peers torch_compile \
  --shapes 4096x2560,4096x3072,4096x5120,4096x7680 2>&1 | tail -n 16
[[ $card == *H200* ]] || exit 0
for lab in reduce_rows_any reduce_rows16k; do
  (cd bench/lab && timeout 90 python3 $lab.py 1 > $OUT/lab-$lab.log 2>&1; echo "lab $lab exit $?")
  grep -E "p50" $OUT/lab-$lab.log | sed 's/  */ /g' | cut -c1-120
done
