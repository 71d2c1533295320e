#!/usr/bin/env bash
# Session 16, run 3 (carry bench/lab/build with reduce_scalar's cubin): lab reduce_scalar --session16b: the second pass's own device time (median per
# kernel) for the library's block of 256, 512, 1024 threads and the at-once kernels, and the row candidates again, in
# three rounds.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 300 python3 reduce_scalar.py --session16b > $OUT/run3-lab-reduce_scalar.log 2>&1)
echo "reduce_scalar exit $?"; grep -E "p50|second pass" $OUT/run3-lab-reduce_scalar.log | cut -c1-150
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
