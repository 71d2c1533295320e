#!/usr/bin/env bash
# Session 34, call 6 (carry dist/final, dist/rowblocks, the two lab cubins, .s34): tools/gpu_sanitize.sh from main's
# wheel with synccheck's known 16-block cluster cases in a process of their own; on an H200 also session 33's
# next call (run_ops A/B of the any-length rows against the row blocks, labs reduce_rows_any and reduce_rows16k).
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
timeout 300 tools/gpu_sanitize.sh $OUT/sanitize-main.log > /dev/null 2>&1; echo "gpu_sanitize exit $?"
sed -n '/== summary/,$p' $OUT/sanitize-main.log; xz -9 $OUT/sanitize-main.log
[[ $card == *H200* ]] || exit 0
timeout 200 tools/gpu_ab.sh dist/rowblocks dist/final $OUT 1 --op reduce_sum --peers torch_compile \
  --shapes 4096x2560,4096x3072,4096x5120,4096x7680 2>&1 | tail -n 14
for lab in reduce_rows_any reduce_rows16k; do
  (cd bench/lab && timeout 60 python3 $lab.py 1 > $OUT/lab-$lab.log 2>&1; echo "lab $lab exit $?")
done
