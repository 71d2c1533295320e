#!/usr/bin/env bash
# Session 25, run 3 (carry dist/main, bench/lab/build): lab elementwise_path, section replica: Inductor's pointwise
# kernel written in CUDA (elementwise_path.cu) in 128- and 256-thread blocks, beside torch.compile, torch eager, the
# library's kernel launched by the lab and ours through the API, every one allocating its output, three rounds.
set -u
R=/tmp/r3; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py replica 3 > $R/run3-lab-elementwise_path.log 2> $R/run3.stderr
echo "exit $?"
grep -v "^wrote" $R/run3-lab-elementwise_path.log; grep -v Warning $R/run3.stderr | tail -4
cuobjdump -sass build/elementwise_path.cubin > $R/run3-replica.sass 2>&1
tar czf $OUT/run3.tgz -C $R .
