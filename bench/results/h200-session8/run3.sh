#!/usr/bin/env bash
# Session 8, run 3 (right after runS.sh, same machine): compute-sanitizer on the reduce_sum cluster tier
# (__syncwarp before its block reduction) and the softmax grid / cluster tiers (one load path, half types
# at 3 blocks per SM); lab placement (where outputs land, run_ops's order); lab softmax_long --session8
# (the library's cluster kernel at 3 blocks per SM); the softmax tests on nvidia.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
SEL="136x30001 or 12x100003 or 16x262144 or 40x4096 or 20x5000 or 2x262144"
MEMCHECK_K="$SEL" SHARED_K="$SEL" MEMCHECK_S=150 RACECHECK_S=120 SYNCCHECK_S=90 THREADS_S=60 \
  tools/gpu_sanitize.sh $OUT/sanitize.log > /dev/null 2>&1; grep -A6 "== summary" $OUT/sanitize.log
grep -E "Warning|Barrier error|RACECHECK SUMMARY|ERROR SUMMARY|     at " $OUT/sanitize.log | sort | uniq -c | sort -rn | head -12
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
(cd bench/lab && timeout 150 python3 placement.py > $OUT/lab-placement.log 2>&1; echo "placement exit $?"; grep -v Deprec $OUT/lab-placement.log | grep -v "^  " | tail -24)
(cd bench/lab && timeout 100 python3 softmax_long.py --session8 > $OUT/lab-softmax_long-session8.log 2>&1; echo "long lab exit $?"; grep -A4 "^summary" $OUT/lab-softmax_long-session8.log; grep "p50" $OUT/lab-softmax_long-session8.log | cut -c1-110)
OPRT_TEST_BACKENDS=nvidia timeout 200 python3 -m pytest -q -p no:cacheprovider ops/softmax -x 2>&1 | tail -3
