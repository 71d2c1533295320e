#!/usr/bin/env bash
# Session 11, run 1: is the 4096x4096 f16 gap a state of run_ops's process? Lab compile_state (ours, Liger and a
# copy of the same bytes, timed before and after torch.compile's first call), then run_ops on the 4096x4096 softmax
# rows with Liger alone and with torch.compile and Liger (carry dist/main; .whl travels untracked).
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl 2>&1 | tail -1
export PYTHONPATH=/tmp/site:/tmp/oprt-site:$PWD
(cd bench/lab && OUT=$OUT timeout 200 python3 compile_state.py) 2>&1 | grep -v Warning | tee $OUT/run1-compile_state.log
for peers in liger torch_compile,liger; do
  timeout 150 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax --cases 4096x4096 --peers $peers \
    --json $OUT/run1-rows-$peers.json > $OUT/run1-rows-$peers.log 2>/dev/null; echo "bench ($peers) exit $?"
  grep -E "^softmax " $OUT/run1-rows-$peers.log
done
