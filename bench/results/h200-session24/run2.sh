#!/usr/bin/env bash
# Session 24, run 2 (carry dist/main): lab launch_gap (bench/lab/launch_gap.py) from main's wheel: the rows we trail
# torch.compile / torch eager by 0.2-1.4%, ours and the torch peers interleaved, under run_ops's loop, with every
# call queued before its flush starts, and with every call 300 us after its flush; the gap from the flush's end to
# each call's first kernel.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
cd bench/lab && PYTHONPATH=/tmp/site timeout 480 python3 launch_gap.py 50 2>$OUT/run2-lab-launch_gap.stderr \
  | tee $OUT/run2-lab-launch_gap.log | grep -v "^wrote"
echo "exit ${PIPESTATUS[0]}"; tail -5 $OUT/run2-lab-launch_gap.stderr
