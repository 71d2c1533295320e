#!/usr/bin/env bash
# Session 34, call 5 (carry dist/final, dist/mailbox, .s34): reduce_sum's cluster kernel with only block 0's mailbox
# armed (dist/mailbox: ClusterMailbox::open(receives), __syncwarp before block_reduce) against main (dist/final):
# the reduce_sum and softmax test files and tools/gpu_sanitize.sh (memcheck, racecheck, synccheck) from the
# candidate, then a run_ops A/B of the cluster rows (reduce_sum, softmax) with torch.compile.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/mailbox/*.whl
PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -p no:cacheprovider \
  ops/reduce_sum ops/softmax 2>&1 | tail -n 1
timeout 240 tools/gpu_sanitize.sh $OUT/sanitize-mailbox.log > /dev/null 2>&1; echo "gpu_sanitize exit $?"
sed -n '/== summary/,$p' $OUT/sanitize-mailbox.log; xz -9 $OUT/sanitize-mailbox.log
timeout 290 tools/gpu_ab.sh dist/final dist/mailbox $OUT 2 --op reduce_sum,softmax --peers torch_compile \
  --shapes 128x131072,16x262144,136x30001 2>&1 | tail -n 22
