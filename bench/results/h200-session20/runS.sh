#!/usr/bin/env bash
# Session 20, call 1 of the pair (carry dist/main, .q1, bench/lab/build): installs main's sm_90 wheel into
# /tmp/oprt-site and stages the first half of QuACK's cu13 libs for runB.sh, which must follow on the same warm
# machine (the upload limit keeps them apart; .whl1 travels with runB this time, to leave room for the lab's
# cubins here). Then two labs:
#   load_policy: the library's 64M whole-sum and streamed row kernels with evict-first against plain loads,
#                torch.compile interleaved (DeviceTimer.measure_many), three rounds;
#   elementwise_inflight index32: torch eager's 32-bit, loop-free indexing on the rows it leads by 0.2-0.3%.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && ls /tmp/q1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
cd bench/lab
timeout 240 python3 load_policy.py > $OUT/run1-lab-load_policy.log 2>&1; echo "load_policy exit $?"
grep -v "^wrote" $OUT/run1-lab-load_policy.log | sed 's/  best peer.*//' | tail -42
timeout 150 python3 elementwise_inflight.py index32 > $OUT/run1-lab-elementwise_inflight.log 2>&1
echo "elementwise_inflight exit $?"; grep "^summary" $OUT/run1-lab-elementwise_inflight.log | cut -c1-150
