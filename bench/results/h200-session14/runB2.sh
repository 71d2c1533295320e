#!/usr/bin/env bash
# Session 14, a second full peer benchmark from the final wheel (right after runS.sh on a fresh warm machine; carry
# .q2, .whl2): runB.sh's benchmark without the suites, into run8-peers-second.json, to see which rows move between
# two runs of the same code.
set -u
tools/gpu_peers_site.sh || exit $?
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  timeout 300 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/run8-peers-second.json \
  2> $OUT/run8-peers-second.stderr > $OUT/run8-peers-second.log
echo "bench exit $?"; grep -A12 "== summary" $OUT/run8-peers-second.log
