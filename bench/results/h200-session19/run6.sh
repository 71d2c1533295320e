#!/usr/bin/env bash
# Session 19, run 6 (carry dist/main, dist/ptx; one call: the device refused four starts and its time ran short, so
# no full peer run): run_ops's peer benchmark of gelu's three rows from the sm_90 wheel (torch eager and torch.compile,
# the peers gelu has), then every test file on nvidia from the sm_90 wheel and from the compute_80 PTX-only wheel, and
# run_ops's tests.
set -u
rm -rf /tmp/oprt-site /tmp/site-ptx
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op gelu \
  --json $OUT/run6-peers-gelu.json 2> $OUT/run6-peers-gelu.stderr > $OUT/run6-peers-gelu.log
echo "bench exit $?"; grep -A25 "== summary" $OUT/run6-peers-gelu.log | cut -c1-200
tools/gpu_suites_pair.sh /tmp/oprt-site /tmp/site-ptx $OUT run6
