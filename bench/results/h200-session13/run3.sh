#!/usr/bin/env bash
# Session 13, run 3 (carry dist/main, dist/ptx, bench/lab/build): lab alloc_cost (the output's allocation in run_ops's
# wall loop, fresh and right after a profiled loop), lab softmax_long --session13b (crep at 4 blocks per SM, f16's max
# on packed halves, and libp: the library's port, PackedPart), then session 12's runA.sh without its labs: every test
# file on nvidia from the sm_90 wheel and, at the same time, from the compute_80 PTX-only wheel, and run_ops's tests
# (the code: half softmax's 128x131072-like rows in PackedPart at 4 blocks per SM; tile_rows.cuh no longer casts the
# row's packs to int before passing them as int64).
set -u
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl && echo installed
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 120 python3 alloc_cost.py > $OUT/run3-alloc_cost.log 2>&1)
echo "alloc_cost exit $?"; grep "wall p50" $OUT/run3-alloc_cost.log
cp $OUT/lab-alloc_cost.json $OUT/run3-lab-alloc_cost.json 2>/dev/null
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD/../.. timeout 120 python3 softmax_long.py --session13b > $OUT/run3-lab-softmax_long.log 2>&1)
echo "softmax_long exit $?"; grep -E "^128x131072" $OUT/run3-lab-softmax_long.log
LABS=0 bash bench/results/h200-session12/runA.sh 2>&1 | grep -v "cannot stat\|No such file"
