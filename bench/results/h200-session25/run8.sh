#!/usr/bin/env bash
# Session 25, run 8 (carry dist/main): the three rows behind that are not elementwise (softmax 32768x1024 f32, row
# sums of 4096x4096 f32 and 16384x256 f16), run_ops from main with torch eager and torch.compile (their best peer in
# every full run), each row in two separate processes: whether they stay behind from one process to the next.
set -u
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl || exit $?
i=0
for i in 1 2; do
  for sel in "softmax 32768x1024-float32" "reduce_sum 4096x4096-float32-axis=-1" "reduce_sum 16384x256-float16-axis=-1"; do
    set -- $sel
    PYTHONPATH=/tmp/site:$PWD timeout 100 python3 tools/run_ops.py --mode bench --backend nvidia --op $1 --cases $2 \
      --peers torch_eager,torch_compile --json $OUT/run8-$1-$2-$i.json > $OUT/run8-$1-$2-$i.log 2>&1 || echo "$sel $i: exit $?"
  done
done
python3 - $OUT/run8-*.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print("%-60s ours %7.3f best %7.3f (%s) ratio %.4f paired %s" % (path.rsplit("/", 1)[1], r["ours_us"],
              r["best_peer_us"], r["best_peer"], r["ratio"],
              "%.4f [%.4f, %.4f]" % (r["ratio_paired"], *r["ratio_ci95"]) if r.get("ratio_paired") else "-"))
PY
cd $OUT && tar czf run8.tgz run8-* && rm -f run8-*.json run8-*.log
