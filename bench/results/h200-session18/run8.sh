#!/usr/bin/env bash
# Session 18, run 8 (written for the next device session; carry dist/main): tools/gpu_sanitize.sh (memcheck,
# racecheck, synccheck, then the threaded tests; about 8 minutes) from the sm_90 wheel, its selection now reaching
# sum_slices and the resized second pass (20480004). Run 7 (the placement lab) goes in a call of its own.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
tools/gpu_sanitize.sh $OUT/run8-sanitize.log > /dev/null 2>&1
echo "sanitize exit $?"; tail -5 $OUT/run8-sanitize.log
