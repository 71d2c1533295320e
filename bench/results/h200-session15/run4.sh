#!/usr/bin/env bash
# Session 15, run 4 (carry bench/lab/build: softmax_long.cubin and softmax_long_before.cubin): lab softmax_long
# --session15d, 16x262144 half rows, from two builds of the library: RegisterPart with CombineStats (before) and with
# CombineStatsCarryingNaNInSum (the NaN in the sum, no branches), each beside the lab's creg16, three rounds.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for build in softmax_long_before softmax_long; do
  (cd bench/lab && LAB_CUBIN=$build PYTHONPATH=$PWD/../.. timeout 120 python3 softmax_long.py --session15d > $OUT/run4-$build.log 2>&1)
  echo "$build exit $?"; grep -E "^16x262144" $OUT/run4-$build.log | cut -c1-110
  for f in $OUT/lab-*.json; do mv "$f" "$OUT/run4-$build-$(basename "$f")"; done
done
