#!/usr/bin/env bash
# Session 33, call 3: the tile tier's 512-column rows as 2 rows per 16-lane group in 64-thread blocks (dist/tile2)
# against main (dist/anyrows) and the generalized tile kernel at today's shape (dist/tilegen): reduce_sum's tests
# from tile2, then run_ops A/B of 8192x512 with torch.compile; on an H200 also lab reduce_rows_any.
export OUT=$1
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/tile2/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/ 2>&1 | tail -n 1
timeout 330 tools/gpu_ab.sh dist/anyrows dist/tilegen,dist/tile2 $OUT 2 --op reduce_sum --cases 8192x512 --peers torch_compile 2>&1 | tail -n 12
if [[ $card == *H200* ]]; then
  (cd bench/lab && timeout 120 python3 reduce_rows_any.py 2 > $OUT/lab-reduce_rows_any.log 2>&1; echo "lab exit $?")
  grep -E "p50" $OUT/lab-reduce_rows_any.log | grep -v "round 1" | sed 's/  */ /g' | cut -c1-120
fi
