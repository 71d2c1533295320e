#!/usr/bin/env bash
# Session 36, call 3 (any card; carry dist/combo, dist/combo64, dist/combo2r): the 256-column half rows, combo
# (main to be: a row a group of 8 lanes, 128-thread blocks) against combo64 (64-thread blocks) and combo2r (two rows
# a group, 64-thread blocks, as combo's 512-column tiles), run_ops A/B, 3 rounds; then the tile cases from each.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 330 tools/gpu_ab.sh dist/combo dist/combo64,dist/combo2r $OUT 3 --op reduce_sum \
  --peers torch_compile --shapes 16384x256 2>&1 | tail -n 6
for w in combo64 combo2r; do
  rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/$w/*.whl
  PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider \
    ops/reduce_sum/ -k "1000x256 or 333x512 or 1024x256 or 336x512" 2>&1 | tail -n 1
done
