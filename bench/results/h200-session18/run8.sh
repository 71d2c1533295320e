#!/usr/bin/env bash
# Session 18, run 8 (written for the next device session; carry dist/main, bench/lab/build): compute-sanitizer
# (memcheck, racecheck, synccheck) over reduce_sum's cases from the sm_90 wheel, sum_slices and the resized second
# pass among them (20480004), then run 7 (lab reduce_slices placement).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
MEMCHECK_S=150 RACECHECK_S=90 SYNCCHECK_S=60 THREADS_S=30 tools/gpu_sanitize.sh $OUT/run8-sanitize.log > /dev/null 2>&1
echo "sanitize exit $?"; tail -5 $OUT/run8-sanitize.log
bash bench/results/h200-session18/run7.sh
