#!/usr/bin/env bash
# Session 11, final pair, run 1 of 2 (carry dist/main, dist/ptx; .q1 and Liger's wheel in .whl travel untracked):
# 1. every test file on nvidia from the sm_90 wheel and, at the same time, from the compute_80 PTX-only wheel;
#    beside them compute-sanitizer (memcheck) on the tile row sums, whose launcher changed since they last ran;
# 2. run_ops's tests with torch present (its CPU self-test of the interleaved device benchmark);
# 3. run_ops on the 4096x4096 softmax rows, torch.compile and Liger, now interleaved (once the suites are done);
# 4. stages the first half of QuACK's cu13 libs for runB.sh.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
for w in main ptx; do
  rm -rf /tmp/site-$w && python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w dist/$w/*.whl
done
rm -rf /tmp/oprt-site && cp -r /tmp/site-main /tmp/oprt-site
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl 2>&1 | tail -1
tools/gpu_suites.sh /tmp/site-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1 &
ptx=$!
tools/gpu_suites.sh /tmp/site-main $OUT/suite nvidia > $OUT/suite.txt 2>&1 &
sm90=$!
PYTHONPATH=/tmp/site-main:$PWD OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0 timeout 200 compute-sanitizer --tool memcheck \
  --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum -k "1000x256 or 333x512" > $OUT/runA-memcheck.txt 2>&1
echo "memcheck (tiles) exit $?: $(grep -E 'ERROR SUMMARY' $OUT/runA-memcheck.txt | tail -1) $(tail -1 $OUT/runA-memcheck.txt)"
PYTHONPATH=/tmp/site-main:$PWD timeout 200 python3 -m pytest -q -p no:cacheprovider tools/test_run_ops.py > $OUT/runA-test_run_ops.txt 2>&1
echo "test_run_ops: $(tail -1 $OUT/runA-test_run_ops.txt)"
wait $ptx $sm90 2>/dev/null; wait
PYTHONPATH=/tmp/site:/tmp/oprt-site:$PWD timeout 150 python3 tools/run_ops.py --mode bench --backend nvidia --op softmax \
  --cases 4096x4096 --peers torch_compile,liger --json $OUT/runA-4096-interleaved.json > $OUT/runA-4096-interleaved.log 2>/dev/null
echo "bench 4096x4096 interleaved exit $?"; grep -E "^softmax " $OUT/runA-4096-interleaved.log
for s in suite suite-ptx; do
  echo "== $s"; tail -1 $OUT/$s.txt; grep -v " 0 failed    0 errors" $OUT/$s.txt | head -20
  for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/$s/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
  (cd $OUT && tar czf $s.tgz $s $s.txt && rm -rf $s $s.txt)
done
