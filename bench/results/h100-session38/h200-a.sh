#!/usr/bin/env bash
# Session 38, first call on an H200 (carry .q1, .whl2, dist/final = main's wheel): the nvidia tests of the ops whose
# kernels changed since the H200's last record (reduce_sum, softmax), then the first half of QuACK's libs staged and
# our wheel kept in /tmp/dm for next-b.sh (bench/results/h100-session36/next-b.sh, carry .q2). Session 37 ran the
# tile kernels' sanitizer cases on the H100; this call leaves them out to keep device time for the record.
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
# CARD=H100 runs it on an H100 instead, CARD=NVIDIA on any card (session 41: a record on whichever card comes);
# default: an H200 only.
[[ $card == *${CARD:-H200}* ]] || { echo "not an ${CARD:-H200}: run next-ab.sh instead"; exit 0; }
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
# TESTS=0 leaves the tests out when device time is short (the record first).
if [[ ${TESTS:-1} == 1 ]]; then
  PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 240 python3 -m pytest -q -p no:cacheprovider \
    ops/reduce_sum/ ops/softmax/ tests/test_threads.py > $OUT/tests.log 2>&1; echo "tests exit $?: $(tail -n 1 $OUT/tests.log)"
fi
rm -rf /tmp/q /tmp/w /tmp/dm && tools/gpu_peers_site.sh stage .q1 > /dev/null && mkdir -p /tmp/w /tmp/dm \
  && cp .whl2/*.whl /tmp/w/ && cp dist/final/operator_runtime-*.whl /tmp/dm/ && echo staged
