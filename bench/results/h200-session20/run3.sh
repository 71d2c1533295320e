#!/usr/bin/env bash
# Session 20, run 3 (carry bench/lab/build): lab softmax_short --session20, half rows of 512 with cache hints on the
# library's tile shape and math (loads plain / .cs / L2 evict-first policy, stores plain / .cs), three rounds.
set -u
cd bench/lab
timeout 200 python3 softmax_short.py --session20 > $OUT/run3-lab-softmax_short.log 2>&1; echo "exit $?"
grep "p50" $OUT/run3-lab-softmax_short.log | sed 's/  best peer.*//' | cut -c1-140
