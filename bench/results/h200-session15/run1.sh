#!/usr/bin/env bash
# Session 15, run 1 (carry bench/lab/build with softmax_long's cubin): lab softmax_long --session15: crepn (the lab's
# packed cluster kernel crepcs with the library's NaN rules) against crepcs and the library's f16 kernel (libw),
# 128x131072 f16, three rounds in turn.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 150 python3 softmax_long.py --session15 > $OUT/run1-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run1-lab-softmax_long.log | cut -c1-110
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run1-$(basename "$f")"; done
