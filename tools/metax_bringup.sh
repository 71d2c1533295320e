#!/usr/bin/env bash
# MetaX bring-up in one command, on a machine with a MetaX GPU and the MACA SDK:
#
#   MACA_PATH=/opt/maca tools/metax_bringup.sh [OUT_DIR]
#
# 1. records the machine: mx-smi, the SDK (MACA_PATH, its version files, mxcc --version), the checkout;
# 2. builds everything with --config=metax (the MetaX kernels, libcamp_ops.so, the wheel);
# 3. runs every test that --config=metax selects: the CPU suites and every `metax`-tagged test (each
#    op's cases and the C API tests on backend metax);
# 4. runs the benchmark on backend metax (tools/run_ops.py --mode bench --json);
# 5. writes OUT_DIR/report.md (attach it to an issue) and report.json, with the logs next to them.
# Every step runs even when an earlier one failed (a failed build still gets its log into the report).
# Exit status 0 only if the build, the tests and the benchmark all succeeded.
#
# OUT_DIR defaults to /tmp/oprt-metax-bringup-<date>. Env: MACA_PATH (default /opt/maca), BENCH_ARGS
# (extra run_ops flags, e.g. "--op softmax --repeats 10"), BAZEL_FLAGS (extra Bazel flags, e.g.
# --//tools:maca_archs=xcore1000).
#
# --standin: rehearse the whole flow without MetaX hardware, against the SIMT emulator's fake SDK
# (tools/metax_standin/make_sdk.sh --simt; the "device" is the CPU running the MetaX build with 64-lane
# warps, benchmark shapes shrunk to 2^20 elements). Its report says so on every page; it proves the
# script, not MetaX.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STANDIN=0
if [ "${1:-}" = "--standin" ]; then STANDIN=1; shift; fi
OUT=${1:-/tmp/oprt-metax-bringup-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
START=$(date +%s)
FLAGS=(--config=metax)
# shellcheck disable=SC2206
[ -n "${BAZEL_FLAGS:-}" ] && FLAGS+=($BAZEL_FLAGS)
# shellcheck disable=SC2206
BENCH=(${BENCH_ARGS:-})

if [ "$STANDIN" = 1 ]; then
  MACA_PATH="${XDG_CACHE_HOME:-$HOME/.cache}/operator_runtime/metax-bringup-standin/sdk"
  tools/metax_standin/make_sdk.sh --simt "$MACA_PATH" || { echo "cannot make the stand-in SDK" >&2; exit 1; }
  FLAGS+=("--sandbox_writable_path=$MACA_PATH/log")
  BENCH+=(--max_bench_elements=1048576 --repeats=3)
fi
export MACA_PATH=${MACA_PATH:-/opt/maca}
FLAGS+=("--repo_env=MACA_PATH=$MACA_PATH")
say() { echo "== $* ($(( $(date +%s) - START )) s)"; }

# ---- 1. the machine ----
say "machine facts"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-$(uname -s)}") / $(uname -r) / $(uname -m)"
  echo "checkout: $(git rev-parse HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with local changes)') $(git rev-parse --abbrev-ref HEAD 2>/dev/null)"
  echo "MACA_PATH: $MACA_PATH -> $(readlink -f "$MACA_PATH" 2>/dev/null)"
  for f in Version.txt version.txt VERSION version .version; do
    [ -f "$MACA_PATH/$f" ] && echo "SDK $f: $(head -c 300 "$MACA_PATH/$f" | tr '\n' ' ')"
  done
  mxcc=$MACA_PATH/mxgpu_llvm/bin/mxcc; [ -x "$mxcc" ] || mxcc=$MACA_PATH/bin/mxcc
  echo "mxcc: $mxcc"
  [ -x "$mxcc" ] && "$mxcc" --version 2>&1 | head -n 5 | sed 's/^/mxcc --version: /'
  command -v dpkg >/dev/null && dpkg -l 2>/dev/null | awk '/maca|metax|mxgpu|mxdriver/ {print "package: " $2 " " $3}' | head -n 20
  if command -v mx-smi >/dev/null; then
    mx-smi --show-version 2>&1 | head -n 20 | sed 's/^/mx-smi --show-version: /'
    mx-smi 2>&1 | head -n 40 | sed 's/^/mx-smi: /'
  else
    echo "mx-smi: not on PATH"
  fi
  [ "$STANDIN" = 1 ] && echo "STAND-IN REHEARSAL: no MetaX hardware; MACA_PATH is the SIMT emulator's fake SDK"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
if [ ! -x "$MACA_PATH/mxgpu_llvm/bin/mxcc" ] && [ ! -x "$MACA_PATH/bin/mxcc" ]; then
  echo "MACA SDK not found: no mxcc under MACA_PATH=$MACA_PATH (set MACA_PATH to the SDK root)" | tee "$OUT/logs/build.log"
fi

# ---- 2. build ----
say "./bazelw build ${FLAGS[*]} //..."
t0=$(date +%s)
./bazelw build "${FLAGS[@]}" //... >"$OUT/logs/build.log" 2>&1
build_rc=$?
build_s=$(( $(date +%s) - t0 ))
tail -n 5 "$OUT/logs/build.log"

# ---- 3. tests ----
say "./bazelw test ${FLAGS[*]} //...  (the CPU suites and every metax-tagged test)"
t0=$(date +%s)
./bazelw test "${FLAGS[@]}" --keep_going //... >"$OUT/logs/test.log" 2>&1
test_rc=$?
test_s=$(( $(date +%s) - t0 ))
grep -E "^//.* (PASSED|FAILED|NO STATUS|TIMEOUT|FLAKY|SKIPPED)|^Executed" "$OUT/logs/test.log"
TESTLOGS=$(./bazelw info "${FLAGS[@]}" bazel-testlogs 2>/dev/null)

# ---- 4. benchmark ----
say "benchmark: ./bazelw run ${FLAGS[*]} //tools:run_ops -- --op all --backend metax --mode bench --json $OUT/bench.json ${BENCH[*]}"
t0=$(date +%s)
./bazelw run "${FLAGS[@]}" //tools:run_ops -- --op all --backend metax --mode bench --json "$OUT/bench.json" \
  "${BENCH[@]}" >"$OUT/logs/bench.log" 2>&1
bench_rc=$?
bench_s=$(( $(date +%s) - t0 ))
tail -n 40 "$OUT/logs/bench.log"
if [ -f "$OUT/bench.json" ]; then
  ./bazelw run //tools:plot_bench -- "$OUT/bench.json" "$OUT/bench.png" >"$OUT/logs/plot.log" 2>&1 || true
fi

# ---- 5. report ----
say "report"
python3 - "$OUT" "$TESTLOGS" "$STANDIN" "$build_rc" "$build_s" "$test_rc" "$test_s" "$bench_rc" "$bench_s" \
  "${FLAGS[*]}" <<'PY'
import glob, json, os, re, sys, xml.etree.ElementTree as ET
out, testlogs, standin = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
build_rc, build_s, test_rc, test_s, bench_rc, bench_s = map(int, sys.argv[4:10])
flags = sys.argv[10]
test_log = open(os.path.join(out, "logs", "test.log"), errors="replace").read()
ran = re.findall(r"^(//\S+)\s+(?:\(cached\) )?(PASSED|FAILED|NO STATUS|TIMEOUT|FLAKY)", test_log, re.M)
targets, failures = [], []
for label, status in ran:
    path = os.path.join(testlogs, label[2:].replace(":", "/"), "test.xml")
    tests = fails = skipped = 0
    if os.path.exists(path):
        for suite in ET.parse(path).getroot().iter("testsuite"):
            if suite.find("testsuite") is not None:
                continue
            tests += int(suite.get("tests", 0))
            skipped += int(suite.get("skipped", 0))
            fails += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            for case in suite.iter("testcase"):
                bad = case.find("failure") if case.find("failure") is not None else case.find("error")
                if bad is not None and len(failures) < 50:
                    message = (bad.get("message") or bad.text or "").strip().splitlines()
                    failures.append("%s %s: %s" % (label, case.get("name"), message[0][:240] if message else ""))
    targets.append({"target": label, "status": status, "metax": label.endswith("_metax"),
                    "passed": tests - skipped - fails, "failed": fails, "skipped": skipped})
metax = [t for t in targets if t["metax"]]
bench = None
if os.path.exists(os.path.join(out, "bench.json")):
    bench = json.load(open(os.path.join(out, "bench.json")))
machine = open(os.path.join(out, "machine.txt"), errors="replace").read()
report = {
    "standin_rehearsal": standin, "bazel_flags": flags,
    "build": {"ok": build_rc == 0, "seconds": build_s},
    "tests": {"ok": test_rc == 0, "seconds": test_s, "targets": targets, "failures": failures,
              "metax_passed": sum(t["passed"] for t in metax), "metax_failed": sum(t["failed"] for t in metax),
              "all_passed": sum(t["passed"] for t in targets), "all_failed": sum(t["failed"] for t in targets)},
    "bench": {"ok": bench_rc == 0 and bench is not None, "seconds": bench_s, "json": "bench.json" if bench else None,
              "device": (bench or {}).get("machine", {}).get("device"), "rows": len((bench or {}).get("results", []))},
    "machine": machine,
}
json.dump(report, open(os.path.join(out, "report.json"), "w"), indent=1)
ok = lambda b: "ok" if b else "FAILED"
lines = ["# MetaX bring-up report" + (" - STAND-IN REHEARSAL (no MetaX hardware: the SIMT emulator)" if standin else ""), ""]
if standin:
    lines += ["**This is a rehearsal of tools/metax_bringup.sh against the SIMT emulator's fake SDK. Nothing here "
              "ran on MetaX hardware or went through mxcc.**", ""]
lines += ["## Machine and SDK", "", "```", machine.strip(), "```", "",
          "## Summary", "",
          "| step | result | time |", "|---|---|---|",
          "| build `./bazelw build %s //...` | %s | %d s |" % (flags, ok(build_rc == 0), build_s),
          "| tests `./bazelw test %s //...` | %s: metax cases %d passed, %d failed; all cases %d passed, %d failed | %d s |" % (
              flags, ok(test_rc == 0), report["tests"]["metax_passed"], report["tests"]["metax_failed"],
              report["tests"]["all_passed"], report["tests"]["all_failed"], test_s),
          "| benchmark `run_ops --backend metax --mode bench` | %s: %d rows, device %s | %d s |" % (
              ok(report["bench"]["ok"]), report["bench"]["rows"], report["bench"]["device"], bench_s), "",
          "## Tests", "", "| target | status | passed | failed | skipped |", "|---|---|---|---|---|"]
lines += ["| %s | %s | %d | %d | %d |" % (t["target"], t["status"], t["passed"], t["failed"], t["skipped"]) for t in targets]
if failures:
    lines += ["", "### First failures", "", "```"] + failures + ["```"]
if bench:
    lines += ["", "## Benchmark (%s; timing: %s, peak copy %s)" % (
        "bench.json", bench.get("timing"), bench.get("peak_copy_GBps")), "",
              "| op | case | us | GB/s |", "|---|---|---|---|"]
    lines += ["| %s | %s | %.1f | %.1f |" % (r["op"], r["case"], r["ours_us"], r["ours_GBps"]) for r in bench["results"]]
lines += ["", "## Files", "", "report.json, machine.txt, bench.json, bench.png (if matplotlib), logs/build.log, "
          "logs/test.log, logs/bench.log"]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines) + "\n")
print("metax bring-up: build %s, tests %s (metax cases %d passed, %d failed), benchmark %s" % (
    ok(build_rc == 0), ok(test_rc == 0), report["tests"]["metax_passed"], report["tests"]["metax_failed"],
    ok(report["bench"]["ok"])))
PY
say "done: $OUT/report.md (attach it, with bench.json, to the issue)"
[ "$build_rc" -eq 0 ] && [ "$test_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
