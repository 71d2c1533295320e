#!/usr/bin/env bash
# Session 39: v32's first H200 timing (carry dist/final, dist/v32), after the record on the same warm machine so
# QuACK (in /tmp/site) joins as a peer. v32 = ../h100-session37/cand-v32.patch: rows past 8 KiB in 256 threads x 4
# packs, faster than main on the H100 in seven rounds of seven; session 5's H200 lab had main's 512 x 2 fastest.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
peers=liger
if [[ -d /tmp/site ]]; then
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
  peers=quack,liger
fi
AB_BUDGET_S=${AB_BUDGET_S:-300} tools/gpu_ab.sh dist/final dist/v32 "$OUT" 3 \
  --op softmax,log_softmax --shapes 8192x8192,4096x16384 --peers $peers 2>&1 | tail -12
