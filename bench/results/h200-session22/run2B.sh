#!/usr/bin/env bash
# Session 22, call 2 of the pair (right after run2S.sh on the same warm machine; carry .q2, .whl1, .whl2): the peers'
# wheels and QuACK's libs, then issue 11's full peer matrix twice, back to back, with the persisting-line reset before
# every flush (run_ops's default since session 22): $OUT/h200-peers.json and $OUT/h200-peers-2.json.
set -u
mkdir -p /tmp/whl1 && cp .whl1/*.whl /tmp/whl1/
tools/gpu_peers_site.sh || exit $?
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
python3 -c "import operator_runtime; print('operator_runtime from', operator_runtime.__file__)"
for run in "" -2; do
  timeout 240 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers$run.json \
    2> $OUT/h200-peers$run.stderr > $OUT/h200-peers$run.log
  echo "bench$run exit $?"; grep -A12 "== summary" $OUT/h200-peers$run.log
done
