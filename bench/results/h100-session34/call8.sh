#!/usr/bin/env bash
# Session 34, call 8 (carry dist/final, dist/ptx, .s34): every test file on nvidia from main's wheel (sm_90 cubin +
# PTX) and, at the same time, from a compute_80 PTX-only build of the same commit (--//tools:cuda_archs=compute_80;
# JIT-compiled here, so no Hopper-only tier is loaded and the dispatcher must take the others).
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-ptx /tmp/oprt-site
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-ptx dist/ptx/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
PYTHONPATH=/tmp/oprt-ptx python3 -c "import operator_runtime as o; print(o.__file__)"
timeout 500 tools/gpu_suites.sh /tmp/oprt-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
ptx=$!
timeout 500 tools/gpu_suites.sh /tmp/oprt-site $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
wait $ptx; echo "ptx exit $?"; wait $sm90; echo "sm90 exit $?"
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -12
done
cd $OUT && tar czf suites.tgz suite suite-ptx && rm -rf suite suite-ptx
