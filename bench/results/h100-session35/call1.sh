#!/usr/bin/env bash
# Session 35 call 1 (carry dist/final, dist/tileplain, bench/lab/build/reduce_tile.cubin): session 34's tile-plain A/B
# on any card; on an H200 also the any-length rows from main's wheel (one process).
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader); echo "$card"
rounds=3; [[ $card == *H200* ]] && rounds=2
timeout 330 tools/gpu_ab.sh dist/final dist/tileplain $OUT $rounds --op reduce_sum --peers torch_compile \
  --shapes 16384x256,8192x512 2>&1 | tail -n 12
(cd bench/lab && timeout 100 python3 reduce_tile.py 2 > $OUT/lab-reduce_tile.log 2>&1; echo "lab exit $?")
grep -E "round 1 .*(today|plain|torch.compile)" $OUT/lab-reduce_tile.log | sed 's/  */ /g' | cut -c1-150
if [[ $card == *H200* ]]; then
  PYTHONPATH=/tmp/ab-base:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum \
    --peers torch_compile --shapes 4096x2560,4096x3072,4096x4096,4096x5120,4096x7680 --json $OUT/any-rows-1.json \
    > $OUT/any-rows-1.log 2>&1; echo "any-rows exit $?"; grep -E "^reduce_sum|ratio" $OUT/any-rows-1.log | head -20
fi
