#!/usr/bin/env bash
# Session 7, device run 1: the cluster column tier rewritten (mailbox exchange, cluster size and log_softmax
# compiled in, the cross-warp fold and the normalizer once per column). Softmax and reduce_sum test files on
# nvidia; softmax over axis 0 against torch eager and torch.compile; the reduce_cluster lab.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl
export PYTHONPATH=/tmp/oprt-main:$PWD OPRT_TEST_BACKENDS=nvidia
timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax --cases axis=0 \
  --peers torch_eager,torch_compile --json $OUT/columns.json > $OUT/columns.log 2>&1; echo "bench exit $?"
grep -A12 "== summary" $OUT/columns.log
(cd bench/lab && timeout 120 python3 reduce_cluster.py > $OUT/lab-reduce_cluster.log 2>&1; echo "lab exit $?")
tail -16 $OUT/lab-reduce_cluster.log
# The tests last, so that nothing else runs on the GPU while the above is timed.
mkdir -p $OUT/suite
for f in ops/softmax/test_softmax.py ops/reduce_sum/test_reduce_sum.py; do
  name=$(echo "$f" | tr '/' '_' | sed 's/\.py$//')
  timeout 240 python3 -m pytest -q -p no:cacheprovider --junitxml=$OUT/suite/$name.xml "$f" > $OUT/suite/$name.log 2>&1 &
done
wait
tail -n 3 $OUT/suite/*.log
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
