#!/usr/bin/env bash
# Session 13, run 4 (carry dist/main): the final code's sm_90 wheel (PackedPart for bf16 only): every test file on nvidia.
set -u
rm -rf /tmp/site-final && python3 -m pip install -q --no-index --no-deps --target /tmp/site-final dist/main/*.whl && echo installed
start=$(date +%s)
tools/gpu_suites.sh /tmp/site-final $OUT/suite nvidia > $OUT/suite.txt 2>&1
echo "suites took $(( $(date +%s) - start )) s"; tail -1 $OUT/suite.txt; grep -v " 0 failed    0 errors" $OUT/suite.txt | head -10
(cd $OUT && tar czf run4-suite.tgz suite suite.txt && rm -rf suite)
