#!/usr/bin/env bash
# Session 18, run 2 (carry .base, .cand): reduce_sum's tests on nvidia from the wheel whose large whole sums take
# 1024-thread slices (.cand, branch session18-wide), then run2_time.py from the shipped wheel (.base) and .cand in
# turn, three rounds.
set -u
rm -rf /tmp/base-site /tmp/cand-site
python3 -m pip install -q --no-index --no-deps --target /tmp/base-site .base/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/cand-site .cand/*.whl
PYTHONPATH=/tmp/cand-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 240 python3 -m pytest -q -p no:cacheprovider \
  ops/reduce_sum > $OUT/run2-test_reduce_sum.txt 2>&1
echo "reduce_sum tests exit $?"; tail -3 $OUT/run2-test_reduce_sum.txt
for round in 0 1 2; do
  for which in base cand; do
    PYTHONPATH=/tmp/$which-site timeout 100 python3 bench/results/h200-session18/run2_time.py $which \
      $OUT/run2-time-$which-$round.json 2>/dev/null
  done
done
