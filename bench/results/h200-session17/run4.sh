#!/usr/bin/env bash
# Session 17, run 4 (carry bench/lab/build, .base, .cand): lab reduce_slices (run3.sh), then reduce_sum's tests on
# nvidia from the wheel with the slice kernel (.cand), then run4_time.py from the shipped wheel (.base) and .cand in
# turn, three rounds.
set -u
[ "${SKIP_LAB:-0}" = 1 ] || bash bench/results/h200-session17/run3.sh
rm -rf /tmp/base-site /tmp/cand-site
python3 -m pip install -q --no-index --no-deps --target /tmp/base-site .base/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/cand-site .cand/*.whl
PYTHONPATH=/tmp/cand-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 240 python3 -m pytest -q -p no:cacheprovider \
  ops/reduce_sum > $OUT/run4-test_reduce_sum.txt 2>&1
echo "reduce_sum tests exit $?"; tail -3 $OUT/run4-test_reduce_sum.txt
for round in 0 1 2; do
  for which in base cand; do
    PYTHONPATH=/tmp/$which-site timeout 90 python3 bench/results/h200-session17/run4_time.py $which \
      $OUT/run4-time-$which-$round.json 2>/dev/null
  done
done
