#!/usr/bin/env bash
# Session 18, run 1 (carry bench/lab/build with reduce_slices' cubin): lab reduce_slices, whole sums first (wider
# slices for fewer partials, and one-kernel whole sums whose last block adds the partials), then the row slices,
# three rounds, torch.compile in the same run.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 540 python3 reduce_slices.py whole rows > $OUT/run1-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run1-lab-reduce_slices.log | grep -E "round 2|this run" | cut -c1-150
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run1-$(basename "$f")"; done
