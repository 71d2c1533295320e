#!/usr/bin/env bash
# Session 24, run 7 (carry dist/main, dist/lean): the contiguous kernel's prologue. Lab elementwise_ptx (run 6) has
# torch.compile's Triton kernel issue its load 10 instructions in and execute 14 a warp; ours issues it 38 in and
# executes 50 (a 64-bit grid-stride loop, the tail's checks). Branch session24-lean gives bandwidth-bound functors
# covering_kernel (a 32-bit index, no loop, the tail after the pack). A short A/B through run_ops (tools/gpu_ab.sh,
# two rounds, the 64M copy / relu / vector_add rows, torch eager the only peer): all the device time left.
set -u
timeout 200 tools/gpu_ab.sh dist/main dist/lean $OUT 2 --op copy,relu,vector_add --cases 67108864 --peers torch_eager \
  | tail -12
