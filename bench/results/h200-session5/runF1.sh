#!/usr/bin/env bash
# Session 5, final run 1: stage tilelang's site (QuACK's apache-tvm-ffi) and the peers, install our wheel, softmax's tests on nvidia.
set -u
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
mkdir -p /tmp/site && tar -xJf .tlh/site/site312.tar.xz -C /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/peers/*.whl 2>&1 | tail -1
OPRT_TEST_BACKENDS=nvidia PYTHONPATH=/tmp/oprt-main:$PWD timeout 250 python3 -m pytest -q -p no:cacheprovider \
  --junitxml=$OUT/softmax-nvidia.xml ops/softmax/test_softmax.py > $OUT/softmax-tests.log 2>&1
tail -2 $OUT/softmax-tests.log
