#!/usr/bin/env bash
# Session 9, device run S: stage the first half of QuACK's cu13 libs (the next run, on the same warm
# machine, brings the rest and the peers' wheels: one upload holds 64 MiB), install our wheel, and run the
# lab that needs no peer:
# softmax_long --session9 (16-block clusters at 3 blocks per SM on 16 x 262144).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
(cd bench/lab && PYTHONPATH=/tmp/oprt-site timeout 200 python3 softmax_long.py --session9) > $OUT/lab-softmax_long-session9.log 2>&1
echo "lab exit $?"; grep -A20 "^summary" $OUT/lab-softmax_long-session9.log
