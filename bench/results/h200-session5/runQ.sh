#!/usr/bin/env bash
# Session 5: our wheel, every test file on nvidia, then ours (and torch eager) on the softmax/gelu/copy rows of the matrix.
set -u
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
tools/gpu_suites.sh /tmp/oprt-main $OUT/suite nvidia > $OUT/suite.txt 2>&1
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -60
PYTHONPATH=/tmp/oprt-main:$PWD timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax,copy,relu,vector_add,gelu \
  --peers torch_eager --json $OUT/ours.json > $OUT/ours.log 2>&1; echo "bench exit $?"
cd $OUT && tar czf suite.tgz suite suite.txt && rm -rf suite
