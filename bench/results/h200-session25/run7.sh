#!/usr/bin/env bash
# Session 25, run 7 (carry dist/main): run_ops's benchmark of copy, relu and vector_add from main, torch eager and
# torch.compile the peers (the only ones these ops have), twice in a row as separate processes: how far the half
# rows' paired ratio moves from one run_ops process to the next with nothing changed.
set -u
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
for i in 1 2; do
  PYTHONPATH=/tmp/site:$PWD timeout 170 python3 tools/run_ops.py --mode bench --backend nvidia --op copy,relu,vector_add \
    --peers torch_eager,torch_compile --json $OUT/run7-$i.json > $OUT/run7-$i.log 2>&1
  echo "process $i: exit $?"
done
for i in 1 2; do python3 - $OUT/run7-$i.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["bytes"] >= 64 << 20 and r.get("ratio_paired"):
        print("%s %-10s %-30s ratio %.4f paired %.4f [%.4f, %.4f] %s" % (sys.argv[1][-6], r["op"], r["case"], r["ratio"],
              r["ratio_paired"], *r["ratio_ci95"], r["best_peer"]))
PY
done
