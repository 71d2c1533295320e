#!/usr/bin/env bash
# Session 21, run 2 (carry dist/main): lab device_idle -- the library's kernels (main's sm_90 wheel) and torch's,
# each in homogeneous loops with the device busy or idle (300 us) before the flush and/or before the call, two
# rounds, then the row's implementations interleaved as run_ops times them.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv,noheader
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl && echo installed
cd bench/lab && PYTHONPATH=/tmp/site timeout 400 python3 device_idle.py 2>&1 | grep -v "^wrote" | tee $OUT/run2-lab-device_idle.log | tail -60
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader
