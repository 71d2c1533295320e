#!/usr/bin/env bash
# Session 23, run 8 (carry dist/main2): compute-sanitizer memcheck, racecheck and synccheck over the reduce_sum cases
# that reach the slice kernel's row tiers (601 rows of 8192 f32, of 4096 f32 and of 8192 half values: session 22's
# one-slice rows and session 23's 16 KB rows, not reached by gpu_sanitize.sh's selection before), then the thread
# tests on nvidia, through tools/gpu_sanitize.sh with its selections narrowed to them.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main2/*.whl || exit $?
MEMCHECK_K="601x" SHARED_K="601x" tools/gpu_sanitize.sh $OUT/run8-sanitize.log | tail -8
