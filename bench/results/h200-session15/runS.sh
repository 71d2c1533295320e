#!/usr/bin/env bash
# Session 15, the final pair's run 1 of 2 (carry dist/main, .q1, .whl1): installs the final sm_90 wheel into
# /tmp/oprt-site and stages the first half of QuACK's cu13 libs with two of its wheels for runB.sh, which follows on
# the same warm machine (the upload limit keeps them apart).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 /tmp/whl1 && cp .q1/cu13.part.aa /tmp/q1/ && cp .whl1/*.whl /tmp/whl1/ && ls /tmp/q1 /tmp/whl1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
