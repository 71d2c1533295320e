#!/usr/bin/env bash
# Session 5, device run 1: stage tilelang's site (QuACK's apache-tvm-ffi) and the peer wheels, install our wheel, run every test file on nvidia.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
mkdir -p /tmp/site && tar -xJf .tlh/site/site312.tar.xz -C /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/peers/*.whl 2>&1 | tail -1
tools/gpu_suites.sh /tmp/oprt-main $OUT/suite nvidia > $OUT/suite.txt 2>&1
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -20
cd $OUT && tar czf suite.tgz suite suite.txt && rm -rf suite
