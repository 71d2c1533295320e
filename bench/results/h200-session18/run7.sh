#!/usr/bin/env bash
# Session 18, run 7 (carry bench/lab/build with reduce_slices' cubin): lab reduce_slices' placement section: 8192 x
# 8192 f32 and f16 row sums with x allocated behind pads of 0 MB to 4 GB, torch.compile, the library's streamed
# kernel and two slice kernels per placement, three rounds.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 250 python3 reduce_slices.py placement > $OUT/run7-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run7-lab-reduce_slices.log | grep "round 0" | cut -c30-160
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run7-$(basename "$f")"; done
