#!/usr/bin/env bash
# Session 11, run 2: lab call_overhead (where a call of ours spends its host time in run_ops's wall loop).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
(cd bench/lab && OUT=$OUT timeout 200 python3 call_overhead.py) 2>&1 | grep -v Warning | tee $OUT/run2-call_overhead.log
