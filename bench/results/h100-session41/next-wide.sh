#!/usr/bin/env bash
# Written in session 41, not run. Any card, after the record when on an H200 (QuACK joins where /tmp/site has it);
# carry dist/final (main) and dist/wide (cand-wide.patch's wheel with .whl2's liger wheel; rebuild: from main,
# `git apply cand-wide.patch`, `./bazelw build --config=nvidia //python:wheel`, `git checkout ops`).
# cand-wide.patch: the cp.async tier (merged this session for half rows of 8192 columns up to 32 KiB) for shorter
# rows too: half rows of 8 KiB (4096 columns: the block-register tier today) and f32 rows of 16-32 KiB (4096
# columns: the 256-thread shared-memory tier; 8192: the block-register tier), where the rows fill the SMs; f32 in
# 40 registers. The rows it changes in issue 11's matrix: 4096x4096 f16 / bf16 / f32 (ties on both cards), f32
# 8192x8192; the half 8192x8192 rows take the same kernel in both builds (the noise control).
set -u
export OUT=${1:?}
rm -rf /tmp/wide-site && python3 -m pip install -q --no-index --no-deps --target /tmp/wide-site dist/wide/operator_runtime*.whl
# Every softmax case against torch first (f32 133x6144 and 133x8192, half 1024x4096 take the new rows); -x stops early.
PYTHONPATH=/tmp/wide-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 120 python3 -m pytest -q -x -p no:cacheprovider \
  ops/softmax/ > $OUT/tests-wide.log 2>&1; echo "tests exit $?: $(tail -n 1 $OUT/tests-wide.log)"
AB_CANDIDATES=dist/wide AB_SHAPES=4096x4096,8192x8192 AB_BUDGET_S=${AB_BUDGET_S:-300} \
  bash "$(dirname "$0")/../h100-session38/next-ab.sh" "$OUT"
