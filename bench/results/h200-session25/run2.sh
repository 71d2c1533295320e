#!/usr/bin/env bash
# Session 25, run 2 (carry dist/main, bench/lab/build): lab elementwise_path (bench/lab/elementwise_path.py): the
# library's contiguous kernel reached through the lab (cupy) and through the library's API, each writing into one
# preallocated output and allocating per call, beside torch eager and torch.compile, interleaved, two rounds.
set -u
R=/tmp/r2; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py paths 2 > $R/run2-lab-elementwise_path.log 2> $R/run2.stderr
echo "exit $?"
grep -v "^wrote" $R/run2-lab-elementwise_path.log; grep -v Warning $R/run2.stderr | tail -4
tar czf $OUT/run2.tgz -C $R .
