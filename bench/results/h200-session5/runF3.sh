#!/usr/bin/env bash
# Session 5, device run 3: QuACK's libs assembled, then the full peer benchmark (issue 11's matrix) .
set -u
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-main:$PWD timeout ${BENCH_TIMEOUT_S:-300} python3 tools/run_ops.py \
  --mode bench --backend nvidia --json $OUT/h200-peers.json ${BENCH_ARGS:-} 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; tail -n 40 $OUT/h200-peers.log
