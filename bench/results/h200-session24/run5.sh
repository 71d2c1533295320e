#!/usr/bin/env bash
# Session 24, run 5, third of three calls (carry .q3, .whl2): the peers' wheels (Liger-Kernel 0.8.5, QuACK 0.6.5,
# nvidia-cutlass-dsl 4.8.1 and their needs) installed into /tmp/site with QuACK's cu13 libs put together from its
# three parts, then issue 11's full peer matrix from main (run3.sh, this session's, installed it in /tmp/oprt-site): $OUT/h200-peers.json.
set -u
[ -d /tmp/oprt-site ] && [ -f /tmp/q/cu13.part.00 ] && [ -f /tmp/q/cu13.part.01 ] || { echo "not the machine run3.sh ran on"; exit 3; }
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q/cu13.part.00 /tmp/q/cu13.part.01 .q3/cu13.part.02 > $W && sha256sum $W
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/*.whl $W 2>&1 | tail -2
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
python3 -c "import operator_runtime, liger_kernel, quack; print('operator_runtime from', operator_runtime.__file__)"
timeout 260 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers.json \
  2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A45 "== summary" $OUT/h200-peers.log
grep "paired ratio" $OUT/h200-peers.log
