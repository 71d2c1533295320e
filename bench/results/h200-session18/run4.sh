#!/usr/bin/env bash
# Session 18, run 4 (carry bench/lab/build, .base, .cand): run 3 (the lab's whole sums with small second passes),
# then run 2's tests and timings with .cand from branch session18-wide at 1024 x 2-pack slices from 8 waves up and
# the partials' block sized to them (128-1024 threads of 4 packs), saved as run4-*.
set -u
sed 's/timeout 400/timeout 280/' bench/results/h200-session18/run3.sh | bash
bash bench/results/h200-session18/run2.sh
for f in $OUT/run2-*; do mv "$f" "$OUT/run4-${f#$OUT/run2-}"; done
