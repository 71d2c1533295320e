#!/usr/bin/env bash
# Session 17, run 2: what torch.compile launches for the row sums we trail (8192 x 8192 half, 4096 x 4096 f32) and
# for the 64M whole sums: Inductor's Triton source, each kernel's grid/block/registers, and the compiled kernels
# (Triton's cache: PTX, cubin, metadata with the autotuned config).
set -u
export TRITON_CACHE_DIR=/tmp/triton-cache-run2 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache-run2
(cd bench/lab && TORCH_LOGS=output_code timeout 300 python3 inductor_launches.py 8192x8192 4096x4096 67108864 --bf16 \
  > $OUT/run2-inductor_launches.txt 2> $OUT/run2-inductor_code.log)
echo "exit $?"; cat $OUT/run2-inductor_launches.txt | cut -c1-300
tar czf $OUT/run2-triton-cache.tgz -C /tmp triton-cache-run2
gzip $OUT/run2-inductor_code.log
