#!/usr/bin/env bash
# Session 8, run 1 (right after runS.sh, same machine): QuACK's libs assembled; compute-sanitizer on
# session 7's tiers (reduced selection); ncu of ours, Liger and QuACK on the softmax rows where a peer
# leads (bench/lab/peer_kernels.py), with the peers' generated code (Triton cache, CuTe DSL dumps).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
W=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/q1/cu13.part.aa .q2/cu13.part.ab > $W && python3 -m pip install -q --no-index --no-deps --target /tmp/site-cu13 $W \
  && cp -rn /tmp/site-cu13/. /tmp/site/ 2>/dev/null; echo "quack libs merged"
rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
SEL="136x30001 or 12x100003 or 600x72 or 40x25600 or 25000x128 or 16x262144"
MEMCHECK_K="$SEL" SHARED_K="$SEL" MEMCHECK_S=150 RACECHECK_S=100 SYNCCHECK_S=70 THREADS_S=60 \
  tools/gpu_sanitize.sh $OUT/sanitize.log > /dev/null 2>&1; grep -A6 "== summary" $OUT/sanitize.log
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
export TRITON_CACHE_DIR=/tmp/tcache CUTE_DSL_KEEP_PTX=1 CUTE_DSL_KEEP_CUBIN=1 CUTE_DSL_DUMP_DIR=/tmp/cute
mkdir -p /tmp/cute $OUT/ncu
grep -rhoE "CUTE_DSL_[A-Z_]+" /tmp/site/nvidia_cutlass_dsl/python_packages /tmp/site/nvidia_cutlass_dsl/dsl_packages 2>/dev/null | sort -u | tr '\n' ' ' | head -c 3000; echo
for dt in float16 float32; do
  shapes=4096x4096,128x131072,16x262144; [ $dt = float32 ] && shapes=4096x4096
  timeout 200 ncu --clock-control none --profile-from-start off --set full -f -o /tmp/peers-$dt \
    python3 bench/lab/peer_kernels.py --shapes $shapes --dtype $dt 2>&1 | grep -v "^==PROF==" | tail -12
  ncu -i /tmp/peers-$dt.ncu-rep --page details --csv > $OUT/ncu/peers-$dt-details.csv 2>&1
  ncu -i /tmp/peers-$dt.ncu-rep --page raw --csv > /tmp/raw-$dt.csv 2>&1
  ncu -i /tmp/peers-$dt.ncu-rep --page source --print-source sass --csv > /tmp/sass-$dt.csv 2>&1
done
ls -la /tmp/peers-*.ncu-rep; find /tmp/tcache -name "*.json" | head; find /tmp/cute | head
mkdir -p /tmp/gen && cp -r /tmp/cute /tmp/gen/ 2>/dev/null
for d in $(find /tmp/tcache -name "*softmax*" -exec dirname {} \; | sort -u); do cp -r $d /tmp/gen/; done
(cd /tmp && tar cJf $OUT/ncu/generated.tar.xz gen raw-*.csv sass-*.csv) ; ls -la $OUT/ncu
for dt in float16 float32; do xz -c /tmp/peers-$dt.ncu-rep > $OUT/ncu/peers-$dt.ncu-rep.xz; done; ls -la $OUT/ncu
