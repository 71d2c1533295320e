#!/usr/bin/env bash
# Compiles every bench/lab/*.cu (or the ones named) to bench/lab/build/<name>.cubin for sm_90, with the
# repository root on the include path (labs may include ops/common/cuda_dialect/*.cuh). The cubins travel
# to the GPU machine (device tool: carry bench/lab/build) and are loaded there by lab.py with cupy.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p build
sources=("$@")
[ ${#sources[@]} -eq 0 ] && sources=(*.cu)
for source in "${sources[@]}"; do
  name=$(basename "$source" .cu)
  "$NVCC" -cubin -arch=sm_90 -O3 -std=c++17 -I../.. -I../../include --expt-relaxed-constexpr -lineinfo -Xptxas -warn-spills \
    -o "build/$name.cubin" "$source"
  echo "built build/$name.cubin"
done
