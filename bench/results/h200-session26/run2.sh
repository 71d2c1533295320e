#!/usr/bin/env bash
# Session 26, run 2 (carry dist/main, bench/lab/build): lab elementwise_path section reqntid again, now that
# elementwise_path.ptx.sed strips __block_size__'s cluster directives (run 1's .reqntid kernels were cluster
# launches, 1.8-2.6x slower), three rounds; section launches (grid, block, registers of each implementation's
# kernels); and torch's own elementwise loop headers, to read what torch eager's half add does.
# Before: bench/lab/build.sh elementwise_bulk.cu elementwise_path.cu; a wheel of main in dist/main.
set -u
R=/tmp/s26r2; rm -rf $R; mkdir -p $R/torch-headers
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee $R/gpu.txt
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
T=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
cp $T/include/ATen/native/cuda/{CUDALoops.cuh,MemoryAccess.cuh,thread_constants.h,Loops.cuh} $R/torch-headers/ 2>&1 | tail -2
(cd bench/lab && OUT=$R timeout 200 python3 elementwise_path.py launches > $R/run2-launches.log 2> $R/run2-launches.stderr)
echo "launches exit $?"; sed -E 's/registers per thread/regs/; s/est. achieved occupancy %/occ/' $R/run2-launches.log | cut -c1-230
(cd bench/lab && OUT=$R timeout 300 python3 elementwise_path.py reqntid 3 > $R/run2-reqntid.log 2> $R/run2-reqntid.stderr)
echo "reqntid exit $?"
grep -v "^wrote" $R/run2-reqntid.log | grep "replica\|ours" | sed -E "s/p20 +[0-9.]+ //; s/p80 +[0-9.]+ //; s/  +/ /g; s/ GB\/s//"
grep -v "Warning\|launch(\|_warn_once" $R/run2-*.stderr | tail -4
tar czf $OUT/run2.tgz -C $R .
