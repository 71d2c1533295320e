#!/usr/bin/env bash
# Session 9, device run 2 (a cold machine: Liger but not QuACK, whose libs take two uploads): the library with half
# rows of 9-16 parts in 16-block clusters and the cluster tier's unmasked kernel for whole parts (kWhole);
# lab first_row --clocks (do compute-heavy kernels before a memory-bound one speed it up?);
# lab softmax_long --session9 again (now with the library's kWhole kernels), softmax's tests on nvidia,
# and the long-row softmax rows of issue 11's matrix against the peers.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1  # QuACK absent in this run
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
(cd bench/lab && timeout 100 python3 first_row.py --clocks) > $OUT/lab-first_row-clocks.log 2>&1
echo "first_row exit $?"; grep -E "^ ?[0-9]+ " $OUT/lab-first_row-clocks.log
(cd bench/lab && timeout 150 python3 softmax_long.py --session9) > $OUT/lab-softmax_long-session9b.log 2>&1
echo "lab exit $?"; grep "us  (p20" $OUT/lab-softmax_long-session9b.log | cut -c1-110
OPRT_TEST_BACKENDS=nvidia timeout 240 python3 -m pytest -q -p no:cacheprovider ops/softmax/test_softmax.py > $OUT/test_softmax.txt 2>&1
echo "tests exit $?"; tail -3 $OUT/test_softmax.txt; grep -m5 "^FAILED" $OUT/test_softmax.txt
for c in 262144 131072 1048576; do
  timeout 150 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax --cases $c \
    --json $OUT/peers-$c.json > $OUT/peers-$c.log 2> /dev/null; echo "bench $c exit $?"; grep -E "^(softmax|log_softmax) " $OUT/peers-$c.log
done
