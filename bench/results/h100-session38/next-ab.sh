#!/usr/bin/env bash
# Written in session 38; ran in session 39 on an H100 (../h100-session39/: ol slower, olv32 level with v32, v32
# 0.999 of main). The A/B of softmax's block-register tier, any card (on an H200 after the record: h200-a.sh,
# ../h100-session36/next-b.sh, a second process; QuACK joins as a peer where /tmp/site has it).
# Carry dist/final (main), dist/v32, dist/ol, dist/olv32, liger's wheel in each (about 20 MB). Builds:
#   v32:   ../h100-session37/cand-v32.patch: rows past 8 KiB in 256 threads x 4 packs (H100: faster than main in
#          seven rounds of seven, 0.998-0.999; never timed on an H200, where session 5's lab had main's 512 x 2 fastest)
#   ol:    cand-ol.patch: the tier online, as QuACK's softmax is: each thread's values exponentiated against its own
#          max, one block reduction of (max, sum) pairs instead of two (the max's, then the sum's); 31-32 registers.
#          With cand-shol.patch: the shared-memory tier online too (f32 4096x4096's rows: the row cached with
#          online stats, one block reduction, one pass over the cache fewer; f32 40 registers, half 32 with 16-24
#          bytes of stack, f64 58-64)
#   olv32: cand-olv32.patch + cand-shol.patch: ol's and v32's changes together (56-64 registers, no spills)
# Rebuild a folder if gone: from main, `git apply` its patch, `./bazelw build --config=nvidia //python:wheel`,
# bazel-bin/python/wheel/*.whl and .whl2's liger wheel into it, `git checkout ops`. Three rounds, builds rotated,
# about 7 min; AB_BUDGET_S keeps the summary and the archive inside the call's limit.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
peers=liger
if [[ -d /tmp/site ]]; then
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
  peers=quack,liger
fi
# AB_CANDIDATES and AB_SHAPES narrow it (session 39: ../h100-session39/README.md's H200 call for v32 alone).
AB_BUDGET_S=${AB_BUDGET_S:-480} tools/gpu_ab.sh dist/final ${AB_CANDIDATES:-dist/v32,dist/ol,dist/olv32} "$OUT" 3 \
  --op softmax,log_softmax --shapes ${AB_SHAPES:-4096x4096,8192x8192,32768x1024} --peers $peers 2>&1 | tail -24
