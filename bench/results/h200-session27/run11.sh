#!/usr/bin/env bash
# Session 27 run 11 (one device call, carrying dist/main and dist/cand27): branch session27-binary-blocks (vector_add's
# contiguous kernel in 896-thread blocks) through vector_add's tests on nvidia, then an A/B through run_ops against
# main's wheel, 3 rounds, torch eager and torch.compile the peers.
set -u
rm -rf /tmp/cand && python3 -m pip install -q --no-index --no-deps --target /tmp/cand dist/cand27/*.whl
PYTHONPATH=/tmp/cand:$PWD OPRT_TEST_BACKENDS=nvidia timeout 200 python3 -m pytest -q -p no:cacheprovider \
  ops/vector_add ops/copy ops/elementwise 2>&1 | tail -n 3
tools/gpu_ab.sh dist/main dist/cand27 "$OUT" 3 --op vector_add --peers torch_eager,torch_compile
