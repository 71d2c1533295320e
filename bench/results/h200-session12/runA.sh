#!/usr/bin/env bash
# Session 12, runs 1 and 2 (carry dist/main, dist/ptx, bench/lab/build; .q1 and .whl travel untracked):
# 1. every test file on nvidia from the sm_90 wheel and, at the same time, from the compute_80 PTX-only wheel (the
#    fast path's C workspace calls, session 11's last change, and this session's kernel changes);
# 2. run_ops's tests with torch present;
# 3. lab softmax_long: run 1 --session9 (then the library's cluster body with f16 base-2 stats and non-coherent
#    loads), run 2 --session12 (base-2 stats with the contraction fixed, the loads back to ld.global.cs; libw: f16 in
#    base 2, libn: f16 natural, creg: the lab's own kernel, each twice);
# 4. lab softmax_short --session12: the library's tile kernel (tile_rows.cuh) against the lab's tile kernel of the same
#    shape, with the lab's math and with the library's (libmath); in run 2 the library's body had four max/sum chains
#    and 32-bit pack indices (not kept);
# 5. stages the first half of QuACK's cu13 libs (not used: the final pair is runC.sh + runB.sh).
# bench/lab/build travels as cubins.tgz (the working tree's upload limit). LABS=0 (runC.sh): steps 1, 2 and 5 only.
set -u
LABS=${LABS:-1}
[ "$LABS" = 1 ] && (cd bench/lab/build && tar xzf cubins.tgz)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
for w in main ptx; do
  rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl
done
rm -rf /tmp/oprt-site && cp -r /tmp/site-main /tmp/oprt-site
start=$(date +%s)
tools/gpu_suites.sh /tmp/site-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
ptx=$!
tools/gpu_suites.sh /tmp/site-main $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
PYTHONPATH=/tmp/site-main:$PWD timeout 200 python3 -m pytest -q -p no:cacheprovider tools/test_run_ops.py > $OUT/runA-test_run_ops.txt 2>&1
echo "test_run_ops: $(tail -1 $OUT/runA-test_run_ops.txt)"
wait $ptx $sm90 2>/dev/null; wait
echo "suites took $(( $(date +%s) - start )) s"
if [ "$LABS" = 1 ]; then
  (cd bench/lab && PYTHONPATH=/tmp/site-main:$PWD/../.. timeout 180 python3 softmax_long.py --session12 > $OUT/runA-lab-softmax_long.log 2>&1)
  echo "lab softmax_long exit $?"; grep -E "^  (16x262144|128x131072)|p50" $OUT/runA-lab-softmax_long.log | head -40
  (cd bench/lab && PYTHONPATH=/tmp/site-main:$PWD/../.. timeout 120 python3 softmax_short.py --session12 > $OUT/runA-lab-softmax_short.log 2>&1)
  echo "lab softmax_short exit $?"; grep -E " p50 |FAILED|mismatch|elapsed" $OUT/runA-lab-softmax_short.log | head -40
fi
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/$s/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
  (cd $OUT && tar czf $s.tgz $s $s.txt && rm -rf $s $s.txt)
done
