#!/usr/bin/env bash
# Session 22, run 5 (right after run4.sh on the same warm machine; carry .q2, .whl1, .whl2): the peers'
# wheels and QuACK's libs, then issue 11's full peer matrix from branch session22-cand2 (run4.sh installed it in
# /tmp/oprt-site), the persisting-line reset before every flush: $OUT/h200-peers.json.
set -u
mkdir -p /tmp/whl1 && cp .whl1/*.whl /tmp/whl1/
tools/gpu_peers_site.sh || exit $?
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
python3 -c "import operator_runtime; print('operator_runtime from', operator_runtime.__file__)"
for run in ""; do
  timeout 240 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers$run.json \
    2> $OUT/h200-peers$run.stderr > $OUT/h200-peers$run.log
  echo "bench$run exit $?"; grep -A12 "== summary" $OUT/h200-peers$run.log
done
