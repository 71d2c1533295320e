#!/usr/bin/env bash
# Session 15, run 3 (carry bench/lab/build with softmax_short's cubin): lab softmax_short --session15, the library's
# tile kernel masked (as launched) against the same kernel unmasked (softmax_rows_of_tile's kWhole), three rounds.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 200 python3 softmax_short.py --session15 > $OUT/run3-lab-softmax_short.log 2>&1)
echo "softmax_short exit $?"; grep -E "^softmax" $OUT/run3-lab-softmax_short.log | cut -c1-120
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
