#!/usr/bin/env bash
# Session 35 call 4 (carry dist/final, .s35): the A/A lab again, x made in half and converted from float.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD timeout 200 python3 aa_timing.py 2 > $OUT/aa_timing.log 2>&1; echo "aa exit $?")
sed 's/  */ /g; s/ p20 [0-9.]*//; s/ p80 [0-9.]* us [0-9]* GB.s//' $OUT/aa_timing.log | grep -E "round" | grep -v -E "filler|again" | cut -c1-130
