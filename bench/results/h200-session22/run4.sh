#!/usr/bin/env bash
# Session 22, run 4 (carry dist/main, dist/cand2): branch session22-cand2 -- the softmax tile tier reads f32 inputs up
# to 16 MiB evict-first (run 3: f32 rows of 256 and 512 1.2-1.4% faster, half rows slower), and reduce_sum sums f32 rows
# of exactly one slice (8192 values) with the slice kernel, a block per row -- A/B through run_ops: three rounds,
# the f32 softmax and reduce_sum rows, torch eager the only peer; then the candidate's softmax and reduce_sum test files.
# Also stages what run5B.sh needs (carry .q1 too): QuACK's first half of cu13 libs, the candidate in /tmp/oprt-site.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/cand2/*.whl
timeout 300 tools/gpu_ab.sh dist/main dist/cand2 $OUT 3 --op softmax,reduce_sum --cases float32 --peers torch_eager
for t in ops/reduce_sum/test_reduce_sum.py ops/softmax/test_softmax.py; do
  OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/ab-cand2:$PWD timeout 170 python3 -m pytest -q -p no:cacheprovider -x $t \
    > $OUT/run4-$(basename $t .py).txt 2>&1
  echo "$t exit $?: $(tail -1 $OUT/run4-$(basename $t .py).txt)"
done
