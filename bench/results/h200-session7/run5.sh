#!/usr/bin/env bash
# Session 7, device run 5: the reduce_short lab's block sizes (the streamed short-row kernel in blocks of 32-256
# threads, one row per group).
set -u
(cd bench/lab && timeout 120 python3 reduce_short.py --blocks > $OUT/lab-reduce_short_blocks.log 2>&1; echo "lab exit $?")
grep "p50" $OUT/lab-reduce_short_blocks.log | cut -c1-120
