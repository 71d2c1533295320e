#!/usr/bin/env bash
# Session 14, a second full peer benchmark from the final wheel (right after runS.sh on a fresh warm machine; carry
# .q2, .whl2): runB.sh's benchmark without the suites, into run8-peers-second.json, to see which rows move between
# two runs of the same code.
set -u
[ -d /tmp/oprt-site ] && [ -f /tmp/q1/cu13.part.aa ] || { echo "not the machine runS.sh ran on"; exit 3; }
cp /tmp/whl1/*.whl .whl2/
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/*.whl 2>&1 | tail -1
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  timeout 300 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/run8-peers-second.json \
  2> $OUT/run8-peers-second.stderr > $OUT/run8-peers-second.log
echo "bench exit $?"; grep -A12 "== summary" $OUT/run8-peers-second.log
