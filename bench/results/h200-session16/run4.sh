#!/usr/bin/env bash
# Session 16, run 4 (carry bench/lab/build with softmax_short's cubin): lab softmax_short --session16, half rows of
# 512 in the unmasked tile at 64 threads a block (as launched) and 128, four rounds in turn.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 200 python3 softmax_short.py --session16 > $OUT/run4-lab-softmax_short.log 2>&1)
echo "softmax_short exit $?"; grep -E "^softmax" $OUT/run4-lab-softmax_short.log | cut -c1-120
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run4-$(basename "$f")"; done
