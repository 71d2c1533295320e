#!/usr/bin/env bash
# Written in session 34, not run on an H200 (every lease was an H100; call A exits on any other card). H200 call A (carry .q1, .whl2, dist/final); on any other card it exits at once. The first half of
# QuACK's libs staged, the other peers and main's wheel kept in /tmp; reduce_sum's tests; run_ops --shapes for the
# any-length rows (main's at-once blocks) with torch.compile, two processes.
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader); echo "$card"
[[ $card == *H200* ]] || exit 0
rm -rf /tmp/q /tmp/w /tmp/dm && tools/gpu_peers_site.sh stage .q1 > /dev/null && mkdir -p /tmp/w /tmp/dm \
  && cp .whl2/*.whl /tmp/w/ && cp dist/final/*.whl /tmp/dm/ && echo staged
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 90 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
for i in 1 2; do
  PYTHONPATH=/tmp/oprt-site:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum \
    --peers torch_compile --shapes 4096x2560,4096x3072,4096x4096,4096x5120,4096x7680 --json $OUT/any-rows-$i.json \
    > $OUT/any-rows-$i.log 2>&1; echo "run_ops $i exit $?"; grep -E "^reduce_sum|ratio" $OUT/any-rows-$i.log | head -20
done
