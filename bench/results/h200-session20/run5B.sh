#!/usr/bin/env bash
# Session 20, run 5, call 2 of 2 (right after run5S.sh; carry .q2, .whl1, .whl2, dist/ptx): the peers, run_ops's peer
# benchmark of the softmax and log_softmax rows from the candidate's wheel, then every test file on nvidia from it
# and from its compute_80 PTX-only build.
set -u
mkdir -p /tmp/whl1 && cp .whl1/*.whl /tmp/whl1/
tools/gpu_peers_site.sh || exit $?
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax \
  --json $OUT/run5-peers-softmax.json 2> $OUT/run5-peers-softmax.stderr > $OUT/run5-peers-softmax.log
echo "bench exit $?"; grep -A30 "== summary" $OUT/run5-peers-softmax.log | cut -c1-120
rm -rf /tmp/site-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx/*.whl
tools/gpu_suites_pair.sh /tmp/oprt-site /tmp/site-ptx $OUT run5
