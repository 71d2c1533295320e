#!/usr/bin/env bash
# On a GPU machine: every test file on nvidia from two installed wheels at once (tools/gpu_suites.sh each), the
# sm_90 build's (SITE) and the compute_80 PTX-only build's (PTX_SITE), with run_ops's tests beside them from SITE.
# Prints each suite's total and any failures, and leaves OUT/PREFIX-test_run_ops.txt, OUT/PREFIX-suite.tgz and
# OUT/PREFIX-suite-ptx.tgz. Run from a checkout:
#   tools/gpu_suites_pair.sh SITE PTX_SITE OUT PREFIX
set -u
SITE=$1; PTX_SITE=$2; OUT=$3; PREFIX=$4
start=$(date +%s)
tools/gpu_suites.sh "$PTX_SITE" "$OUT/suite-ptx" nvidia > "$OUT/suite-ptx.txt" 2>&1 &
ptx=$!
tools/gpu_suites.sh "$SITE" "$OUT/suite" nvidia > "$OUT/suite.txt" 2>&1 &
sm90=$!
PYTHONPATH=$SITE:$PWD timeout 200 python3 -m pytest -q -p no:cacheprovider tools/test_run_ops.py > "$OUT/$PREFIX-test_run_ops.txt" 2>&1
echo "test_run_ops: $(tail -1 "$OUT/$PREFIX-test_run_ops.txt")"
wait $ptx $sm90 2>/dev/null; wait
echo "suites took $(( $(date +%s) - start )) s"
for s in suite suite-ptx; do
  echo "== $s"; tail -1 "$OUT/$s.txt"; grep -v " 0 failed    0 errors" "$OUT/$s.txt" | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" "$OUT/$s"/*.xml); do grep -m3 -A3 "<failure\|<error" "$f" | cut -c1-400; done | head -40
done
(cd "$OUT" && tar czf "$PREFIX-suite.tgz" suite suite.txt && tar czf "$PREFIX-suite-ptx.tgz" suite-ptx suite-ptx.txt && rm -rf suite suite-ptx)
