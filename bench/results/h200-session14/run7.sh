#!/usr/bin/env bash
# Session 14, run 7 (carry bench/lab/build with softmax_long's cubin): lab softmax_long --session14b, bisecting crepcs
# against the library's PackedPart: libpx / libpnx are the library's part (base-2 / natural stats) with the lab's
# exchange (crep's) in place of the library's mailbox and combine, and libpxs: libpx with crep's store pass.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 120 python3 softmax_long.py --session14b > $OUT/run7-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run7-lab-softmax_long.log | cut -c1-110
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run7-$(basename "$f")"; done
