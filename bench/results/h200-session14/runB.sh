#!/usr/bin/env bash
# Session 14, the final pair's run 2 of 2 (right after runS.sh on the same warm machine; carry .q2, .whl2, dist/ptx):
# the peers' wheels and QuACK's libs, the full peer benchmark (issue 11's matrix: ../h200-peers.json), then every test
# file on nvidia from the final sm_90 wheel (the one benchmarked) and, at the same time, from the compute_80 PTX-only
# wheel, and run_ops's tests.
set -u
tools/gpu_peers_site.sh || exit $?
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  python3 -c "import operator_runtime; print('operator_runtime from', operator_runtime.__file__)"
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD \
  timeout 300 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A40 "== summary" $OUT/h200-peers.log
rm -rf /tmp/site-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx/*.whl
start=$(date +%s)
tools/gpu_suites.sh /tmp/site-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
ptx=$!
tools/gpu_suites.sh /tmp/oprt-site $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
PYTHONPATH=/tmp/oprt-site:$PWD timeout 200 python3 -m pytest -q -p no:cacheprovider tools/test_run_ops.py > $OUT/runB-test_run_ops.txt 2>&1
echo "test_run_ops: $(tail -1 $OUT/runB-test_run_ops.txt)"
wait $ptx $sm90 2>/dev/null; wait
echo "suites took $(( $(date +%s) - start )) s"
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/$s/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
done
(cd $OUT && tar czf runB-suite.tgz suite suite.txt && tar czf runB-suite-ptx.tgz suite-ptx suite-ptx.txt && rm -rf suite suite-ptx)
