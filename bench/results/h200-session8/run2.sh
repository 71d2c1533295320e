#!/usr/bin/env bash
# Session 8, run 2 (right after runS.sh, same machine): compute-sanitizer on the reduce_sum cluster tier
# after its fix (only block 0 of a cluster arms a mailbox) and on the softmax cluster tiers; lab
# softmax_flush (who leads the 4096-column rows under a write flush and a read-only flush); lab
# softmax_long --session8 (the half-type cluster kernels at 3 blocks per SM).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
SEL="136x30001 or 12x100003 or 16x262144 or 40x4096 or 20x5000 or 600x72"
MEMCHECK_K="$SEL" SHARED_K="$SEL" MEMCHECK_S=150 RACECHECK_S=120 SYNCCHECK_S=90 THREADS_S=60 \
  tools/gpu_sanitize.sh $OUT/sanitize.log > /dev/null 2>&1; grep -A6 "== summary" $OUT/sanitize.log
grep -E "Warning|Barrier error|RACECHECK SUMMARY|ERROR SUMMARY" $OUT/sanitize.log | sort | uniq -c | head -20
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
cd bench/lab
timeout 240 python3 softmax_flush.py > $OUT/lab-softmax_flush.log 2>&1; echo "flush lab exit $?"; grep -v "^wrote" $OUT/lab-softmax_flush.log | tail -80
timeout 120 python3 softmax_long.py --session8 > $OUT/lab-softmax_long-session8.log 2>&1; echo "long lab exit $?"; tail -25 $OUT/lab-softmax_long-session8.log
