#!/usr/bin/env bash
# Session 14, run 3 (carry dist/main, bench/lab/build with softmax_long's cubin): lab softmax_long --session14 (f16's
# PackedPart with base-2 stats, libp, and with natural ones, libpn, against RegisterPart and the lab's crep, three
# times in turn), then lab alloc_cost (written in session 13, never run before).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 100 python3 softmax_long.py --session14 > $OUT/run3-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run3-lab-softmax_long.log | cut -c1-120
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 100 python3 alloc_cost.py > $OUT/run3-alloc_cost.log 2>&1)
echo "alloc_cost exit $?"; tail -15 $OUT/run3-alloc_cost.log | cut -c1-160
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
