#!/usr/bin/env bash
# Session 7, device run 7: ncu on the rewritten cluster column tier and on reduce_sum's 16-block clusters.
set -u
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
export PYTHONPATH=/tmp/oprt-main:$PWD
mkdir -p $OUT/ncu
for row in "softmax 4096x4096 float16 axis=0" "softmax 1024x32768 float16 axis=0" "reduce_sum 128x131072 float32 axis=-1"; do
  name=$(echo $row | tr ' =' '_-')
  timeout 50 ncu --profile-from-start off --clock-control none $S python3 bench/ncu_rows.py $row > $OUT/ncu/$name.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Max Active Clusters|Issued Warp" $OUT/ncu/$name.txt | head -8
done
