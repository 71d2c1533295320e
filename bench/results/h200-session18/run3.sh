#!/usr/bin/env bash
# Session 18, run 3 (carry bench/lab/build with reduce_slices' cubin): lab reduce_slices' whole sums again, now with
# second passes in small blocks (partials_sum) after the first passes that keep 64 KB in flight per SM.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 400 python3 reduce_slices.py whole > $OUT/run3-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run3-lab-reduce_slices.log | grep -E "partials|library|compile" | cut -c1-150
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
