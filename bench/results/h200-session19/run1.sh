#!/usr/bin/env bash
# Session 19, run 1 (carry bench/lab/build with elementwise_inflight's cubin): lab elementwise_inflight: gelu with
# loads in flight during the math (256M values, torch eager and torch.compile in the same process), then the
# library's one-pack kernel in 128- and 256-thread blocks on the rows tied at the copy peak; three rounds each.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 420 python3 elementwise_inflight.py > $OUT/run1-lab-elementwise_inflight.log 2>&1)
echo "elementwise_inflight exit $?"; grep "^summary" $OUT/run1-lab-elementwise_inflight.log | cut -c9-; tail -3 $OUT/run1-lab-elementwise_inflight.log
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run1-$(basename "$f")"; done
