#!/usr/bin/env bash
# Session 22, call 1 of the pair (carry dist/main, .q1): installs main's wheel (run_ops now resets the L2's persisting
# lines before every flush by default) into /tmp/oprt-site and stages the first half of QuACK's cu13 libs for run2B.sh.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && ls /tmp/q1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
