#!/usr/bin/env bash
# Session 5: softmax's tests on nvidia and ours on the softmax rows of the matrix.
set -u
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
export PYTHONPATH=/tmp/oprt-main:$PWD
OPRT_TEST_BACKENDS=nvidia timeout 200 python3 -m pytest -q -x -p no:cacheprovider ops/softmax/test_softmax.py > $OUT/softmax-tests.log 2>&1 &
timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax --peers torch_eager --json $OUT/ours.json > $OUT/ours.log 2>&1; echo "bench exit $?"
wait; tail -3 $OUT/softmax-tests.log
