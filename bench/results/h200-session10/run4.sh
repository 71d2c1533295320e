#!/usr/bin/env bash
# Session 10, run 4: lab reduce_tile (half row sums of 256 and 512 columns: tile kernels against the library's
# streamed group kernel and torch.compile in the same run). Carry: bench/lab/build.
set -u
cd bench/lab && timeout 300 python3 reduce_tile.py > $OUT/lab-reduce_tile.log 2>&1; echo "lab exit $?"
grep -v "^ " $OUT/lab-reduce_tile.log | cut -c1-150 | tail -50
