#!/usr/bin/env bash
# Session 14, run 1 (carry dist/main, dist/ptx, bench/lab/build with softmax_long's and reduce_scalar's cubins):
# 1. lab softmax_long --session14: PackedPart with f16 widened by one volatile cvt per value (crep's form) against
#    RegisterPart (libw) and the lab's crep, 128x131072 f16 and bf16, each three times in turn;
# 2. lab reduce_scalar --session14: whole sums of 64M and 256M elements, session 10's tier (a wave of 1024-thread
#    blocks) against pieces of 1-8 slices of the streamed row kernel, each with the library's second pass;
# 3. every test file on nvidia from the sm_90 wheel and, at the same time, from the compute_80 PTX-only wheel, and
#    run_ops's tests (the code: f16 and bf16 in PackedPart; whole sums in pieces of 1 slice).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for w in main ptx; do
  rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl
done
(cd bench/lab && PYTHONPATH=/tmp/site-main:$PWD/../.. timeout 120 python3 softmax_long.py --session14 > $OUT/run1-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run1-lab-softmax_long.log
(cd bench/lab && PYTHONPATH=/tmp/site-main:$PWD/../.. timeout 150 python3 reduce_scalar.py --session14 > $OUT/run1-lab-reduce_scalar.log 2>&1)
echo "reduce_scalar exit $?"; grep -E "p50" $OUT/run1-lab-reduce_scalar.log | cut -c1-150
tools/gpu_suites_pair.sh /tmp/site-main /tmp/site-ptx $OUT run1
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run1-$(basename "$f")"; done
