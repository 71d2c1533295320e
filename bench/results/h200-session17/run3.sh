#!/usr/bin/env bash
# Session 17, run 3 (carry bench/lab/build with reduce_slices' cubin): lab reduce_slices: slices of B x U x E values
# loaded at once (torch.compile's 512 x 4 x 4 among them) for the row sums we trail and the 64M whole sums' first
# pass, against the library's streamed kernel and torch.compile in the same run, three rounds.
set -u
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 420 python3 reduce_slices.py > $OUT/run3-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run3-lab-reduce_slices.log | grep -E "round 0|this run" | cut -c1-150
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run3-$(basename "$f")"; done
