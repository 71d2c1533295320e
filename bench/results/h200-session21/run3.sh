#!/usr/bin/env bash
# Session 21, run 3 (carry dist/main, .liger): which peers in a row's rounds make our 4096 x 4096 f16 softmax 16.7 us
# (full runs) rather than 18.5 (run 1, torch eager the only peer; lab flush_state in run 2: 18.2-18.7 under every
# flush condition)? run_ops on softmax's 4096 x 4096 f16 rows with the peer sets A: torch eager, B: + torch.compile,
# C: + Liger, D: all three, in the order A B C D D C B A.
set -u
rm -rf /tmp/site-o /tmp/site-l
python3 -m pip install -q --no-index --no-deps --target /tmp/site-o dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-l .liger/*.whl
declare -A peers=([A]=torch_eager [B]=torch_eager,torch_compile [C]=torch_eager,liger [D]=torch_eager,torch_compile,liger)
i=0
for set in A B C D D C B A; do
  PYTHONPATH=/tmp/site-o:/tmp/site-l:$PWD timeout 100 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax \
    --cases 4096x4096-float16 --peers ${peers[$set]} --json $OUT/run3-$i-$set.json > $OUT/run3-$i-$set.log 2>&1
  echo "$i $set exit $?: $(grep -E '^softmax +4096x4096 +f16 ' $OUT/run3-$i-$set.log | head -1 | cut -c1-150)"
  i=$((i + 1))
done
cd $OUT && tar czf run3-runs.tgz run3-*.json run3-*.log && rm -f run3-*.json run3-*.log
