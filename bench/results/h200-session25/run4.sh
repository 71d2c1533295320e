#!/usr/bin/env bash
# Session 25, run 4 (carry dist/main, bench/lab/build): lab elementwise_path, section packed: Inductor's pointwise
# kernel with its half math (packed_*: __hadd2, relu as one compare) in f16 and bf16, beside torch.compile, torch
# eager, the library's kernel launched by the lab and ours through the API, every one allocating its output, 3 rounds.
set -u
R=/tmp/r4; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 420 python3 elementwise_path.py packed 3 > $R/run4-lab-elementwise_path.log 2> $R/run4.stderr
echo "exit $?"
grep -v "^wrote" $R/run4-lab-elementwise_path.log | grep -E "ours|packed|replica" | sed -E "s/p20 +[0-9.]+ //; s/p80 +[0-9.]+ //; s/  +/ /g"; grep -v Warning $R/run4.stderr | tail -4
cuobjdump -sass build/elementwise_path.cubin > $R/run4-replica.sass 2>&1
tar czf $OUT/run4.tgz -C $R .
