#!/bin/bash
# The H200 runs of issue #8 (tilelang backend), in stages, each one `run` call from the repo root:
#   bash bench/tilelang_h200.sh install1   carry dist/tl1 (tilelang wheel) + dist/oprt (our CUDA wheel)
#   bash bench/tilelang_h200.sh install2   carry dist/tl2 (apache-tvm-ffi, z3-solver, torch-c-dlpack-ext); then
#                                          warm (compile every kernel in parallel) and the op test suites
#   bash bench/tilelang_h200.sh bench      the benchmark (bench/tilelang_bench.py)
#   bash bench/tilelang_h200.sh all        one cold run: $W/site/site312.tar.xz (tilelang + its needs, installed
#                                          here with pip --target for Python 3.12 and xz-packed: 48 MB, under one
#                                          transfer) + $W/oprt; then warm, the op test suites and the benchmark
# The machine has no network: wheels are `pip download`ed elsewhere and installed with --no-index --no-deps
# into /tmp/site (two uploads: they exceed one 64 MiB transfer; /tmp survives while the machine stays warm).
set -u
OUT=${OUT:-/tmp/out}
W=${TL_WHEELS:-dist}  # where tl1/, tl2/ and oprt/ (the wheels) are
mkdir -p "$OUT"
export PYTHONPATH=/tmp/site:/tmp/oprt-site:$PWD
export TILELANG_CACHE_DIR=/tmp/tlcache
export OPRT_TEST_BACKENDS=tilelang
overlay() {  # the working tree's Python over the wheel's (the wheel brings libcamp_ops.so and _fastcall)
  cp python/operator_runtime/*.py /tmp/oprt-site/operator_runtime/
}
tests() {
  {
    python3 -c "import operator_runtime as o; print(o.available_backends()); from operator_runtime import _tilelang as t; t.require(); import tilelang; print('tilelang', tilelang.__version__)"
    python3 -c "
import json, time
from operator_runtime import _tilelang as t
s = time.time(); r = t.warm(16)
print('warm: %d kernels in %.1f s (sum of compile times %.1f s)' % (len(r), time.time() - s, sum(r.values())))
json.dump({str(k): v for k, v in r.items()}, open('/tmp/tlwarm.json', 'w'), indent=0)
"
    for op in copy vector_add reduce_sum softmax elementwise/relu; do
      name=$(basename $op)
      timeout -s INT ${TEST_TIMEOUT:-150} python3 -m pytest ops/$op/test_$name.py -q -p no:cacheprovider -rN \
        --junitxml="$OUT/junit-tilelang-$name.xml" > "/tmp/pytest-$name.log" 2>&1 &
    done
    wait
    for op in copy vector_add reduce_sum softmax relu; do echo "== $op"; tail -25 /tmp/pytest-$op.log; done
  } > "$OUT/h200-tilelang-tests.log" 2>&1
  grep -E "warm:|passed|failed|== " "$OUT/h200-tilelang-tests.log"
}
case "$1" in
all)
  mkdir -p /tmp/site && tar -xJf $W/site/site312.tar.xz -C /tmp/site
  python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site $W/oprt/*.whl
  overlay
  tests
  python3 bench/tilelang_bench.py --json "$OUT/h200-tilelang-bench.json" --compile-times /tmp/tlwarm.json "${@:2}" \
    > "$OUT/h200-tilelang-bench.log" 2>&1
  tail -c 3000 "$OUT/h200-tilelang-bench.log"
  ;;
install1)
  python3 -m pip install -q --no-index --no-deps --target /tmp/site $W/tl1/*.whl
  python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site $W/oprt/*.whl
  nvidia-smi -L; ls /tmp/site /tmp/oprt-site
  ;;
install2)
  python3 -m pip install -q --no-index --no-deps --target /tmp/site $W/tl2/*.whl
  overlay
  {
    python3 -c "import operator_runtime as o; print(o.available_backends()); from operator_runtime import _tilelang as t; t.require(); import tilelang; print('tilelang', tilelang.__version__)"
    start=$(date +%s.%N)
    python3 -c "
import json, time
from operator_runtime import _tilelang as t
s = time.time(); r = t.warm(16)
print('warm: %d kernels in %.1f s (sum of compile times %.1f s)' % (len(r), time.time() - s, sum(r.values())))
json.dump({str(k): v for k, v in r.items()}, open('/tmp/tlwarm.json', 'w'), indent=0)
"
    cp /tmp/tlwarm.json "$OUT/h200-tilelang-compile-times.json"
    for op in copy vector_add reduce_sum softmax elementwise/relu; do
      name=$(basename $op)
      timeout -s INT 150 python3 -m pytest ops/$op/test_$name.py -q -p no:cacheprovider -rN \
        --junitxml="$OUT/junit-tilelang-$name.xml" > "/tmp/pytest-$name.log" 2>&1 &
    done
    wait
    for op in copy vector_add reduce_sum softmax relu; do echo "== $op"; tail -25 /tmp/pytest-$op.log; done
  } > "$OUT/h200-tilelang-tests.log" 2>&1
  tail -c 6000 "$OUT/h200-tilelang-tests.log"
  ;;
bench)
  overlay
  python3 bench/tilelang_bench.py --json "$OUT/h200-tilelang-bench.json" --compile-times /tmp/tlwarm.json "${@:2}" \
    > "$OUT/h200-tilelang-bench.log" 2>&1
  tail -c 9000 "$OUT/h200-tilelang-bench.log"
  ;;
esac
