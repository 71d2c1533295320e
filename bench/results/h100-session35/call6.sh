#!/usr/bin/env bash
# Session 35 call 6 (carry dist/final, dist/tile2, dist/tile64, .s35): run_ops A/B of main against session 33's
# tile2 (16-lane groups: 2 rows a group, 64-thread blocks) and tile64 (the same, and 8-lane groups in 64-thread
# blocks), the shapes the A/A lab found 2.5-3.5% faster there; builds rotated, two rounds.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 400 tools/gpu_ab.sh dist/final dist/tile2,dist/tile64 $OUT 2 --op reduce_sum --peers torch_compile \
  --shapes 16384x256,8192x512 2>&1 | tail -n 10
