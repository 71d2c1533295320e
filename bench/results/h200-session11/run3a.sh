#!/usr/bin/env bash
# Session 11, run 3a: the wheel, Liger and the first half of QuACK's cu13 libs staged for run 3b (runB.sh again:
# a second full peer benchmark from the same wheel, for the run-to-run spread of the interleaved method).
set -u
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl 2>&1 | tail -1
