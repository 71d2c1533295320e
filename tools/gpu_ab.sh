#!/usr/bin/env bash
# On a GPU machine: an A/B of builds through run_ops's own process, in one lease. Labs and run_ops have timed the
# same kernel 4-5% apart, and a lab's ranking has reversed in run_ops (bench/notes/softmax-tuning.md, "Session 20"),
# so a candidate is judged here before it is merged. Installs each wheel folder (pip --target), then runs
#   tools/run_ops.py --mode bench --backend nvidia RUN_OPS_ARGS...
# ROUNDS times per build, the builds' order rotating from round to round (base, c1, c2; c1, c2, base; ...: each build
# in every position as often, so a drift over the lease falls on all alike), writing OUT/ab-<i>-<build>.json, and
# prints each row's p50s by build, each candidate's median change against the base and the range of the best peer's
# p50 over all runs (also OUT/ab-summary.txt; the runs' JSONs and logs end up in OUT/ab-runs.tgz). Run from a checkout:
#   tools/gpu_ab.sh BASE_WHEELS CAND_WHEELS[,CAND_WHEELS...] OUT ROUNDS RUN_OPS_ARGS...
#   e.g. tools/gpu_ab.sh dist/main dist/cand1,dist/cand2 $OUT 3 --op softmax --peers torch_eager
#        tools/gpu_ab.sh dist/main dist/cand1 $OUT 2 --op reduce_sum --shapes 4096x3072,4096x5120 --peers torch_compile
# A build is named by its folder's base name (dist/cand1: cand1; the base is always "base").
# A PYTHONPATH set by the caller comes after the build's folder, e.g. the peers' site of tools/gpu_peers_site.sh:
#   PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages tools/gpu_ab.sh ... --peers quack,liger
# AB_BUDGET_S=N: start no run that would end past N seconds (judged by the longest run so far), so a device call's
# time limit never cuts the summary and the archive (loose files past the device tool's count do not come back).
set -u
BASE=$1; CANDS=$2; OUT=$3; ROUNDS=$4; shift 4
# An earlier A/B's runs left in OUT would join this one's summary.
mkdir -p "$OUT" && rm -f "$OUT"/ab-[0-9]*-*.json "$OUT"/ab-[0-9]*-*.log || exit $?
builds=(base); dirs=("$BASE")
IFS=, read -r -a cand_dirs <<< "$CANDS"
for dir in "${cand_dirs[@]}"; do builds+=("$(basename "$dir")"); dirs+=("$dir"); done
for k in "${!builds[@]}"; do
  rm -rf "/tmp/ab-${builds[$k]}" && python3 -m pip install -q --no-index --no-deps --target "/tmp/ab-${builds[$k]}" \
    "${dirs[$k]}"/*.whl || exit $?
done
n=${#builds[@]}; i=0; longest=0
for ((r = 0; r < ROUNDS; r++)); do
  for ((j = 0; j < n; j++)); do
    which=${builds[$(((r + j) % n))]}
    if ((${AB_BUDGET_S:-0} > 0 && SECONDS + longest > AB_BUDGET_S)); then
      echo "run $i ($which) and the rest not started: AB_BUDGET_S=$AB_BUDGET_S"; break 2
    fi
    started=$SECONDS
    PYTHONPATH=/tmp/ab-$which:$PWD${PYTHONPATH:+:$PYTHONPATH} python3 tools/run_ops.py --mode bench --backend nvidia "$@" \
      --json "$OUT/ab-$i-$which.json" > "$OUT/ab-$i-$which.log" 2>&1
    echo "run $i ($which): exit $?"; i=$((i + 1))
    ((SECONDS - started > longest)) && longest=$((SECONDS - started))
  done
done
python3 - "$OUT" "${builds[@]}" <<'PY' | tee "$OUT/ab-summary.txt"
import glob, json, statistics, sys

out, builds = sys.argv[1], sys.argv[2:]
by_row, peers = {}, {}  # (op, case) -> ours_us by build; (best peer us, name) over every run
for path in sorted(glob.glob(out + "/ab-*.json"), key=lambda p: int(p.rsplit("/", 1)[1].split("-")[1])):
    which = path.rsplit("/", 1)[1].split("-", 2)[2][:-len(".json")]
    for r in json.load(open(path))["results"]:
        if r.get("ours_us"):
            by_row.setdefault((r["op"], r["case"]), {b: [] for b in builds})[which].append(r["ours_us"])
            if r.get("best_peer_us"):
                peers.setdefault((r["op"], r["case"]), []).append((r["best_peer_us"], r["best_peer"]))
changes = {b: [] for b in builds[1:]}
print("%-12s %-34s %s" % ("op", "case", "  ".join("%-22s" % (b + " p50s (us)") for b in builds)
                          + "  " + "  ".join("%s/base" % b for b in builds[1:]) + "  best peer p50 (us, all runs)"))
for (op, case), runs in by_row.items():
    if not runs["base"]:
        continue
    cells = "  ".join("%-22s" % " ".join("%.2f" % t for t in runs[b]) for b in builds)
    ratios = []
    for b in builds[1:]:
        if runs[b]:
            change = statistics.median(runs[b]) / statistics.median(runs["base"])
            changes[b].append(change)
            ratios.append("%.3f" % change)
        else:
            ratios.append("-")
    seen = peers.get((op, case), [])
    peer = "%.2f-%.2f %s" % (min(seen)[0], max(seen)[0], "/".join(sorted({n for _, n in seen}))) if seen else "-"
    print("%-12s %-34s %s  %s  %s" % (op, case, cells, "  ".join("%9s" % x for x in ratios), peer))
for b, c in changes.items():
    if c:
        print("median %s / base over %d rows: %.3f (below 1: %s is faster)" % (b, len(c), statistics.median(c), b))
PY
# The device tool brings back a limited number of files: the runs travel as one archive beside the summary.
(cd "$OUT" && runs=$(ls ab-[0-9]*-*.json ab-[0-9]*-*.log 2>/dev/null) && tar czf ab-runs.tgz $runs && rm -f $runs)
