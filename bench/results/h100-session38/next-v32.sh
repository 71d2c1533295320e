#!/usr/bin/env bash
# Written in session 38, not run. On an H200, after the record (h200-a.sh, ../h100-session36/next-b.sh, a second
# process): session 37's v32 (softmax rows past 8 KiB in 256 threads x 4 packs; ../h100-session37/cand-v32.patch)
# against main, three rounds, builds rotated (carry dist/final and dist/v32, liger's wheel in each). On the H100 it
# was faster than main in all six rounds of sessions 37-38 by 0.1-0.35 us on 8192x8192; session 5's H200 lab had
# 512 x 2 (main's shape) fastest there. About 4 min; AB_BUDGET_S keeps the summary inside the call's limit.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
AB_BUDGET_S=330 tools/gpu_ab.sh dist/final dist/v32 "$OUT" 3 --op softmax,log_softmax \
  --shapes 4096x4096,8192x8192,32768x1024 --peers liger 2>&1 | tail -16
