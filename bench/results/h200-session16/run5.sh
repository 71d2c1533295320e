#!/usr/bin/env bash
# Session 16, run 5 (carry dist/main): compute-sanitizer over the kernels this session changed, from the final sm_90
# wheel: memcheck, racecheck and synccheck (tools/gpu_sanitize.sh, its selection narrowed to the cases that reach
# them: whole sums through the pieces and sum_row_at_once (4000000), split rows, the softmax cluster tier's whole
# and masked kernels), then tests/test_threads.py.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
CASES="4000000 or 2x262144 or 3x1000001 or 136x30001 or 12x100003 or 12x250000 or 9x200003 or 40x65536 or 40x4096 or 20x5000"
MEMCHECK_K="$CASES" SHARED_K="$CASES" MEMCHECK_S=150 RACECHECK_S=110 SYNCCHECK_S=80 THREADS_S=60 \
  tools/gpu_sanitize.sh $OUT/run5-sanitize.log > /dev/null 2>&1
echo "gpu_sanitize exit $?"; sed -n '/== summary/,$p' $OUT/run5-sanitize.log
