#!/usr/bin/env bash
# Session 10, run 1: lab reduce_scalar (whole-tensor sums in one kernel or two, torch.compile's kernels one by one).
# Carry: bench/lab/build (bench/lab/build.sh reduce_scalar.cu).
set -uo pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
cd bench/lab
TORCH_LOGS=output_code timeout 420 python3 reduce_scalar.py > "$OUT/reduce_scalar.log" 2> "$OUT/reduce_scalar.stderr"
echo "rc $?"
tail -5 "$OUT/reduce_scalar.stderr"
grep -v "^ " "$OUT/reduce_scalar.log" | awk '{print}' | cut -c1-170
