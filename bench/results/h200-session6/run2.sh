#!/usr/bin/env bash
# Session 6, device run 2: reduce_sum's cluster tier and the half-type cluster softmax at 256 threads.
# Every test file on nvidia, then softmax, log_softmax and reduce_sum against torch eager, torch.compile and Liger.
set -u
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl 2>&1 | tail -1
tools/gpu_suites.sh /tmp/oprt-main $OUT/suite nvidia > $OUT/suite.txt 2>&1
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -60
(cd $OUT && tar czf suite.tgz suite suite.txt && rm -rf suite)
PYTHONPATH=/tmp/site:/tmp/oprt-main:$PWD timeout 240 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax,reduce_sum \
  --peers torch_eager,torch_compile,liger --json $OUT/ours-run2.json > $OUT/ours-run2.log 2>&1; echo "bench exit $?"
grep -A12 "== summary" $OUT/ours-run2.log
