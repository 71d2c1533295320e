#!/usr/bin/env bash
# Session 15, run 2 (carry bench/lab/build with softmax_long's cubin): the library's PackedPart now carries a NaN in
# its sum (CombineStatsCarryingNaNInSum, no branches) and addresses its stores from element offsets (no spill):
# softmax_long --session15b (f16: libw, crepcs, crepm, libp) and --session15c (bf16: libw, libp), three rounds each.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in session15b session15c; do
  (cd bench/lab && PYTHONPATH=$PWD/../.. timeout 150 python3 softmax_long.py --$s > $OUT/run2-lab-softmax_long-$s.log 2>&1)
  echo "softmax_long --$s exit $?"; grep -E "^128x131072" $OUT/run2-lab-softmax_long-$s.log | cut -c1-110
done
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run2-$(basename "$f")"; done
