#!/usr/bin/env bash
# Session 14, run 2 (carry bench/lab/build with reduce_scalar's cubin): lab reduce_scalar --session14 again, its f32
# kernel names fixed (run 1 stopped there), with the first pass of 1-slice pieces also timed alone.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 200 python3 reduce_scalar.py --session14 > $OUT/run2-lab-reduce_scalar.log 2>&1)
echo "reduce_scalar exit $?"; grep -E "p50" $OUT/run2-lab-reduce_scalar.log | cut -c1-130
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run2-$(basename "$f")"; done
