#!/usr/bin/env bash
# Written in session 36, not run (no device time left). The next lease's first call, any card (carry .q1, .whl2,
# dist/final = main's wheel; rebuild .q1/.q2/.whl2 with `tools/gpu_peers_site.sh pack DIR`, bench/peers-method.md):
# call4.sh's checks of the merged tile kernels (reduce_sum's tests, compute-sanitizer over the tile cases, run_ops on the
# two short-row shapes), the first half of QuACK's libs staged and our wheel kept in /tmp for next-b.sh; on an H200
# also the any-length rows (not yet timed there).
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
bash "$(dirname "$0")/call4.sh" "$OUT" | tail -n +2
rm -rf /tmp/q /tmp/w /tmp/dm && tools/gpu_peers_site.sh stage .q1 > /dev/null && mkdir -p /tmp/w /tmp/dm \
  && cp .whl2/*.whl /tmp/w/ && cp dist/final/*.whl /tmp/dm/ && echo staged
if [[ $card == *H200* ]]; then
  PYTHONPATH=/tmp/oprt-site:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum \
    --peers torch_compile --shapes 4096x2560,4096x3072,4096x4096,4096x5120,4096x7680 --json $OUT/any-rows.json \
    > $OUT/any-rows.log 2>&1; echo "any rows exit $?"; grep -E "^reduce_sum" $OUT/any-rows.log | head -20
fi
