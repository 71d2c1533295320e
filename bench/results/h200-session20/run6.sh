#!/usr/bin/env bash
# Session 20, run 6 (carry dist/main, dist/cand): an A/B through run_ops's own process of main's wheel (base) and branch
# session20-tile-evict-first's (cand: the softmax tile tier reads inputs up to 16 MiB evict-first), softmax rows
# with torch eager as the only peer, in the order base, cand, cand, base.
set -u
for w in main cand; do rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl; done
i=0
for w in main cand cand main; do
  PYTHONPATH=/tmp/site-$w:$PWD timeout 70 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax \
    --peers torch_eager --json $OUT/run6-$i-$w.json > $OUT/run6-$i-$w.log 2>&1
  echo "$i $w exit $?"; i=$((i + 1))
done
python3 - <<'PY'
import glob, json, os
runs = sorted(glob.glob(os.environ["OUT"] + "/run6-*.json"))
rows = {}
for path in runs:
    for r in json.load(open(path))["results"]:
        rows.setdefault((r["case"]), []).append("%s %.2f" % (path.split("-")[-1][:-5], r["ours_us"]))
for case, v in rows.items():
    print("%-34s %s" % (case, "  ".join(v)))
PY
