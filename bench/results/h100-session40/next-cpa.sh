#!/usr/bin/env bash
# Written in session 40, not run (no machine was lent). Any card; carry dist/final (main), dist/cpa128, dist/cpa256,
# dist/v32 (about 20 MB; rebuild a folder if gone: from main, `git apply cand-cpa.patch`, kSharedAsyncThreads in
# ops/softmax/nvidia/tuning.cuh 128 or 256, `./bazelw build --config=nvidia //python:wheel`, bazel-bin/python/wheel/*.whl
# and .whl2's liger wheel into it, `git checkout ops`). Softmax's nvidia tests from the cpa128 wheel (x -> y
# checked against torch on every case; -x stops at the first failure), then ../h100-session38/next-ab.sh's run_ops
# A/B against main (three rounds, builds rotated; Liger the peer, QuACK too where /tmp/site has it) on the rows past
# 8 KiB, the f32 rows (which no candidate changes) as the noise control:
#   cpa128 / cpa256: cand-cpa.patch: half rows past 8 KiB (8192 and 16384 columns) cached in shared memory by
#                    cp.async (the shared-memory tier's kernel with kAsyncCopy: no register staging, 32 registers, so
#                    as many rows are in flight per SM as the shared memory holds, up to 13 of 16 KB), a block per
#                    row of 128 or 256 threads. QuACK's load path; its thread shape (128) lost in registers (session 38).
#   v32:             ../h100-session37/cand-v32.patch (256 x 4 packs in registers; 0.999x main on the H100).
# On an H200 run it after the record; AB_BUDGET_S shortens it when device time is short.
set -u
export OUT=${1:?}
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/cpa128/operator_runtime*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 120 python3 -m pytest -q -x -p no:cacheprovider \
  ops/softmax/ > $OUT/tests-cpa128.log 2>&1; echo "tests exit $?: $(tail -n 1 $OUT/tests-cpa128.log)"
AB_CANDIDATES=dist/cpa128,dist/cpa256,dist/v32 AB_SHAPES=${AB_SHAPES:-8192x8192,4096x16384} \
  AB_BUDGET_S=${AB_BUDGET_S:-360} bash "$(dirname "$0")/../h100-session38/next-ab.sh" "$OUT"
