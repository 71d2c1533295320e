#!/usr/bin/env bash
# Session 6, final run 1: stage the peers' wheels and the first half of QuACK's cu13 libs; the PTX-only build
# (--//tools:cuda_archs=compute_80, JIT-compiled here) through every test file on nvidia.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
rm -rf /tmp/oprt-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-ptx dist/ptx/*.whl
so=$(find /tmp/oprt-ptx -name 'libcamp_ops.so' | head -1)
echo "cuobjdump of $so:"; cuobjdump --list-elf "$so" | grep -oE 'sm_[0-9]+' | sort | uniq -c | sed 's/^/ELF /'
cuobjdump --list-ptx "$so" | grep -oE 'sm_[0-9]+|compute_[0-9]+' | sort | uniq -c | sed 's/^/PTX /'
tools/gpu_suites.sh /tmp/oprt-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1
tail -1 $OUT/suite-ptx.txt; grep -v " 0 failed    0 errors" $OUT/suite-ptx.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite-ptx/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
(cd $OUT && tar czf suite-ptx.tgz suite-ptx suite-ptx.txt && rm -rf suite-ptx)
