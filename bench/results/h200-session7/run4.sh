#!/usr/bin/env bash
# Session 7, device run 4: the PTX-only build (--//tools:cuda_archs=compute_80, JIT-compiled here) through every
# test file on nvidia; the reduce_short lab; what torch.compile launches for short-row sums.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd bench/lab && PYTHONPATH=/tmp/oprt-main:$PWD/../.. timeout 150 python3 reduce_short.py > $OUT/lab-reduce_short.log 2>&1; echo "lab exit $?")
(cd bench/lab && TORCH_LOGS=output_code timeout 120 python3 inductor_launches.py 16384x256 65536x128 8192x512 \
  > $OUT/inductor_launches.txt 2> $OUT/inductor_code.log; echo "inductor exit $?"); cat $OUT/inductor_launches.txt
rm -rf /tmp/oprt-ptx && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-ptx dist/ptx/*.whl
so=$(find /tmp/oprt-ptx -name 'libcamp_ops.so' | head -1)
echo "cuobjdump of $so:"; cuobjdump --list-elf "$so" | grep -oE 'sm_[0-9]+' | sort | uniq -c | sed 's/^/ELF /'
cuobjdump --list-ptx "$so" | grep -oE 'sm_[0-9]+|compute_[0-9]+' | sort | uniq -c | sed 's/^/PTX /'
tools/gpu_suites.sh /tmp/oprt-ptx $OUT/suite-ptx nvidia > $OUT/suite-ptx.txt 2>&1
tail -1 $OUT/suite-ptx.txt; grep -v " 0 failed    0 errors" $OUT/suite-ptx.txt | head -20
for f in $(grep -l "failures=\"[1-9]\|errors=\"[1-9]" $OUT/suite-ptx/*.xml); do grep -m3 -A3 "<failure\|<error" $f | cut -c1-400; done | head -40
(cd $OUT && tar czf suite-ptx.tgz suite-ptx suite-ptx.txt && rm -rf suite-ptx)
