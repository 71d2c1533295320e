#!/usr/bin/env bash
# Session 19, run 4 (carry .base, .cand, bench/lab/build): the elementwise ops' tests on nvidia from the wheel whose
# gelu keeps loads in flight (.cand: two packs a thread in 16-bit types, 128-thread blocks in f32), then run4_time.py
# from main's wheel (.base) and .cand in turn, three rounds; then lab reduce_slices' interleaved section.
set -u
rm -rf /tmp/base-site /tmp/cand-site
python3 -m pip install -q --no-index --no-deps --target /tmp/base-site .base/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/cand-site .cand/*.whl
PYTHONPATH=/tmp/cand-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 200 python3 -m pytest -q -p no:cacheprovider \
  ops/gelu ops/elementwise ops/vector_add ops/copy tests/test_kernel_variants.py > $OUT/run4-tests.txt 2>&1
echo "tests exit $?"; tail -3 $OUT/run4-tests.txt
for round in 0 1 2; do
  for which in base cand; do
    PYTHONPATH=/tmp/$which-site timeout 100 python3 bench/results/h200-session19/run4_time.py $which \
      $OUT/run4-time-$which-$round.json 2>/dev/null | grep -v "16778216"
  done
done
(cd bench/lab && PYTHONPATH=$PWD/../.. timeout 150 python3 reduce_slices.py interleaved > $OUT/run4-lab-reduce_slices.log 2>&1)
echo "reduce_slices exit $?"; grep -E "p50" $OUT/run4-lab-reduce_slices.log | cut -c1-140
for f in $OUT/lab-*.json; do mv "$f" "$OUT/run4-$(basename "$f")"; done
