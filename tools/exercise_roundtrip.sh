#!/usr/bin/env bash
# The exercise-mode round trip (issue #10; docs/learners-guide.md "Exercise mode"), CI-able, on a machine
# without a GPU. In a scratch copy of this checkout (its tracked and unignored files; your tree, and any
# exercise you have in progress, are untouched):
#   1. `bazel run //tools:exercise -- start OP`: the learner's copy, ops/<op>/exercise/, with TODOs;
#   2. the op's metax test under --//tools:kernels=exercise, on the MetaX build run by the CPU SIMT emulator
#      (the fake SDK of tools/metax_standin/simt_suites.sh, same path, so its cached results serve): it must
#      FAIL, with the OPRT_TODO_LEFT text ("OP: kernel not implemented: edit ...") in the test log;
#   3. `bazel run //tools:exercise -- reset OP`, and the same test on the reference kernels: it must PASS.
# Prints one "exercise round trip: PASS|FAIL ..." line last; exit 0 on PASS.
# Usage: tools/exercise_roundtrip.sh [OP] (default softmax). The pytest filter of CI's simt run applies
# (the 64M-element cases take 10-30 s each on the emulator). The scratch copy stays at the path printed
# (its Bazel output base is reused by the next run; `cd` there and `./bazelw clean --expunge` frees it).
set -uo pipefail
OP=${1:-softmax}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
START=$(date +%s)
SCRATCH=/tmp/oprt-exercise-roundtrip-$(echo "$ROOT" | sha256sum | cut -c1-8)
LOG=$SCRATCH.log
FILTER='not 67108864 and not 8192x8192 and not test_read_only_cuda_array_interface_out_is_refused'
say() { echo "exercise round trip: $*"; }
result() { say "$1 $OP: $2 ($(( $(date +%s) - START )) s; log $LOG)"; [ -d "$SCRATCH" ] && (cd "$SCRATCH" && ./bazelw shutdown >/dev/null 2>&1); [ "$1" = PASS ]; exit $?; }

# The emulator SDK, exactly where simt_suites.sh keeps it.
HASH=$(cd "$ROOT" && find tools/metax_standin -type f ! -path '*__pycache__*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
WORK="${XDG_CACHE_HOME:-$HOME/.cache}/operator_runtime/metax-simt"
SDK="$WORK/sdk-$HASH"
mkdir -p "$WORK"
: >"$LOG"
if [ ! -f "$SDK/standin.json" ] && ! "$ROOT/tools/metax_standin/make_sdk.sh" --simt "$SDK" >>"$LOG" 2>&1; then
  result FAIL "could not make the emulator SDK"
fi

# The scratch copy: what git would commit from this tree (modified files as they are), plus your Bazel settings.
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH"
(cd "$ROOT" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$SCRATCH"
# user.bazelrc without its startup lines: a scratch workspace needs its own output base (CI pins CI's there).
[ -f "$ROOT/.bazelrc.generated" ] && cp "$ROOT/.bazelrc.generated" "$SCRATCH/"
[ -f "$ROOT/user.bazelrc" ] && grep -v '^startup' "$ROOT/user.bazelrc" > "$SCRATCH/user.bazelrc"
say "scratch copy $SCRATCH, emulator SDK $SDK"
cd "$SCRATCH" || result FAIL "no scratch copy"

PKG=$(python3 tools/exercise.py list | awk -v op="$OP" '$1 == op {print $2}')
[ -n "$PKG" ] || result FAIL "no op $OP in ops/operators.bzl"
TEST="//$PKG:test_${OP}_metax"
TESTLOG="bazel-testlogs/$PKG/test_${OP}_metax/test.log"
FLAGS=(--config=metax "--repo_env=MACA_PATH=$SDK" "--sandbox_writable_path=$SDK/log" --test_output=summary
       --test_tag_filters=metax "--test_arg=-k" "--test_arg=$FILTER")

# 1. start
./bazelw run //tools:exercise -- start "$OP" >>"$LOG" 2>&1 || result FAIL "start $OP failed: $(tail -1 "$LOG")"
TODO=$(grep -ho 'OPRT_TODO_LEFT ".*"' "$PKG"/exercise/*.cuh | head -1)
[ -n "$TODO" ] || result FAIL "start wrote no OPRT_TODO_LEFT line"
say "1. start $OP: $(grep -c 'TODO(step' "$PKG"/exercise/* | awk -F: '{n += $2} END {print n}') TODOs in $PKG/exercise/; $TODO"

# 2. the learner's kernels: the test must fail, with the TODO text.
./bazelw test "${FLAGS[@]}" --//tools:kernels=exercise --test_arg=--maxfail=5 "$TEST" >>"$LOG" 2>&1
rc=$?
failures=$(grep -c 'NotSupportedError: .*kernel not implemented' "$TESTLOG" 2>/dev/null)
line=$(grep -m1 -oE "NotSupportedError: (not supported: )?$OP: kernel not implemented.*" "$TESTLOG" 2>/dev/null | head -1)
if [ "$rc" -ne 3 ] || [ -z "$line" ]; then
  result FAIL "under --//tools:kernels=exercise $TEST did not fail with the TODO message (bazel exit $rc)"
fi
say "2. --//tools:kernels=exercise: $TEST FAILED (bazel exit $rc; stopped after $failures failing cases): $line"

# 3. reset, reference kernels: the test must pass.
./bazelw run //tools:exercise -- reset "$OP" >>"$LOG" 2>&1 || result FAIL "reset $OP failed"
[ ! -e "$PKG/exercise" ] || result FAIL "reset left $PKG/exercise"
./bazelw test "${FLAGS[@]}" "$TEST" >>"$LOG" 2>&1
rc=$?
summary=$(grep -E "^$TEST .*(PASSED|FAILED)" "$LOG" | tail -1 | tr -s ' ')
cases=$(grep -Eo '[0-9]+ passed' "$TESTLOG" 2>/dev/null | tail -1)
[ "$rc" -eq 0 ] || result FAIL "after reset $TEST failed (bazel exit $rc): $summary"
say "3. reset $OP, reference kernels: $summary${cases:+ ($cases)}"
result PASS "start -> exercise build on the emulated MetaX backend fails with the TODO message -> reset -> reference passes"
