#!/usr/bin/env bash
# The MetaX stand-in check (a CI step; needs a CUDA toolkit, no GPU, no MACA SDK):
#   1. makes a fake MACA SDK whose mxcc is nvcc playing mxcc (make_sdk.sh; mxcc's docstring says how);
#   2. builds //ops:libcamp_ops.so and the toolchain probe with --config=metax against it, so that
#      tools/maca.bzl's maca_library compiles every MetaX unit through the recording mxcc and links it;
#   3. compiles the canaries (known MACA mistakes) through the same mxcc: each must fail;
#   4. report.py checks what was recorded and prints "CI: PASS|FAIL ..." lines and
#      "metax stand-in: N units compiled, N failed".
# Usage: tools/metax_standin/check.sh   (from anywhere in the checkout; exit 0 iff every check passed)
# Env: METAX_STANDIN_JOBS (default 2) parallel compiles. The fake SDK and logs stay in
# ${XDG_CACHE_HOME:-~/.cache}/operator_runtime/metax-standin/ until the next run.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
JOBS=${METAX_STANDIN_JOBS:-2}
ARCH=xcore1000  # --//tools:maca_archs's default
WORK="${XDG_CACHE_HOME:-$HOME/.cache}/operator_runtime/metax-standin"
# A new SDK path every run: the path is in @local_maca's mxcc wrapper, so no compile is a cache hit
# and every unit really goes through the recording mxcc.
SDK="$WORK/sdk-$(date +%s)-$$"
rm -rf "$WORK"; mkdir -p "$WORK/canaries"

if ! tools/metax_standin/make_sdk.sh "$SDK" 2>"$WORK/make_sdk.log"; then
  cat "$WORK/make_sdk.log"
  echo "CI: FAIL metax stand-in: could not make the fake MACA SDK ($(tail -n 1 "$WORK/make_sdk.log"))"
  echo "metax stand-in: 0 units compiled, 0 failed"
  exit 1
fi
echo "metax stand-in: fake MACA SDK at $SDK (mxcc = nvcc $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda"])' "$SDK/standin.json"))"

FLAGS=(--config=metax "--repo_env=MACA_PATH=$SDK" "--sandbox_writable_path=$SDK/log" "--jobs=$JOBS")
TARGETS=(//ops:libcamp_ops.so //tools/metax_standin:libprobe_metax.so)
echo "metax stand-in: ./bazelw build ${FLAGS[*]} --keep_going ${TARGETS[*]}"
./bazelw build "${FLAGS[@]}" --keep_going "${TARGETS[@]}" >"$WORK/build.log" 2>&1
build_rc=$?
grep -E "error|ERROR|warning" "$WORK/build.log" | grep -v "^INFO" | head -n 40
grep -E "^INFO: (Elapsed|[0-9]+ processes)" "$WORK/build.log"
files() { ./bazelw cquery "${FLAGS[@]}" --output=files "$1" 2>/dev/null | tail -n 1; }
LIBRARY=$(files //ops:libcamp_ops.so)
PROBE=$(files //tools/metax_standin:libprobe_metax.so)
BUILT=$(date +%s)

# Canaries: the same mxcc, flags as maca_library gives an op's unit, from the checkout's root.
canary() {
  local src=$1 name; name=$(basename "$1")
  "$SDK/mxgpu_llvm/bin/mxcc" "--maca-path=$SDK" -x maca -std=c++17 -O3 -fPIC -fvisibility=hidden \
    "--offload-arch=$ARCH" -I. -isystem include -isystem "$SDK/include" -isystem "$SDK/include/mcr" \
    -c "$src" -o "$WORK/canaries/$name.o" >"$WORK/canaries/$name.log" 2>&1
}
export -f canary; export SDK WORK ARCH
ls tools/metax_standin/canaries/*.maca | xargs -P "$JOBS" -I{} bash -c 'canary {}'

python3 tools/metax_standin/report.py --sdk "$SDK" --arch "$ARCH" --library "$LIBRARY" --probe "$PROBE" \
  --canary-logs "$WORK/canaries"
report_rc=$?
if [ "$build_rc" -ne 0 ]; then
  echo "CI: FAIL metax stand-in: the --config=metax build against the fake SDK failed (log: $WORK/build.log)"
fi
echo "metax stand-in: build $((BUILT - START)) s, canaries and report $(( $(date +%s) - BUILT )) s, total $(( $(date +%s) - START )) s"
[ "$build_rc" -eq 0 ] && [ "$report_rc" -eq 0 ]
