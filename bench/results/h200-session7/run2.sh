#!/usr/bin/env bash
# Session 7, device run 2: reduce_sum's cluster tier at 16 blocks per row (non-portable; 8 where the device
# runs no more), from 16 rows on. Stages the peers' wheels and the first half of QuACK's cu13 libs for
# run3.sh; reduce_sum's test file on nvidia; the row sums against torch eager and torch.compile.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
export PYTHONPATH=/tmp/oprt-main:$PWD OPRT_TEST_BACKENDS=nvidia
timeout 150 python3 tools/run_ops.py --mode bench --backend nvidia --op reduce_sum --cases axis=-1 \
  --peers torch_eager,torch_compile --json $OUT/rowsums.json > $OUT/rowsums.log 2>&1; echo "bench exit $?"
grep -A14 "== summary" $OUT/rowsums.log
timeout 120 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/test_reduce_sum.py > $OUT/test_reduce_sum.log 2>&1
tail -n 3 $OUT/test_reduce_sum.log; grep -m5 -B2 -A12 "Error\|FAILED" $OUT/test_reduce_sum.log | head -60
