#!/usr/bin/env bash
# Session 35 call 5 (carry dist/final, .s35, bench/lab/build/reduce_tile.cubin): the A/A lab with the library's
# kernel also launched by cupy from the lab's cubin.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD timeout 200 python3 aa_timing.py 3 launch > $OUT/aa_timing.log 2>&1; echo "aa exit $?")
sed 's/  */ /g; s/ p20 [0-9.]*//; s/ p80 [0-9.]* us [0-9]* GB.s//' $OUT/aa_timing.log | grep -E "round" | grep -v -E "again" | cut -c1-150
