#!/usr/bin/env bash
# Session 25, run 5 (carry dist/main, dist/paired): branch session25-paired (the contiguous kernel computes the half
# add and relu two values at a time, as Inductor's kernel does: elementwise_detail::PairedMath) against main, A/B
# through run_ops (tools/gpu_ab.sh, two rounds, the relu and vector_add rows of 64M, torch eager and torch.compile),
# then relu's and vector_add's test files on nvidia from the branch's wheel.
set -u
timeout 300 tools/gpu_ab.sh dist/main dist/paired $OUT 2 --op relu,vector_add --cases 67108864 \
  --peers torch_eager,torch_compile | tail -9
mkdir -p /tmp/r5 && tar xzf $OUT/ab-runs.tgz -C /tmp/r5
for f in /tmp/r5/ab-*-*.json; do python3 - "$f" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    c = r["impls"].get("torch_compile", {}).get("device_us", {}).get("p50")
    print("%-28s %-34s ours %8.2f compile %8.2f paired %s" % (sys.argv[1].rsplit("/", 1)[1], r["case"], r["ours_us"], c or 0,
          "%.4f %s" % (r["ratio_paired"], r["ratio_ci95"]) if r.get("ratio_paired") else "-"))
PY
done
export PYTHONPATH=/tmp/ab-paired:$PWD OPRT_TEST_BACKENDS=nvidia
timeout 150 python3 -m pytest -q -p no:cacheprovider ops/elementwise/relu/test_relu.py ops/vector_add/test_vector_add.py 2>&1 | tail -3
