#!/usr/bin/env bash
# Session 13, run 1 (carry dist/main): installs the wheel into /tmp/oprt-site, then two labs:
# launch_latency (where our call's wall time above its device time goes, on the profiler's host and device
# timelines, fresh and after torch.compile) and softmax_neighbour (the kernel before the flush, and the cluster
# tier's structure as a plain copy).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
cd bench/lab
PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 200 python3 launch_latency.py > $OUT/run1-launch_latency.log 2>&1
echo "launch_latency exit $?"; grep -v "^\s*$" $OUT/run1-launch_latency.log | grep -v Warning | tail -40
PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 300 python3 softmax_neighbour.py > $OUT/run1-softmax_neighbour.log 2>&1
echo "softmax_neighbour exit $?"; grep -v "^\s*$" $OUT/run1-softmax_neighbour.log | tail -60
