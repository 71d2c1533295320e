#!/usr/bin/env bash
# Session 9, device run 1 (right after runS.sh, same machine): the peers' wheels and QuACK's libs, then lab first_row
# (is our 4096x4096 f16 softmax slow in run_ops because it is timed first?).
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1; ls /tmp/site | head -3
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
(cd bench/lab && timeout 200 python3 first_row.py) > $OUT/lab-first_row.log 2>&1; echo "first_row exit $?"
cat $OUT/lab-first_row.log | tail -20
