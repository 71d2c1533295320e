#!/usr/bin/env bash
# Session 17, run 1 (carry bench/lab/build with reduce_scalar's cubin): lab reduce_scalar --session16c: fewer partials
# for the at-once second pass (wider slices, clusters of 2-8 blocks) against the library's pieces, per-kernel medians
# and totals, in three rounds.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 400 python3 reduce_scalar.py --session16c > $OUT/run1-lab-reduce_scalar.log 2>&1)
echo "reduce_scalar exit $?"; grep -E "p50|kernels" $OUT/run1-lab-reduce_scalar.log | cut -c1-170
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run1-$(basename "$f")"; done
