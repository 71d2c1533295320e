#!/usr/bin/env bash
# Session 35 call 7 (carry dist/final, dist/tilephase, .s35): run_ops A/B of main against tilephase
# (cand-tilephase.patch: tile2's 2 rows a group in 64-thread blocks, each row's loads then its adds, so that the
# second row's loads wait for the first's data, as ptxas compiled the lab's fast tile), 8192x512, two rounds.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 125 tools/gpu_ab.sh dist/final dist/tilephase $OUT 2 --op reduce_sum --peers torch_compile \
  --shapes 8192x512 2>&1 | tail -n 6
