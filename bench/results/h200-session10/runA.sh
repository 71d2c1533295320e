#!/usr/bin/env bash
# Session 10, final pair, run 1 of 2 (carry dist/base, dist/main, dist/ptx; .q1 travels untracked; one upload holds
# 64 MiB, so the base's PTX-only wheel stays behind: if the base is chosen, its PTX-only suite waits for another run):
# 1. the block-register softmax tier with log_softmax as a compile-time choice (dist/main) against the same code
#    without it (dist/base): run_ops on the 4096x4096 and 8192x8192 rows, torch eager as the only peer, base and
#    variant twice each, alternating; the suites then take the variant unless it was slower (sum of p50s > 0.5%).
# 2. every test file on nvidia from the chosen sm_90 wheel and, at the same time, from its compute_80 PTX-only
#    wheel; beside them compute-sanitizer on the block-register and whole-sum cases.
# 3. stages the first half of QuACK's cu13 libs for runB.sh.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
for w in base main ptx; do
  rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl
done
for round in 1 2; do
  for w in base main; do
    for c in 4096x4096 8192x8192; do
      PYTHONPATH=/tmp/site-$w:$PWD timeout 120 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax,log_softmax \
        --cases $c --peers torch_eager --json $OUT/runA-$w-$c-$round.json > $OUT/runA-$w-$c-$round.log 2>/dev/null
      echo "$w $c round $round exit $?"
    done
  done
done
choice=$(python3 - "$OUT" <<'EOF'
import glob, json, sys
total = {}
for w in ("base", "main"):
    for path in glob.glob("%s/runA-%s-*.json" % (sys.argv[1], w)):
        for row in json.load(open(path))["results"]:
            if "axis=0" in row["label"]:
                continue
            key = (row["op"], row["label"], row["dtype"])
            total.setdefault(key, {}).setdefault(w, []).append(row["impls"]["ours"]["device_us"]["p50"])
for key, v in sorted(total.items()):
    print("  %-12s %-22s %-9s base %s  variant %s" % (key + (v.get("base"), v.get("main"))), file=sys.stderr)
base = sum(min(v["base"]) for v in total.values())
main = sum(min(v["main"]) for v in total.values())
print("sum of best p50s: base %.1f us, variant %.1f us" % (base, main), file=sys.stderr)
print("main" if main <= 1.005 * base else "base")
EOF
)
echo "suites take: $choice"
SITE=/tmp/site-$choice; PTX=/tmp/site-ptx
rm -rf /tmp/oprt-site && cp -r $SITE /tmp/oprt-site
if [ "$choice" = main ]; then
  tools/gpu_suites.sh $PTX $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
  ptx=$!
else
  ptx=; echo "(no PTX-only suite for the base)" > $OUT/suite-ptx.txt; mkdir -p $OUT/suite-ptx
fi
tools/gpu_suites.sh $SITE $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
sanitize() {  # TOOL SECONDS TESTFILE SELECTION
  PYTHONPATH=$SITE:$PWD OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout $2 compute-sanitizer --tool $1 \
    --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider $3 -k "$4" > $OUT/sanitize-$1-$(basename $3 .py).log 2>&1
  echo "$1 $3 exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/sanitize-$1-$(basename $3 .py).log | tail -1)" \
       "$(grep -oE '[0-9]+ (passed|failed)' $OUT/sanitize-$1-$(basename $3 .py).log | tr '\n' ' ')"
}
BLOCK="5x1032 or 5x2056 or 40x2048 or 40x4096"
sanitize memcheck 200 ops/softmax/test_softmax.py "$BLOCK" &
sanitize racecheck 200 ops/softmax/test_softmax.py "$BLOCK" &
sanitize synccheck 200 ops/softmax/test_softmax.py "$BLOCK" &
wait $ptx $sm90 2>/dev/null; wait
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/$s/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
  (cd $OUT && tar czf $s.tgz $s $s.txt && rm -rf $s $s.txt)
done
