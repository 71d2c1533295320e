#!/usr/bin/env bash
# Session 9, final pair, run 1 of 2: stage the first half of QuACK's cu13 libs (run3.sh brings the rest and the
# peers' wheels on the same warm machine); every test file on nvidia from the sm_90 wheel of the final code and,
# at the same time, from the compute_80 PTX-only wheel (JIT-compiled on the H200: no Hopper-only tier is loaded,
# so the dispatcher must take the others); beside them,
# compute-sanitizer on the new cluster kernels (softmax's 16-block clusters, the unmasked whole-part kernel) and
# synccheck on reduce_sum's 16-block cluster case again (session 8's "missing wait": is it the cluster size?).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
rm -rf /tmp/oprt-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-ptx dist/ptx/*.whl
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
tools/gpu_suites.sh /tmp/oprt-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
ptx=$!
tools/gpu_suites.sh /tmp/oprt-site $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
sanitize() {  # TOOL SECONDS TESTFILE SELECTION
  PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout $2 compute-sanitizer --tool $1 \
    --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider $3 -k "$4" > $OUT/sanitize-$1-$(basename $3 .py).log 2>&1
  echo "$1 $3 exit $?: $(grep -E 'ERROR SUMMARY' $OUT/sanitize-$1-$(basename $3 .py).log | tail -1)" \
       "$(grep -oE '[0-9]+ (passed|failed)' $OUT/sanitize-$1-$(basename $3 .py).log | tr '\n' ' ')"
}
NEW="12x250000 or 9x200003 or 40x65536 or 16x262144"
sanitize synccheck 240 ops/softmax/test_softmax.py "$NEW" &
sanitize racecheck 240 ops/softmax/test_softmax.py "$NEW" &
sanitize memcheck 240 ops/softmax/test_softmax.py "12x250000 or 9x200003 or 40x65536" &
sanitize synccheck 150 ops/reduce_sum/test_reduce_sum.py "12x100003" &
wait $ptx $sm90; wait
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/$s/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
  (cd $OUT && tar czf $s.tgz $s $s.txt && rm -rf $s $s.txt)
done
