#!/usr/bin/env bash
# Device run C (final): QuACK's big wheel from runs B and C; issue 11's peer benchmark.
set -u
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-main:$PWD timeout 300 python3 tools/run_ops.py \
  --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; sed -n 3p $OUT/h200-peers.log; tail -n 4 $OUT/h200-peers.log
