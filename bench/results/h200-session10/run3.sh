#!/usr/bin/env bash
# Session 10, run 3: is the first row slow because the device idled while the peers compiled? run_ops on the
# 4096x4096 softmax rows twice (torch eager and torch.compile as peers), without and with 2 s of device work
# right before the first row (--gpu_warmup_s), from the sm_90 wheel (carry dist/main).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
export PYTHONPATH=/tmp/oprt-site:$PWD
for w in 0 2; do
  timeout 250 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax --cases 4096x4096 --gpu_warmup_s $w \
    --json $OUT/run3-warmup$w.json > $OUT/run3-warmup$w.log 2> $OUT/run3-warmup$w.stderr; echo "warm-up $w s: exit $?"
  grep -E "^softmax |warm-up" $OUT/run3-warmup$w.log
done
