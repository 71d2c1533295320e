#!/usr/bin/env bash
# Session 25, run 10, WRITTEN FOR THE NEXT SESSION, NOT RUN (carry dist/main, bench/lab/build): lab elementwise_path,
# section reqntid: the replica declared .reqntid 128 (Inductor's PTX) against .maxntid 128, on the 64M bf16 relu and
# add and the 256M half adds (behind in both of run 7's processes) and the 64M f16 relu, three rounds.
# Before: bench/lab/build.sh elementwise_bulk.cu elementwise_path.cu, and a wheel of main in dist/main (./bazelw build
# --config=nvidia //python:wheel; cp bazel-bin/python/wheel/*.whl dist/main/).
set -u
R=/tmp/r10; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py reqntid 3 > $R/run10-lab-elementwise_path.log 2> $R/run10.stderr
echo "exit $?"
grep -v "^wrote" $R/run10-lab-elementwise_path.log | sed -E "s/p20 +[0-9.]+ //; s/p80 +[0-9.]+ //; s/  +/ /g"; grep -v Warning $R/run10.stderr | tail -4
tar czf $OUT/run10.tgz -C $R .
