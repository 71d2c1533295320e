#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck over every op's test cases on the nvidia backend
# (torch comparison off: only our kernels run), then tests/test_threads.py on nvidia without a
# sanitizer (when it exists). One log, ending with one summary line per step, e.g.
#   memcheck: 2247 cases, 0 errors     (N = test cases run: passed + failed)
# For the H200 (no Bazel there): run from a checkout after tools/gpu_session.sh installed the wheel
# into /tmp/oprt-site:   tools/gpu_sanitize.sh [LOG]      (default /tmp/oprt-gpu/sanitize.log)
# Each step runs under a timeout (seconds: MEMCHECK_S, RACECHECK_S, SYNCCHECK_S, THREADS_S), so the
# whole script stays within about 8 minutes on one H200; exit status 0 only if every step was clean.
#
# What the selections cover (test ids of ops/*/cases.py and the ops' own tests, every dtype and every
# layout each case lists: contiguous, transposed, sliced, broadcast, strided out=, in place):
#   elementwise (copy, relu, vector_add): 33x65, 5x7x9, 1025 (vector and strided paths, broadcast
#     inputs, special values), 4000000 (grid-stride loops).
#   reduce_sum: 3x0x4 (empty reduced axis: zeros; extent 1: a copy), 33x65 / 5x7x9 (short rows: a group
#     per row; columns; gathers of non-dense x into the workspace), 2000x2048 and 1024x4096 (long rows:
#     a block per row; strided gather), 4096x1024 and 33x65 axis 0 (columns, split across blocks),
#     3x1000001 / 2x262144 (split rows through the workspace, interleaved parts, misaligned rows), 4000000
#     (a whole sum: pieces of the streamed kernel, then a 128-thread second pass), 20480004 (a whole sum in
#     1024-thread slices, the last one masked, on devices where they make 8 waves; then a 256-thread second
#     pass), 601x8192 and 601x4096 (rows of one 32 KB slice, f32, of 16 KB, f32 and half, and of 8 KB, half:
#     the slice kernel, a block per row), test_rows_at_once (rows of 257-1024 packs, exact 8 and 16 KB and
#     others: the slice kernel or sum_row_at_once masked to the row), 1001x256 and 333x512 (half rows in
#     tiles, the last block partly filled), 1024x256 and 336x512 (every block full: the exact form),
#     136x30001 and 12x100003 (a cluster per row of 8 and 16 blocks, misaligned parts: sm_90).
#   softmax / log_softmax: 33x65, 5x7x9, 1025 (rows in registers; columns for axis 0; the parts tier
#     for 1025-long rows), 5x1032, 5x2056, 40x2048 (a block per row in registers), 1024x4096 (a block
#     per row in shared memory), 40x4096 and 20x5000 (a cluster per row), 12x250000 and 9x200003 (a
#     cluster of 16 blocks per row for half types, packed and unpacked; sm_90), 40x65536 f64 (a cluster of
#     8 whole parts: the unmasked kernel), 2x262144 (rows cut into parts
#     through the workspace), 4096x1024, 600x72 (in place too) and 40x25600 axis 0 (columns: a cluster of
#     8, 8 and 1 blocks per tile on sm_90, columns.cuh elsewhere). Not reached by any listed case: the 128-thread
#     shared-memory variant (>= 132 rows of 1025-2048 unaligned f32 columns).
#   memcheck also runs the CuTe variants of copy and vector_add on the cases above
#   (tests/test_kernel_variants.py), and the C API test on nvidia (tests/test_c_api.py: memory and stream API,
#     stream-ordered allocations, workspaces, misuse), all but its deliberate 2^64-byte allocations.
#   racecheck / synccheck run softmax and reduce_sum only: the elementwise kernels use no shared memory
#     and no barriers.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-/tmp/oprt-gpu/sanitize.log}
mkdir -p "$(dirname "$LOG")"
: > "$LOG"
export PYTHONPATH=/tmp/oprt-site:$PWD PYTHONUNBUFFERED=1 OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0
KERNEL_CASES="4000000 or 20480004 or 601x8192 or 601x4096 or 1001x256 or 333x512 or 1024x256 or 336x512 or 136x30001 or 12x100003 or 12x250000 or 9x200003 or 40x65536 or 600x72 or 40x25600 or 33x65 or 5x7x9 or 1025 or 2x262144 or 3x1000001 or 5x1032 or 5x2056 or 40x2048 or 40x4096 or 20x5000 or 1024x4096 or 4096x1024 or 2000x2048 or test_rows_at_once"
# (test_malloc_of_impossible_sizes asks cudaMalloc for 2^64 bytes on purpose: memcheck would count the
# failed API call as an error)
MEMCHECK_K=${MEMCHECK_K:-"($KERNEL_CASES or 3x0x4 or test_c_api) and not impossible_sizes"}
SHARED_K=${SHARED_K:-$KERNEL_CASES}
# reduce_sum's 16-block cluster kernel, which synccheck reports (README, "GPU backends"; notes: "Session 8: synccheck
# on the 16-block kernel"): synccheck runs these cases in a process of their own, since after a report the
# sanitizer stops the kernel and every later case of that process fails; run with the rest, they hid the
# synccheck results of every case after them.
CLUSTER16_K="test_reduce_sum and (136x30001 or 12x100003)"
SUMMARY=()
status=0

log() { echo "$*" | tee -a "$LOG"; }

# sanitize TOOL TIMEOUT SELECTION PATHS...: one compute-sanitizer run of pytest, its summary line.
sanitize() {
  local tool=$1 limit=$2 selection=$3 out rc cases failed errors note=""
  shift 3
  out=$(mktemp)
  log ""
  log "== compute-sanitizer --tool $tool (timeout ${limit}s): pytest $* -k '$selection'"
  local start=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 \
    python3 -m pytest -q -p no:cacheprovider "$@" -k "$selection" > "$out" 2>&1
  rc=$?
  cat "$out" >> "$LOG"
  grep -E "SUMMARY|passed|failed|rror" "$out" | tail -n 4
  cases=$(grep -oE '[0-9]+ passed' "$out" | tail -n 1 | grep -oE '^[0-9]+')
  failed=$(grep -oE '[0-9]+ failed' "$out" | tail -n 1 | grep -oE '^[0-9]+')
  if [ "$tool" = racecheck ]; then  # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
    errors=$(grep -oE 'RACECHECK SUMMARY: .*\(([0-9]+) errors' "$out" | tail -n 1 | grep -oE '[0-9]+ errors' | grep -oE '^[0-9]+')
  else  # "ERROR SUMMARY: N errors"
    errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$out" | tail -n 1 | grep -oE '[0-9]+')
  fi
  [ -n "$failed" ] && note="$note, $failed test failures"
  [ "$rc" -eq 124 ] && note="$note, TIMED OUT after ${limit}s"
  [ -z "$errors" ] && note="$note, no sanitizer summary (exit status $rc)"
  if [ $(( ${cases:-0} + ${failed:-0} )) -eq 0 ]; then note="$note, NO CASE RAN (nvidia backend unavailable?)"; status=1; fi
  SUMMARY+=("$tool: $(( ${cases:-0} + ${failed:-0} )) cases, ${errors:-?} errors$note ($((SECONDS - start)) s)")
  [ "$rc" -eq 0 ] || status=1
  rm -f "$out"
}

log "gpu_sanitize.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
log "$(compute-sanitizer --version 2>/dev/null | tail -n 1)"
python3 -c "import operator_runtime as o; print('operator_runtime', o.__version__, o.available_backends(), o._lib.lib._name)" 2>&1 | tee -a "$LOG"

sanitize memcheck "${MEMCHECK_S:-210}" "$MEMCHECK_K" ops tests/test_c_api.py tests/test_kernel_variants.py
sanitize racecheck "${RACECHECK_S:-120}" "$SHARED_K" ops/softmax ops/reduce_sum
sanitize synccheck "${SYNCCHECK_S:-90}" "($SHARED_K) and not ($CLUSTER16_K)" ops/softmax ops/reduce_sum
sanitize synccheck "${SYNCCHECK_S:-90}" "($SHARED_K) and ($CLUSTER16_K)" ops/reduce_sum
SUMMARY[-1]="${SUMMARY[-1]/synccheck:/synccheck of the 16-block cluster cases, a known report:}"

if [ -f tests/test_threads.py ]; then
  log ""
  log "== tests/test_threads.py on nvidia (no sanitizer; torch streams when torch is installed)"
  out=$(mktemp)
  start=$SECONDS
  env -u OPRT_TEST_TORCH timeout "${THREADS_S:-90}" python3 -m pytest -q -p no:cacheprovider tests/test_threads.py > "$out" 2>&1
  rc=$?
  cat "$out" >> "$LOG"
  tail -n 3 "$out"
  passed=$(grep -oE '[0-9]+ passed' "$out" | tail -n 1 | grep -oE '^[0-9]+')
  failed=$(grep -oE '[0-9]+ failed' "$out" | tail -n 1 | grep -oE '^[0-9]+')
  line="threads: ${passed:-0} passed, ${failed:-0} failed"
  [ "$rc" -eq 124 ] && line="$line, TIMED OUT after ${THREADS_S:-90}s"
  SUMMARY+=("$line ($((SECONDS - start)) s)")
  [ "$rc" -eq 0 ] || status=1
  rm -f "$out"
else
  SUMMARY+=("threads: tests/test_threads.py not in this checkout")
fi

log ""
log "== summary (log: $LOG)"
for line in "${SUMMARY[@]}"; do log "$line"; done
exit "$status"
