#!/usr/bin/env bash
# Session 6: compute-sanitizer memcheck, racecheck and synccheck (tools/gpu_sanitize.sh) on the cluster tiers'
# cases (reduce_sum 136x30001; softmax 128x131072 and 40x122887), then the threads stress test on nvidia.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
S="136x30001 or 128x131072 or 40x122887"
MEMCHECK_K="$S" SHARED_K="$S" tools/gpu_sanitize.sh $OUT/sanitize-cluster-tiers2.log > /dev/null 2>&1; echo "exit $?"
grep -E "cases|errors|hazards|passed|failed" $OUT/sanitize-cluster-tiers2.log | tail -8
