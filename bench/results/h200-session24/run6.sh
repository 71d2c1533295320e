#!/usr/bin/env bash
# Session 24, run 6 (carry dist/main): lab elementwise_ptx (bench/lab/elementwise_ptx.py): torch.compile's Triton
# sources, PTX and SASS for the 64M copy (f16, f32), relu and add (f16) rows, our contiguous kernels' SASS beside
# them, and ncu's duration, DRAM and L2 bytes and instruction count of each kernel right after a 256 MB flush
# (ncu leaves the caches and clocks alone), three rounds of flush, ours, flush, torch.compile's per row.
# Ran as three calls: the first two lost their files to the device tool's limit on the number of files returned;
# this is the third, which packs everything into run6.tgz. Its ncu run hit the 200 s timeout while profiling the
# last kernel of the third round (46 kernels recorded; the last row's pair is incomplete).
set -u
R=/tmp/r6; rm -rf $R; mkdir -p $R
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
export PYTHONPATH=/tmp/site TRITON_CACHE_DIR=/tmp/triton-cache
cd bench/lab && OUT=$R timeout 100 python3 elementwise_ptx.py 2>&1 | tail -1
timeout 200 ncu --cache-control none --clock-control none -k regex:'contiguous_kernel|triton_poi' \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum \
  --csv python3 elementwise_ptx.py --ncu-calls > $R/run6-ncu.csv 2> $R/run6-ncu.stderr
echo "ncu $?"
cuobjdump -sass /tmp/site/operator_runtime/libcamp_ops.so 2>/dev/null \
  | awk '/Function : .*contiguous_kernel/{p=1} /Function : /{if($0 !~ /contiguous_kernel/)p=0} p' > $R/run6-ours-contiguous.sass
for f in $R/triton/*.cubin; do cuobjdump -sass $f > $R/run6-$(basename $f .cubin).sass; done
rm -f $R/triton/*.cubin
tar czf $OUT/run6.tgz -C $R .
