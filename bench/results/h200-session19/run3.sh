#!/usr/bin/env bash
# Session 19, run 3 (carry bench/lab/build with elementwise_inflight's and reduce_slices' cubins): lab
# elementwise_inflight round 2 (K packs a thread at once for gelu, vector_add, relu, copy; three rounds), then
# session 18's run 7, lab reduce_slices' placement section.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 300 python3 elementwise_inflight.py round2 > $OUT/run3-lab-elementwise_inflight.log 2>&1)
echo "elementwise_inflight exit $?"; grep "^summary" $OUT/run3-lab-elementwise_inflight.log | cut -c9-; grep -A12 Traceback $OUT/run3-lab-elementwise_inflight.log | tail -12
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 240 python3 reduce_slices.py placement > $OUT/run3-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run3-lab-reduce_slices.log | grep "round 0" | cut -c30-160
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
