#!/usr/bin/env bash
# Session 14, run 4 (carry dist/main, bench/lab/build with softmax_long's cubin): run_ops's reduce_sum rows against
# torch eager alone (runB's peer run measured every implementation's reduce_sum wall time 40-120 us above session
# 12's: is any of ours a regression?), then lab softmax_long --session14 with crepcs (crep with the library's
# evict-first loads) added.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
PYTHONPATH=/tmp/oprt-site:$PWD timeout 150 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum \
  --peers torch_eager --json $OUT/run4-reduce_sum-eager.json > $OUT/run4-reduce_sum-eager.log 2>&1
echo "run_ops exit $?"; grep -A6 "== summary" $OUT/run4-reduce_sum-eager.log | head -8
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 120 python3 softmax_long.py --session14 > $OUT/run4-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run4-lab-softmax_long.log | cut -c1-120
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run4-$(basename "$f")"; done
