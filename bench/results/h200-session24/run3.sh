#!/usr/bin/env bash
# Session 24, run 3, first of three calls back to back (carry dist/main, .q1): main (reduce_sum's launch refactor
# 4f7e7db, run_ops's paired ratio f016637) installed into /tmp/oprt-site, every test file on nvidia from it
# (tools/gpu_suites.sh); stages the first third of QuACK's cu13 libs wheel in /tmp/q for run5.sh.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/q && cp .q1/cu13.part.* /tmp/q/ && ls /tmp/q
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl || exit $?
timeout 400 tools/gpu_suites.sh /tmp/oprt-site $OUT/run3-suites nvidia | tail -4
tar czf $OUT/run3-suites.tgz -C $OUT run3-suites && rm -rf $OUT/run3-suites
