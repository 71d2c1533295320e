#!/usr/bin/env bash
# Written in session 35, not run (no device time left); any card. From a checkout: main's wheel in dist/final
# (./bazelw build --config=nvidia //python:wheel), the candidates' in dist/tilephase and dist/tilelean (git apply
# bench/results/h100-session35/cand-<name>.patch, build the wheel the same way, git checkout the files),
# bench/lab/build.sh reduce_tile.cu; carry dist/final, dist/tilephase, dist/tilelean, bench/lab/build/reduce_tile.cubin.
# 1. run_ops A/B of main against tilephase (tile2's two rows a group in 64-thread blocks, each row's loads then its
#    adds, as ptxas compiled the lab's fast tile) and tilelean (today's tiles, and where the grid covers the rows
#    exactly a form without the row test, in 32-bit offsets: its first load after 16 instructions, not 28), two rounds.
# 2. aa_timing's "kinds" loop: ours and torch.compile beside every reduce_tile kernel, whether ~10 distinct kernels
#    in a loop are what slows the labs' torch.compile.
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 tools/gpu_ab.sh dist/final dist/tilephase,dist/tilelean $OUT 2 --op reduce_sum --peers torch_compile \
  --shapes 16384x256,8192x512 2>&1 | tail -n 9
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/final/*.whl
(cd bench/lab && PYTHONPATH=/tmp/oprt-site:$PWD timeout 120 python3 aa_timing.py 2 kinds > $OUT/aa_timing.log 2>&1; echo "aa exit $?")
sed 's/  */ /g; s/ p20 [0-9.]*//; s/ p80 [0-9.]* us [0-9]* GB.s//' $OUT/aa_timing.log | grep -E "round" \
  | grep -E "torch.compile p|ours p|\(today\)|lanes 8 packs 4 rows 1 block 64|lanes 16 packs 4 rows 2 block 64" | cut -c1-150
