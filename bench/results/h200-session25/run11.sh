#!/usr/bin/env bash
# Session 25, run 11, WRITTEN FOR THE NEXT SESSION, NOT RUN (carry dist/main, bench/lab/build): lab elementwise_path,
# section modes: every timed call's output address beside its device time (64M f16 copy, 256M f16 copy and add;
# torch.compile, torch eager, ours and the CUDA replica), three rounds: whether the fast / slow mode follows the address.
# Before: bench/lab/build.sh elementwise_bulk.cu elementwise_path.cu, and a wheel of main in dist/main (./bazelw build
# --config=nvidia //python:wheel; cp bazel-bin/python/wheel/*.whl dist/main/).
set -u
R=/tmp/r11; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py modes 3 > $R/run11-lab-elementwise_path.log 2> $R/run11.stderr
echo "exit $?"
grep "^modes" $R/run11-lab-elementwise_path.log | cut -c1-240; grep -v Warning $R/run11.stderr | tail -4
tar czf $OUT/run11.tgz -C $R .
