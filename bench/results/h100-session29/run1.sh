#!/usr/bin/env bash
# Session 29, run 1, one device call (carry .whl2 and dist/main): issue 11's full matrix in one run_ops process from
# main's wheel, with torch eager, torch.compile and Liger-Kernel as peers. QuACK is absent: written when the device time left
# (machines refused for an hour) seemed too short for the three staged calls its 92 MB cu13 libs need
# (tools/gpu_peers_site.sh); they ran right after this call (run2.sh). The card is whichever the device tool lent (the files are named after it).
set -u
OUT=${OUT:?}
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE '\b[A-Z][0-9]{2,3}\b' | head -1 | tr A-Z a-z)
GPU=${GPU:-gpu}
rm -rf /tmp/site /tmp/oprt-site
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/liger_kernel-*.whl || exit $?
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl || exit $?
PYTHONPATH=/tmp/site:/tmp/oprt-site:$PWD timeout 270 python3 tools/run_ops.py --mode bench --backend nvidia --time_budget_s 200 \
  --json "$OUT/$GPU-peers.json" > "$OUT/$GPU-peers.log" 2> "$OUT/$GPU-peers.stderr"
echo "run_ops exit $?"
grep -A3 "== summary" "$OUT/$GPU-peers.log" | tail -3
tail -5 "$OUT/$GPU-peers.stderr"
