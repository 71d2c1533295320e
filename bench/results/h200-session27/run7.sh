#!/usr/bin/env bash
# Session 27 run 7 (one device call, carrying bench/lab/build and dist/main): torch eager's half add and relu
# kernels' SASS for sm_90 from libtorch_cuda.so (Triton's bundled cuobjdump), then lab elementwise_path's
# section nc (the replica with read-only-path loads beside it, ours and the torch peers).
set -u
BIN=$(python3 -c "import os, triton; print(os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin'))")
LIB=$(python3 -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib/libtorch_cuda.so'))")
ls "$BIN"
nm "$LIB" | grep -o '_ZN2at6native[0-9a-zA-Z_]*vectorized_elementwise_kernelILi8ENS0_17CUDAFunctor_addIN3c104HalfEEE[0-9a-zA-Z_]*' \
  | sort -u | head -3 > "$OUT/eager-add-names.txt"
cat "$OUT/eager-add-names.txt"
for name in $(head -1 "$OUT/eager-add-names.txt"); do
  timeout 240 "$BIN/cuobjdump" -arch sm_90 -sass -fun "$name" "$LIB" > "$OUT/eager-add-f16.sass" 2>&1
  echo "cuobjdump rc $?"; grep -c "" "$OUT/eager-add-f16.sass"; grep -E "LDG|STG|EXIT" "$OUT/eager-add-f16.sass" | head -20
done
rm -rf /tmp/oprt && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt dist/main/*.whl
cd bench/lab && PYTHONPATH=/tmp/oprt timeout 200 python3 elementwise_path.py nc 3 > "$OUT/nc.log" 2>&1
echo "nc rc $?"
cp ../results/lab/lab-elementwise_path-nc.json "$OUT/" 2>/dev/null
grep -E "round" "$OUT/nc.log" | cut -c1-150
