#!/usr/bin/env bash
# Session 20, run 4 (carry bench/lab/build): lab softmax_short --session20b, plain against L2 evict-first loads on
# every tile shape the library launches (the library's tile kernel beside them where the lab has it), three rounds.
set -u
cd bench/lab
timeout 240 python3 softmax_short.py --session20b > $OUT/run4-lab-softmax_short.log 2>&1; echo "exit $?"
grep "p50" $OUT/run4-lab-softmax_short.log | sed 's/  best peer.*//;s/  (p20.*//' | cut -c1-110
