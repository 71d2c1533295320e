#!/usr/bin/env bash
# Session 16, run 2 (carry bench/lab/build with reduce_scalar's cubin): lab reduce_scalar --session16: the first pass
# of a 64M whole sum in slices of other shapes, a second pass loading every partial at once, and the same slices as
# the row kernel of 8192 x 8192 / 4096 x 4096 row sums.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 420 python3 reduce_scalar.py --session16 > $OUT/run2-lab-reduce_scalar.log 2>&1)
echo "reduce_scalar exit $?"; grep -E "p50|kernels" $OUT/run2-lab-reduce_scalar.log | cut -c1-150
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run2-$(basename "$f")"; done
