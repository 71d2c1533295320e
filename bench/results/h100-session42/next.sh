#!/usr/bin/env bash
# Session 42, any card (carry dist/final = main's wheel with the cp.async tier widened, dist/prev41 = session 41's
# main). Softmax's nvidia tests from main (133x4100 f32 and 133x4104 half are new: tails past the 128 threads), then
# the rows the widened tier took without a timing: 6144 columns (half 12 KiB and f32 24 KiB, the 256-thread
# shared-memory tier with plain loads in session 41's main), an A/B of three rounds against session 41's main.
# QuACK joins where /tmp/site has it (after ../h100-session36/next-b.sh on the same machine).
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
if [[ ${TESTS:-1} == 1 ]]; then
  rm -rf /tmp/s42-site && python3 -m pip install -q --no-index --no-deps --target /tmp/s42-site dist/final/operator_runtime*.whl
  PYTHONPATH=/tmp/s42-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 150 python3 -m pytest -q -x -p no:cacheprovider \
    ops/softmax/ > $OUT/tests-softmax.log 2>&1; echo "tests exit $?: $(tail -n 1 $OUT/tests-softmax.log)"
fi
peers=liger
if [[ -d /tmp/site ]]; then
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
  peers=quack,liger
fi
AB_BUDGET_S=${AB_BUDGET_S:-240} tools/gpu_ab.sh dist/prev41 dist/final "$OUT" 3 --op softmax,log_softmax \
  --shapes 4096x6144,8192x6144 --peers $peers 2>&1 | tail -16
