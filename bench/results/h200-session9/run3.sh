#!/usr/bin/env bash
# Session 9, final pair, run 2 of 2 (right after runS2.sh, same machine): the peers' wheels and QuACK's libs;
# lab first_row --settle (does a call queued right behind its L2 flush take longer than one launched after it?);
# the full peer benchmark (issue 11's matrix) with each call launched after its flush finished (run_ops's
# default from this session: ../h200-peers.json), then as before, queued behind it (h200-peers-queued.json).
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
(cd bench/lab && timeout 90 python3 first_row.py --settle) > $OUT/lab-first_row-settle.log 2>&1
echo "first_row exit $?"; grep -E "^ ?[0-9]+ " $OUT/lab-first_row-settle.log
timeout 250 python3 tools/run_ops.py --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; grep -A40 "== summary" $OUT/h200-peers.log
timeout 200 python3 tools/run_ops.py --mode bench --backend nvidia --noflush_settle --json $OUT/h200-peers-queued.json \
  2> /dev/null > $OUT/h200-peers-queued.log
echo "bench (queued) exit $?"; grep -A3 "== summary" $OUT/h200-peers-queued.log
