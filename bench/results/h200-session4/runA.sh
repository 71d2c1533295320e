#!/usr/bin/env bash
# Device run A (final): our wheel and tilelang's site installed; every test file on nvidia; run_ops on tilelang.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
mkdir -p /tmp/site && tar -xJf .tlh/site/site312.tar.xz -C /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/peers/*.whl 2>&1 | tail -1
tools/gpu_suites.sh /tmp/oprt-main $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
PYTHONPATH=/tmp/site:/tmp/oprt-main:$PWD timeout 200 python3 tools/run_ops.py --backend tilelang --mode test --op gelu,copy,relu \
  > $OUT/run-ops-tilelang.log 2>&1; echo "run_ops tilelang exit $?"; tail -6 $OUT/run-ops-tilelang.log
wait
tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head
