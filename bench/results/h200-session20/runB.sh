#!/usr/bin/env bash
# Session 20, call 2 of the pair (right after runS.sh on the same warm machine; carry .q2, .whl1, .whl2, dist/ptx):
# the peers' wheels and QuACK's libs, the full peer benchmark (issue 11's matrix: $OUT/h200-peers.json), then every
# test file on nvidia from main's sm_90 wheel (the one benchmarked) and, at the same time, from the compute_80
# PTX-only wheel, and run_ops's tests.
set -u
mkdir -p /tmp/whl1 && cp .whl1/*.whl /tmp/whl1/
tools/gpu_peers_site.sh || exit $?
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  python3 -c "import operator_runtime; print('operator_runtime from', operator_runtime.__file__)"
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  timeout 300 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A40 "== summary" $OUT/h200-peers.log
rm -rf /tmp/site-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx/*.whl
tools/gpu_suites_pair.sh /tmp/oprt-site /tmp/site-ptx $OUT runB
