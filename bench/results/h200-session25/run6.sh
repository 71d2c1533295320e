#!/usr/bin/env bash
# Session 25, run 6 (carry dist/main, bench/lab/build): lab elementwise_path, section cubin: Inductor's own cubin
# for the 64M f16 add, relu and copy launched by cupy (as the lab launches), beside torch.compile, ours and the CUDA
# replica of that kernel, every one allocating its output, three rounds.
set -u
R=/tmp/r6; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py cubin 3 > $R/run6-lab-elementwise_path.log 2> $R/run6.stderr
echo "exit $?"
grep -v "^wrote" $R/run6-lab-elementwise_path.log | sed -E "s/p20 +[0-9.]+ //; s/p80 +[0-9.]+ //; s/  +/ /g"; grep -v Warning $R/run6.stderr | tail -4
tar czf $OUT/run6.tgz -C $R .
