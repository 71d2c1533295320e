#!/usr/bin/env bash
# Session 11, run 4: the fast path with workspaces (calls whose descriptor needs one no longer take the Python
# path): the fast-path, thread, softmax and reduce_sum tests on nvidia, then lab call_overhead again.
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
for f in tests/test_fastcall.py tests/test_threads.py ops/softmax ops/reduce_sum; do
  OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -p no:cacheprovider $f > $OUT/run4-$(basename $f .py).txt 2>&1 &
done
wait
for f in $OUT/run4-*.txt; do echo "$(basename $f): $(tail -1 $f)"; grep -m3 "^FAILED" $f; done
(cd bench/lab && OUT=$OUT timeout 120 python3 call_overhead.py) 2>&1 | grep -E "^[0-9]" | tee $OUT/run4-call_overhead.log
