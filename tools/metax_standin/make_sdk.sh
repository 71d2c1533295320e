#!/usr/bin/env bash
# Makes a fake MACA SDK tree for tools/maca.bzl to use (test-only; never shipped). Two kinds:
#
#   make_sdk.sh DIR          nvcc plays mxcc: the stand-in compile check (check.sh)
#     DIR/mxgpu_llvm/bin/mxcc    tools/metax_standin/mxcc in nvcc mode
#     DIR/include/mcr/mc_runtime.h, DIR/include/common/maca_{fp16,bfloat16}.h   sdk/include (stand-ins)
#     DIR/lib/libmcruntime.a     CUDA's static runtime (the stand-in headers map mc* onto cuda*)
#     Needs a CUDA toolkit, found as tools/cuda.bzl finds it ($CUDA_PATH, nvcc on PATH,
#     /usr/local/cuda); exits 3 without one.
#
#   make_sdk.sh --simt DIR   the host C++ compiler plays mxcc: the MetaX kernels on the SIMT emulator
#     DIR/mxgpu_llvm/bin/mxcc    tools/metax_standin/mxcc in simt mode
#     DIR/include/mcr/           the emulator's <mc_runtime.h> and its headers (simt/include)
#     DIR/include/common/        the emulator's maca_fp16.h, the stand-in maca_bfloat16.h
#     DIR/lib/libmcruntime.a     empty: the emulated runtime is all inline
#
# Both: DIR/standin.json (mode and compilers), DIR/log/ (one JSON record per mxcc invocation).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MODE=nvcc
if [ "${1:-}" = "--simt" ]; then MODE=simt; shift; fi
DIR=${1:?usage: make_sdk.sh [--simt] DIR}

rm -rf "$DIR"
mkdir -p "$DIR/mxgpu_llvm/bin" "$DIR/lib" "$DIR/log" "$DIR/include/mcr" "$DIR/include/common"
cp "$HERE/mxcc" "$DIR/mxgpu_llvm/bin/mxcc"
chmod +x "$DIR/mxgpu_llvm/bin/mxcc"

if [ "$MODE" = simt ]; then
  cxx=$(command -v g++ || command -v c++ || true)
  [ -n "$cxx" ] || { echo "no host C++ compiler (g++) found" >&2; exit 3; }
  cp "$HERE"/simt/include/oprt_simt*.h "$HERE/simt/include/oprt_simt_api.inc" "$HERE/simt/include/mc_runtime.h" \
    "$DIR/include/mcr/"
  cp "$HERE/simt/include/common/maca_fp16.h" "$HERE/sdk/include/common/maca_bfloat16.h" "$DIR/include/common/"
  echo 'int oprt_simt_runtime_placeholder;' > "$DIR/lib/placeholder.c"
  gcc -c -fPIC "$DIR/lib/placeholder.c" -o "$DIR/lib/placeholder.o"
  ar rcs "$DIR/lib/libmcruntime.a" "$DIR/lib/placeholder.o"
  printf '{"mode": "simt", "cxx": "%s"}\n' "$cxx" > "$DIR/standin.json"
  exit 0
fi

cuda=
for candidate in "${CUDA_PATH:-}" "$(command -v nvcc >/dev/null && dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")" /usr/local/cuda; do
  if [ -n "$candidate" ] && [ -x "$candidate/bin/nvcc" ] && [ -f "$candidate/include/cuda_runtime.h" ]; then
    cuda=$(readlink -f "$candidate"); break
  fi
done
if [ -z "$cuda" ]; then
  echo "no CUDA toolkit found (looked at \$CUDA_PATH, nvcc on PATH, /usr/local/cuda)" >&2
  exit 3
fi
cp -r "$HERE/sdk/include/." "$DIR/include/"
ln -s "$cuda/lib64/libcudart_static.a" "$DIR/lib/libmcruntime.a"
printf '{"mode": "nvcc", "nvcc": "%s", "cuda": "%s"}\n' "$cuda/bin/nvcc" "$cuda" > "$DIR/standin.json"
