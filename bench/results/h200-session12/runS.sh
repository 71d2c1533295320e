#!/usr/bin/env bash
# Session 12, final pair, run 1 of 2 once the working tree had grown past what runB.sh's second half of QuACK's libs
# plus all the peers' wheels leave room for (carry dist/main; .q1 and two of QuACK's wheels in .whl travel
# untracked): installs the wheel runC.sh's suites passed with into /tmp/oprt-site and stages the first half of
# QuACK's cu13 libs and those wheels for runB.sh, which follows on the same machine.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 /tmp/whl1 && cp .q1/cu13.part.aa /tmp/q1/ && cp .whl/*.whl /tmp/whl1/ && ls /tmp/q1 /tmp/whl1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
