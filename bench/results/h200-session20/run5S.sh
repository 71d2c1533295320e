#!/usr/bin/env bash
# Session 20, run 5, call 1 of 2 (carry dist/main, .q1): the candidate's sm_90 wheel (the softmax tile tier reading
# inputs up to 16 MiB with evict-first loads) into /tmp/oprt-site, and half of QuACK's libs staged for run5B.sh.
set -u
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && ls /tmp/q1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
