#!/usr/bin/env bash
# On the GPU machine, the second of a pair of device runs (bench/results/h200-session14/runS.sh staged the first half
# of QuACK's cu13 libs in /tmp/q1 and two peer wheels in /tmp/whl1; this run carries .q2 and .whl2): installs the
# peers' wheels (Liger-Kernel, QuACK and their dependencies) into /tmp/site and merges QuACK's cu13 libs into it.
# Exits 3 on a machine where the first run did not run. Then: PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
set -u
[ -d /tmp/oprt-site ] && [ -f /tmp/q1/cu13.part.aa ] || { echo "not the machine runS.sh ran on"; exit 3; }
cp /tmp/whl1/*.whl .whl2/
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/*.whl 2>&1 | tail -1
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
