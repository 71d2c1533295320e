#!/usr/bin/env bash
# Session 35 call 2 (carry .q1, .whl2, dist/final, .s35): on an H200, call A of the H200 record (.s35/h200a.sh);
# on any other card, the A/A timing lab (bench/lab/aa_timing.py) from main's wheel.
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
if [[ $card == *H200* ]]; then bash .s35/h200a.sh $OUT; exit; fi
echo "$card"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD timeout 200 python3 aa_timing.py 3 > $OUT/aa_timing.log 2>&1; echo "aa exit $?")
sed 's/  */ /g' $OUT/aa_timing.log | grep -v filler | cut -c1-140
