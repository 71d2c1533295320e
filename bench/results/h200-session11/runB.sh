#!/usr/bin/env bash
# Session 11, final pair, run 2 of 2 (right after runA.sh on the same warm machine: its /tmp/oprt-site holds the wheel
# the suites took, /tmp/q1 the first half of QuACK's cu13 libs; .q2 and .whl travel untracked): the peers' wheels
# and QuACK's libs, then the full peer benchmark (issue 11's matrix, each row's implementations interleaved: ../h200-peers.json).
set -u
[ -d /tmp/oprt-site ] && [ -f /tmp/q1/cu13.part.aa ] || { echo "not the machine runA.sh ran on"; exit 3; }
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
python3 -c "import operator_runtime, sys; print('operator_runtime from', operator_runtime.__file__)"
timeout 300 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A40 "== summary" $OUT/h200-peers.log
