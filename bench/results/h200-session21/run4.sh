#!/usr/bin/env bash
# Session 21, run 4 (carry dist/main): lab flush_persist -- our 4096 x 4096 f16 softmax with and without torch.compile's
# kernel in the rounds, by run_ops's timer, one that synchronizes before each flush, and one that also calls
# cuCtxResetPersistingL2Cache before each flush.
set -u
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl
cd bench/lab && PYTHONPATH=/tmp/site timeout 150 python3 flush_persist.py 2>&1 | grep -v "^wrote" | tee $OUT/run4-lab-flush_persist.log | tail -30
