#!/usr/bin/env bash
# Session 9, device run 4 (a cold machine, Liger but not QuACK): the final code, after the final run showed
# log_softmax's unmasked whole-part kernel slower (bf16 128x131072 24.9 us against session 8's 21.2) and the
# dispatcher was changed to give the unmasked kernel to softmax only: softmax's long-row tests on nvidia, and the
# 128x131072 and 16x262144 rows of softmax and log_softmax (QuACK's numbers: the final run, ../h200-peers.json).
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/site:/tmp/oprt-site:$PWD
for c in 131072 262144; do
  timeout 100 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax --cases $c \
    --json $OUT/run4-peers-$c.json > $OUT/run4-peers-$c.log 2> /dev/null; echo "bench $c exit $?"
  grep -E "^(softmax|log_softmax) " $OUT/run4-peers-$c.log
done
OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -p no:cacheprovider ops/softmax/test_softmax.py \
  -k "131072 or 262144 or 250000 or 200003 or 65536 or 122887 or 300001 or 1048576" > $OUT/run4-test_softmax.txt 2>&1
echo "tests exit $?"; tail -1 $OUT/run4-test_softmax.txt; grep -m5 "^FAILED" $OUT/run4-test_softmax.txt
