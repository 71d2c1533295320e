#!/usr/bin/env bash
# Session 19, run 6 (carry dist/main, dist/ptx; one short call: the device refused six starts and its time ran
# short, so no full peer run): gelu's test file and the kernel-variant tests on nvidia from the sm_90 wheel and
# from the compute_80 PTX-only wheel at once (gelu's are the only kernels whose code changed since the last full
# suites but for register order in the unaligned one-element ones), then
# run_ops's peer benchmark of gelu's three rows from the sm_90 wheel (torch eager and torch.compile, gelu's peers).
set -u
rm -rf /tmp/oprt-site /tmp/site-ptx
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx/*.whl
TESTS="ops/gelu tests/test_kernel_variants.py"
for which in oprt-site site-ptx; do
  PYTHONPATH=/tmp/$which:$PWD OPRT_TEST_BACKENDS=nvidia timeout 90 python3 -m pytest -q -p no:cacheprovider -x $TESTS \
    > $OUT/run6-tests-$which.txt 2>&1 &
done
wait
for which in oprt-site site-ptx; do echo "tests from $which: $(tail -1 $OUT/run6-tests-$which.txt)"; done
PYTHONPATH=/tmp/oprt-site:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op gelu \
  --json $OUT/run6-peers-gelu.json 2> $OUT/run6-peers-gelu.stderr > $OUT/run6-peers-gelu.log
echo "bench exit $?"; grep -A25 "== summary" $OUT/run6-peers-gelu.log | cut -c1-200
