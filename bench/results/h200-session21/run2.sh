#!/usr/bin/env bash
# Session 21, run 2 (carry dist/main, bench/lab/build): lab flush_state -- the library's kernels (main's sm_90 wheel)
# and torch's in homogeneous loops, two rounds: with the device busy, or idle 300 us before the flush or before the
# call; and with a kernel that leaves evict_last (or plain) lines in L2, or torch.compile's looped softmax, run
# right before every flush.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv,noheader
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl && echo installed
cd bench/lab && PYTHONPATH=/tmp/site timeout 420 python3 flush_state.py 2>&1 | grep -v "^wrote" | tee $OUT/run2-lab-flush_state.log | tail -100
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader
