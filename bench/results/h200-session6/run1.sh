#!/usr/bin/env bash
# Session 6, device run 1: our wheel; every test file on nvidia (the mailbox cluster tier, the (splits, rows)
# split-row grid); the softmax_long (--session6) and reduce_split labs; ours against torch eager, torch.compile
# and Liger on the softmax, log_softmax and reduce_sum rows (QuACK: recorded numbers only in this run).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl 2>&1 | tail -1
tools/gpu_suites.sh /tmp/oprt-main $OUT/suite nvidia > $OUT/suite.txt 2>&1
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -60
(cd $OUT && tar czf suite.tgz suite suite.txt && rm -rf suite)
LAB_TIMEOUT_S=120 bench/lab/run_all.sh reduce_split
(cd bench/lab && PYTHONUNBUFFERED=1 timeout 150 python3 softmax_long.py --session6 > $OUT/lab-softmax_long-session6.log 2>&1; echo "softmax_long session6: exit $?")
grep -E "^ *(softmax|log_softmax|  )|us" $OUT/lab-softmax_long-session6.log | tail -40
tail -30 $OUT/lab-reduce_split.log
PYTHONPATH=/tmp/site:/tmp/oprt-main:$PWD timeout 240 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax,reduce_sum \
  --peers torch_eager,torch_compile,liger --json $OUT/ours-run1.json > $OUT/ours-run1.log 2>&1; echo "bench exit $?"
tail -n 45 $OUT/ours-run1.log
