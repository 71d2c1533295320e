#!/usr/bin/env bash
# Session 25, run 1 (carry bench/lab/build): lab elementwise_bulk (bench/lab/elementwise_bulk.py): copy, relu and
# add moved by the bulk-copy engine (cp.async.bulk, a chunk per instruction) against the library's contiguous
# kernel, torch eager and torch.compile, interleaved in one measure_many per round, two rounds.
set -u
R=/tmp/r1; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
export TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_bulk.py 2 > $R/run1-lab-elementwise_bulk.log 2> $R/run1.stderr
echo "exit $?"
grep -v "^wrote" $R/run1-lab-elementwise_bulk.log | cut -c1-150; tail -5 $R/run1.stderr
tar czf $OUT/run1.tgz -C $R .
