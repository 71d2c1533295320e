#!/usr/bin/env bash
# Written in session 37, not run (no device time left). The next lease's A/B, any card (carry dist/final = main's
# wheel, dist/v32ind, dist/v64, dist/ind4, each folder with .whl2's liger_kernel wheel beside ours; about 20 MB). Builds:
#   v32ind: cand-v32.patch + cand-ind.patch (softmax rows past 8 KiB in 256 threads x 4 packs; reduce_sum's 8 KB
#           rows in Inductor's shape, 512 threads x 2 loads of 8 bytes, 4 blocks per SM) - independent ops, one wheel
#   v64:    cand-v64.patch (softmax rows past 8 KiB in 128 threads x 8 packs, QuACK's shape)
#   ind4:   cand-ind4.patch (reduce_sum's 8 KB rows in 512 threads x 4 loads of 4 bytes)
#   add768, add640: cand-add768.patch, cand-add640.patch (vector_add's contiguous kernel in blocks of 768 threads,
#           1536 an SM, and 640, 1920 an SM, where session 27's H200 A/B chose 896, 1792 an SM; no liger wheel needed)
# Two rounds each, builds rotated; the half 8192x8192 softmax and 4096x4096 row sums, and the adds, are the rows that
# change (the others are controls). About 7 minutes in all. Carry dist/final, dist/v32ind, dist/v64, dist/ind4,
# dist/add768, dist/add640 (about 30 MB). Each folder, if gone: from main, `git apply` its patches (v32ind: both),
# `./bazelw build --config=nvidia //python:wheel`, bazel-bin/python/wheel/*.whl into the folder, `git checkout ops`.
set -u
export OUT=${1:?}
mkdir -p "$OUT/add"
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 280 tools/gpu_ab.sh dist/final dist/v32ind,dist/v64,dist/ind4 "$OUT" 2 --op softmax,reduce_sum \
  --shapes 8192x8192,4096x4096 --peers liger 2>&1 | tail -16
timeout 200 tools/gpu_ab.sh dist/final dist/add768,dist/add640 "$OUT/add" 2 --op vector_add \
  --shapes 67108864,268435456 --peers torch_eager,torch_compile 2>&1 | tail -10
