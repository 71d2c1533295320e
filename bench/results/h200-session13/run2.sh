#!/usr/bin/env bash
# Session 13, run 2 (carry dist/main, bench/lab/build): launch_latency again (run 1's parse matched the profiler's
# GPU copies of the spans), lab softmax_long --session13 (creo: each pack exponentiated as it lands, against a
# running max; creg and the library's kernel beside it), softmax_neighbour --structure-only (with ours allocating
# its output, as run_ops calls it).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
cd bench/lab
export PYTHONPATH=/tmp/oprt-site:$PWD/../..
timeout 200 python3 launch_latency.py > $OUT/run2-launch_latency.log 2>&1
echo "launch_latency exit $?"; grep -E "^==|host span|no launch" $OUT/run2-launch_latency.log
timeout 240 python3 softmax_long.py --session13 > $OUT/run2-lab-softmax_long.log 2>&1
echo "softmax_long exit $?"; grep -E "^(16x262144|128x131072)|summary|^  " $OUT/run2-lab-softmax_long.log | grep -v "^    ->" | head -60
timeout 120 python3 softmax_neighbour.py --structure-only > $OUT/run2-softmax_neighbour.log 2>&1
echo "softmax_neighbour exit $?"; grep -E "p50" $OUT/run2-softmax_neighbour.log
