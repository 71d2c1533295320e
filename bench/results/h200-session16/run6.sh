#!/usr/bin/env bash
# Session 16, run 6 (carry dist/main, .prev): reduce_sum's cluster kernel with its send-only blocks' mailboxes left
# unarmed (dist/main) against the benchmarked wheel (.prev): compute-sanitizer over reduce_sum's cluster cases
# (tools/gpu_sanitize.sh, narrowed), then run6_time.py from each wheel in turn, three rounds.
set -u
rm -rf /tmp/oprt-site /tmp/prev-site
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/prev-site .prev/*.whl
CASES="136x30001 or 12x100003 or 16x262144"
MEMCHECK_K="$CASES" SHARED_K="$CASES" MEMCHECK_S=90 RACECHECK_S=90 SYNCCHECK_S=90 THREADS_S=60 \
  tools/gpu_sanitize.sh $OUT/run6-sanitize.log > /dev/null 2>&1
echo "gpu_sanitize exit $?"; sed -n '/== summary/,$p' $OUT/run6-sanitize.log
for round in 0 1 2; do
  for which in prev new; do
    site=/tmp/oprt-site; [ $which = prev ] && site=/tmp/prev-site
    PYTHONPATH=$site timeout 60 python3 bench/results/h200-session16/run6_time.py $which $OUT/run6-time-$which-$round.json 2>/dev/null
  done
done
