#!/usr/bin/env bash
# Compiles every bench/lab/*.cu (or the ones named) to bench/lab/build/<name>.cubin for sm_90, with the
# repository root on the include path (labs may include ops/common/cuda_dialect/*.cuh). The cubins travel
# to the GPU machine (device tool: carry bench/lab/build) and are loaded there by lab.py with cupy.
# A lab with a <name>.ptx.sed beside it goes through PTX instead: nvcc -ptx, that sed script, then ptxas, for a
# directive CUDA C++ cannot write alone (elementwise_path: .reqntid without .blocksareclusters).
#   build.sh --check   every lab through nvcc's front end to PTX, two at a time, nothing kept (CI: the labs include
#                      the library's kernels and instantiate them by name, so a changed template breaks them)
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
FLAGS="-arch=sm_90 -O3 -std=c++17 -I../.. -I../../include --expt-relaxed-constexpr -lineinfo"
if [ "${1:-}" = --check ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  export NVCC FLAGS scratch
  # shellcheck disable=SC2016
  ls ./*.cu | xargs -P 2 -n 1 sh -c 'name=$(basename "$1" .cu)
    if "$NVCC" -ptx $FLAGS -o "$scratch/$name.ptx" "$1" > "$scratch/$name.log" 2>&1; then echo "compiles: $1"
    else echo "FAILS: $1"; tail -n 5 "$scratch/$name.log"; exit 1; fi' sh
  exit $?
fi
read -r -a flags <<< "$FLAGS"
mkdir -p build
sources=("$@")
[ ${#sources[@]} -eq 0 ] && sources=(*.cu)
for source in "${sources[@]}"; do
  name=$(basename "$source" .cu)
  if [ -f "$name.ptx.sed" ]; then
    "$NVCC" -ptx "${flags[@]}" -o "build/$name.ptx" "$source"
    sed -i -f "$name.ptx.sed" "build/$name.ptx"
    "$(dirname "$NVCC")/ptxas" -arch=sm_90 -O3 -lineinfo -warn-spills -o "build/$name.cubin" "build/$name.ptx"
  else
    "$NVCC" -cubin "${flags[@]}" -Xptxas -warn-spills -o "build/$name.cubin" "$source"
  fi
  echo "built build/$name.cubin"
done
