#!/usr/bin/env bash
# Makes a fake MACA SDK tree for the stand-in compile check (test-only; never shipped):
#   DIR/mxgpu_llvm/bin/mxcc    tools/metax_standin/mxcc (nvcc playing mxcc)
#   DIR/include/mcr/mc_runtime.h, DIR/include/common/maca_{fp16,bfloat16}.h   the stand-in headers
#   DIR/lib/libmcruntime.a     CUDA's static runtime (the stand-in headers map mc* onto cuda*)
#   DIR/standin.json           where nvcc is
#   DIR/log/                   one JSON record per mxcc invocation
# Usage: tools/metax_standin/make_sdk.sh DIR. Prints nothing on success; exits 3 when no CUDA toolkit
# is found (looked up as tools/cuda.bzl does: $CUDA_PATH, nvcc on PATH, /usr/local/cuda).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:?usage: make_sdk.sh DIR}

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

rm -rf "$DIR"
mkdir -p "$DIR/mxgpu_llvm/bin" "$DIR/lib" "$DIR/log"
cp -r "$HERE/sdk/include" "$DIR/include"
cp "$HERE/mxcc" "$DIR/mxgpu_llvm/bin/mxcc"
chmod +x "$DIR/mxgpu_llvm/bin/mxcc"
ln -s "$cuda/lib64/libcudart_static.a" "$DIR/lib/libmcruntime.a"
printf '{"nvcc": "%s", "cuda": "%s"}\n' "$cuda/bin/nvcc" "$cuda" > "$DIR/standin.json"
