#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over the small and medium cases of every op on the nvidia
# backend (torch comparison off: only our kernels run). Run after tools/gpu_session.sh installed the wheel.
set -uo pipefail
export PYTHONPATH=/tmp/oprt-site:$PWD PYTHONUNBUFFERED=1 OPRT_TEST_BACKENDS=nvidia OPRT_TEST_TORCH=0
CASES=${SAN_K:-"33x65 or 5x7x9 or 1025 or 2x262144 or 5x1032 or 5x2056 or 3x1000001"}
run() {  # tool, test paths...
  local tool=$1; shift
  echo "== compute-sanitizer --tool $tool: $* -k '$CASES'"
  timeout ${SAN_TIMEOUT:-240} compute-sanitizer --tool "$tool" --error-exitcode 9 \
    python3 -m pytest -q -p no:cacheprovider "$@" -k "$CASES" 2>&1 | grep -E "SUMMARY|passed|failed|Error|error" | tail -n 6
  echo "$tool exit status: ${PIPESTATUS[0]}"
}
run memcheck ops
run racecheck ops/softmax ops/reduce_sum
