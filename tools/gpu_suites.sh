#!/usr/bin/env bash
# On a GPU machine without Bazel: every test file (ops/**/test_*.py, tests/test_*.py) on one backend, each in its
# own pytest process, all at once (a GPU runs several processes' small kernels side by side; the whole suite takes
# the time of its longest file). One JUnit XML per file under OUT, and one summary line per file plus a total.
#   tools/gpu_suites.sh SITE OUT [BACKEND]   SITE: a folder the wheel was installed into (pip --target); run from a checkout
set -uo pipefail
SITE=$1; OUT=$2; BACKEND=${3:-nvidia}
mkdir -p "$OUT"
export PYTHONPATH=$SITE:$PWD PYTHONUNBUFFERED=1 OPRT_TEST_BACKENDS=$BACKEND
files=$(ls ops/*/test_*.py ops/*/*/test_*.py tests/test_*.py 2>/dev/null | grep -v tilelang)
pids=()
for f in $files; do
  name=$(echo "$f" | tr '/' '_' | sed 's/\.py$//')
  python3 -m pytest -q -p no:cacheprovider --junitxml="$OUT/$name.xml" "$f" > "$OUT/$name.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
python3 - "$OUT" <<'EOF'
import pathlib, sys, xml.etree.ElementTree as ET
total = [0, 0, 0, 0]
for xml in sorted(pathlib.Path(sys.argv[1]).glob("*.xml")):
    suite = ET.parse(xml).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    tests, failures, errors, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    passed = tests - failures - errors - skipped
    print("%-44s %5d passed %4d failed %4d errors %4d skipped" % (xml.stem, passed, failures, errors, skipped))
    for i, v in enumerate((passed, failures, errors, skipped)):
        total[i] += v
print("%d passed, %d failed (%d errors, %d skipped)" % (total[0], total[1] + total[2], total[2], total[3]))
EOF
