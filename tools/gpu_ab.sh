#!/usr/bin/env bash
# On a GPU machine: an A/B of two builds through run_ops's own process, in one lease. Labs and run_ops have timed the
# same kernel 4-5% apart, and a lab's ranking has reversed in run_ops (bench/notes/softmax-tuning.md, "Session 20"),
# so a candidate is judged here before it is merged. Installs each wheel folder (pip --target), then runs
#   tools/run_ops.py --mode bench --backend nvidia RUN_OPS_ARGS...
# ROUNDS times per build in the order base, cand, cand, base, ... (each build first as often as second), writing
# OUT/ab-<i>-<base|cand>.json, and prints each row's p50s by build and the median change. Run from a checkout:
#   tools/gpu_ab.sh BASE_WHEELS CAND_WHEELS OUT ROUNDS RUN_OPS_ARGS...
#   e.g. tools/gpu_ab.sh dist/main dist/cand $OUT 2 --op softmax --peers torch_eager
set -u
BASE=$1; CAND=$2; OUT=$3; ROUNDS=$4; shift 4
for which in base cand; do
  dir=$BASE; [ $which = cand ] && dir=$CAND
  rm -rf /tmp/ab-$which && python3 -m pip install -q --no-index --no-deps --target /tmp/ab-$which "$dir"/*.whl || exit $?
done
i=0
for ((r = 0; r < ROUNDS; r++)); do
  order="base cand"; [ $((r % 2)) = 1 ] && order="cand base"
  for which in $order; do
    PYTHONPATH=/tmp/ab-$which:$PWD python3 tools/run_ops.py --mode bench --backend nvidia "$@" \
      --json "$OUT/ab-$i-$which.json" > "$OUT/ab-$i-$which.log" 2>&1
    echo "run $i ($which): exit $?"; i=$((i + 1))
  done
done
python3 - "$OUT" <<'PY'
import glob, json, statistics, sys

by_row = {}
for path in sorted(glob.glob(sys.argv[1] + "/ab-*.json"), key=lambda p: int(p.rsplit("/", 1)[1].split("-")[1])):
    which = path.rsplit("-", 1)[1][:-len(".json")]
    for r in json.load(open(path))["results"]:
        by_row.setdefault((r["op"], r["case"]), {"base": [], "cand": []})[which].append(r["ours_us"])
changes = []
print("%-12s %-38s %-24s %-24s %s" % ("op", "case", "base p50s (us)", "cand p50s (us)", "cand / base"))
for (op, case), runs in by_row.items():
    if not runs["base"] or not runs["cand"]:
        continue
    change = statistics.median(runs["cand"]) / statistics.median(runs["base"])
    changes.append(change)
    print("%-12s %-38s %-24s %-24s %.3f" % (op, case, " ".join("%.2f" % t for t in runs["base"]),
                                              " ".join("%.2f" % t for t in runs["cand"]), change))
if changes:
    print("median cand / base over %d rows: %.3f (below 1: the candidate is faster)" % (len(changes),
                                                                                     statistics.median(changes)))
PY
