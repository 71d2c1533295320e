#!/usr/bin/env bash
# Session 8, final run (right after runS.sh, same machine): the final code (the softmax changes of runs
# 3-4; reduce_sum as session 7 left it, the mailbox variants of runs 2-5 undone): every test file on
# nvidia from its sm_90 wheel, then the full peer benchmark (issue 11's matrix, ../h200-peers.json).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
tools/gpu_suites.sh /tmp/oprt-site $OUT/suite nvidia > $OUT/suite.txt 2>&1
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
(cd $OUT && tar czf suite.tgz suite suite.txt && rm -rf suite)
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD timeout 330 python3 tools/run_ops.py \
  --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A10 "== summary" $OUT/h200-peers.log
