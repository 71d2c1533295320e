#!/usr/bin/env bash
# On the GPU machine, after tools/gpu_peers_site.sh install (the peers in /tmp/site): issue 11's full peer matrix
# from a folder holding our wheel, in PROCESSES separate run_ops processes one after another (default 2), then
# tools/bench_replicas.py over them, which calls a row behind only where every process has it behind by its
# paired interval (bench/peers-method.md). Run from a checkout:
#   tools/gpu_peers_bench.sh WHEEL_DIR OUT [PROCESSES [RUN_OPS_ARGS...]]
# Leaves OUT/<gpu>-peers-replicas.md (the side-by-side table) and OUT/<gpu>-peers-runs.tgz (each process's JSON, log
# and stderr: the device tool returns a limited number of files), <gpu> the card's model from its name (h200, h100).
# One full run takes about 130-200 s on the H200.
set -u
[ $# -ge 2 ] || { echo "usage: $0 WHEEL_DIR OUT [PROCESSES [RUN_OPS_ARGS...]]"; exit 2; }
WHEELS=$1 OUT=$2 PROCESSES=${3:-2}
shift $(($# < 3 ? $# : 3))
[ -d /tmp/site ] || { echo "no peers in /tmp/site: run tools/gpu_peers_site.sh first"; exit 3; }
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site "$WHEELS"/*.whl || exit $?
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
python3 -c "import operator_runtime, liger_kernel, quack; print('operator_runtime from', operator_runtime.__file__)" || exit 3
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
GPU=$(grep -oiE '\b[A-Z][0-9]{2,3}\b' <<< "$CARD" | head -1 | tr A-Z a-z)
GPU=${GPU:-gpu}
echo "device: $CARD -> files named $GPU-peers-*"
runs=()
for ((i = 1; i <= PROCESSES; i++)); do
  timeout 290 python3 tools/run_ops.py --mode bench --backend nvidia --json "$OUT/$GPU-peers-$i.json" "$@" \
    > "$OUT/$GPU-peers-$i.log" 2> "$OUT/$GPU-peers-$i.stderr"
  echo "process $i: exit $?"
  grep -A3 "== summary" "$OUT/$GPU-peers-$i.log" | tail -3
  runs+=("$GPU-peers-$i.json" "$GPU-peers-$i.log" "$GPU-peers-$i.stderr")
done
(cd "$OUT" && python3 "$OLDPWD/tools/bench_replicas.py" "$GPU"-peers-[0-9]*.json --markdown "$GPU"-peers-replicas.md \
  && tail -1 "$GPU"-peers-replicas.md && tar czf "$GPU"-peers-runs.tgz "${runs[@]}" && rm -f "${runs[@]}")
