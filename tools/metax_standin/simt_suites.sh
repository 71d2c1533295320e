#!/usr/bin/env bash
# The MetaX build of every kernel, run on the CPU (a CI step; needs only a host C++ compiler):
#   1. makes a fake MACA SDK whose mxcc is the host compiler plus the SIMT emulator (make_sdk.sh --simt):
#      the .maca units compile as MACA compiles them (__MACACC__: 64-lane warps, 64-bit lane masks, the
#      MACA-only branches), kernels become host functions that the emulator runs thread by thread with
#      64-lane warps, device memory is host memory;
#   2. runs every `metax`-tagged test (the op suites and the C API tests on backend metax) with
#      --config=metax against it, exactly as tools/metax_bringup.sh runs them on a MetaX machine;
#   3. prints "CI: PASS|FAIL ..." lines and "metax simt: N passed, N failed" (test cases, from JUnit XML).
# What it shows: the 64-lane reduction/softmax/elementwise logic and the MACA branches give the CPU
# reference's results. What it cannot: MACA's compiler, ISA, memory model, timing (see docs/backends.md).
# Usage: tools/metax_standin/simt_suites.sh [pytest args, e.g. -k 'not 67108864']
# Env: METAX_STANDIN_JOBS (default 2). The SDK path carries a hash of tools/metax_standin, so an
# unchanged checkout is served from Bazel's cache and a changed emulator rebuilds everything.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
JOBS=${METAX_STANDIN_JOBS:-2}
HASH=$(find tools/metax_standin -type f ! -path '*__pycache__*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
WORK="${XDG_CACHE_HOME:-$HOME/.cache}/operator_runtime/metax-simt"
SDK="$WORK/sdk-$HASH"
find "$WORK" -mindepth 1 -maxdepth 1 -name 'sdk-*' ! -name "sdk-$HASH" -exec rm -rf {} + 2>/dev/null
if [ ! -f "$SDK/standin.json" ] && ! tools/metax_standin/make_sdk.sh --simt "$SDK" 2>"$WORK.make_sdk.log"; then
  cat "$WORK.make_sdk.log"
  echo "CI: FAIL metax simt: could not make the emulator SDK"
  echo "metax simt: 0 passed, 0 failed"
  exit 1
fi
echo "metax simt: emulator SDK at $SDK"

TEST_ARGS=()
for arg in "$@"; do TEST_ARGS+=("--test_arg=$arg"); done
FLAGS=(--config=metax "--repo_env=MACA_PATH=$SDK" "--sandbox_writable_path=$SDK/log" "--jobs=$JOBS")
echo "metax simt: ./bazelw test ${FLAGS[*]} --test_tag_filters=metax --build_tests_only ${TEST_ARGS[*]} //..."
./bazelw test "${FLAGS[@]}" --test_tag_filters=metax --build_tests_only "${TEST_ARGS[@]}" //... >"$WORK/test.log" 2>&1
rc=$?
grep -E "^//.* (PASSED|FAILED|NO STATUS|TIMEOUT|FLAKY)|^ERROR|^Executed" "$WORK/test.log"

# Cases per test target, from the JUnit XML Bazel keeps (skipped cases are not counted as passed).
python3 - "$(./bazelw info bazel-testlogs "${FLAGS[@]}" 2>/dev/null)" "$rc" <<'PY'
import glob, os, sys, xml.etree.ElementTree as ET
root, rc = sys.argv[1], int(sys.argv[2])
passed = failed = 0
parts = []
for path in sorted(glob.glob(os.path.join(root, "**", "*_metax", "test.xml"), recursive=True)):
    tests = fails = 0
    for suite in ET.parse(path).getroot().iter("testsuite"):
        if suite.find("testsuite") is None:
            tests += int(suite.get("tests", 0)) - int(suite.get("skipped", 0))
            fails += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    passed += tests - fails
    failed += fails
    parts.append("%s %d" % (os.path.basename(os.path.dirname(path)), tests - fails))
ok = rc == 0 and failed == 0 and passed > 0
print("CI: %s metax on the SIMT emulator: the MetaX build of every kernel (64-lane warps, MACA branches) passed "
      "%d test cases on backend metax (%s)%s" % ("PASS" if ok else "FAIL", passed, ", ".join(parts),
      "" if ok else "; %d failed, bazel exit %d" % (failed, rc)))
print("metax simt: %d passed, %d failed" % (passed, failed))
sys.exit(0 if ok else 1)
PY
status=$?
echo "metax simt: finished in $(( $(date +%s) - START )) s"
exit $status
