#!/usr/bin/env bash
# Written in session 34, not run (no device time left): torch.compile's persistent reductions for the short rows load
# plainly (no eviction policy: inductor_code.log.xz), where our tile kernel loads evict-first. A/B through run_ops of
# main against cand-tile-plain.patch (sum_rows_in_tiles with PlainLoad), on any card. From a checkout: main's wheel in
# dist/final, the patched build's in dist/tileplain (git apply the patch, ./bazelw build --config=nvidia //python:wheel);
# carry dist/final, dist/tileplain. Session 31's lab had plain loads 15-25% slower on the H100's 8 KB rows (another
# kernel), so this may well lose; the f32 rows (not tiles) are the control.
export OUT=$1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 tools/gpu_ab.sh dist/final dist/tileplain $OUT 3 --op reduce_sum --peers torch_compile \
  --shapes 16384x256,8192x512 2>&1 | tail -n 10
# The lab's plain-load forms beside (bench/lab/build.sh reduce_tile.cu; carry bench/lab/build/reduce_tile.cubin).
(cd bench/lab && timeout 120 python3 reduce_tile.py 2 > $OUT/lab-reduce_tile.log 2>&1; echo "lab exit $?")
grep -E "round 1 .*(today|plain|torch.compile)" $OUT/lab-reduce_tile.log | sed 's/  */ /g' | cut -c1-150
