#!/usr/bin/env bash
# Session 34, call 1 (carry .q1, .whl2, dist/final, dist/rowblocks): the first half of QuACK's cu13 files staged
# in /tmp/q, the other peers' wheels and main's wheel kept in /tmp for call 2; reduce_sum's tests from main's wheel;
# run_ops A/B (--shapes) of the any-length rows (main) against the row blocks they took before session 33.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
rm -rf /tmp/q /tmp/w /tmp/dm && tools/gpu_peers_site.sh stage .q1 > /dev/null && mkdir -p /tmp/w /tmp/dm \
  && cp .whl2/*.whl /tmp/w/ && cp dist/final/*.whl /tmp/dm/ && echo "staged: $(ls /tmp/q /tmp/w /tmp/dm | wc -l) entries"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 90 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
timeout 330 tools/gpu_ab.sh dist/rowblocks dist/final $OUT 2 --op reduce_sum --peers torch_compile \
  --shapes 4096x2560,4096x3072,4096x5120,4096x7680 2>&1 | tail -n 16
