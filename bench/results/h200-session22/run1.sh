#!/usr/bin/env bash
# Session 22, run 1 (carry dist/main): (a) lab flush_persist (session 21's run 4, never run); (b) run_ops on softmax's
# 4096 x 4096 f16 rows with torch eager + torch.compile as peers, without and with --flush_reset_persisting
# (order P R R P): does resetting the persisting L2 lines before each flush give the cold times (ours ~18.5 us)?
set -u
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/main/*.whl
(cd bench/lab && PYTHONPATH=/tmp/site timeout 200 python3 flush_persist.py 2>&1 | grep -v "^wrote" | tee $OUT/lab-flush_persist.log | tail -30)
i=0
for mode in P R R P; do
  flag=""; [ $mode = R ] && flag=--flush_reset_persisting
  PYTHONPATH=/tmp/site:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax \
    --cases 4096x4096-float16 --peers torch_eager,torch_compile $flag --json $OUT/run1-$i-$mode.json > $OUT/run1-$i-$mode.log 2>&1
  echo "$i $mode exit $?:"; grep -E '^softmax +4096x4096 +f16 ' $OUT/run1-$i-$mode.log | cut -c1-160
  i=$((i + 1))
done
cd $OUT && tar czf run1-runs.tgz run1-*.json run1-*.log && rm -f run1-*.json run1-*.log
