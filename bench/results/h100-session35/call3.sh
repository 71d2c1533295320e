#!/usr/bin/env bash
# Session 35 call 3 (carry .s35, bench/lab/build/reduce_tile.cubin): lab reduce_tile with torch.compile autotuned in
# the timing process (autotune_local_cache = False, as run_ops), two rounds.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
(cd bench/lab && timeout 150 python3 reduce_tile.py 2 > $OUT/lab-reduce_tile.log 2>&1; echo "lab exit $?")
grep -E "(today|torch.compile p20|lanes 16 packs 4 rows 2 block 64|lanes 8 packs 4 rows 1 block 64|lanes 32 packs . rows . block 32 p)" $OUT/lab-reduce_tile.log | sed 's/  */ /g; s/ axis=-1//; s/ p20 [0-9.]*//; s/ p80 [0-9.]* us [0-9]* GB.s//' | cut -c1-120
