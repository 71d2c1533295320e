#!/usr/bin/env bash
# Session 14, run 5 (carry bench/lab/build with softmax_long's cubin): lab softmax_long --session14 with libpo and
# libpno added (the library's packed f16 part, base-2 and natural stats, its mailbox opened after the loads, so that
# ptxas places the cluster arrive and wait after the first pass, as in crep).
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 150 python3 softmax_long.py --session14 > $OUT/run5-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run5-lab-softmax_long.log | cut -c1-110
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run5-$(basename "$f")"; done
