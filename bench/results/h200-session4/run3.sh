#!/usr/bin/env bash
# Device run 3: QuACK's big wheel from two uploads; issue 12's transcript pip-installed (user site); issue 11's bench.
set -u
REPO=$PWD
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site $W 2>&1 | tail -2
python3 -m pip install -q --user --break-system-packages --no-index --no-deps dist/main/*.whl 2>&1 | tail -2
(cd /tmp && python3 $REPO/tools/issue12_transcript.py > $OUT/issue12-transcript-h200.txt 2>&1; echo "exit $?" >> $OUT/issue12-transcript-h200.txt)
grep -E "FAILED|^exit|check\(s\)" $OUT/issue12-transcript-h200.txt | head -5
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-main:$PWD timeout 470 python3 tools/run_ops.py \
  --mode bench --backend nvidia --json $OUT/h200-peers.json 2> $OUT/h200-peers.stderr > $OUT/h200-peers.log
echo "bench exit $?"; tail -n 30 $OUT/h200-peers.log
