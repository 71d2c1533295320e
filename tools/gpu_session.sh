#!/usr/bin/env bash
# On a GPU machine without Bazel: install a wheel built with --config=nvidia into a private folder,
# then run the op tests on the nvidia backend and the benchmark (JSON + chart); tools/gpu_sanitize.sh
# runs compute-sanitizer. Run from a checkout:  tools/gpu_session.sh path/to/wheel OUT_DIR
set -uo pipefail
WHEEL=$1; OUT=${2:-/tmp/oprt-gpu}; mkdir -p "$OUT"
SITE=/tmp/oprt-site; rm -rf "$SITE"
python3 -m pip install -q --no-index --no-deps --target "$SITE" "$WHEEL" || exit 1
export PYTHONPATH=$SITE:$PWD PYTHONUNBUFFERED=1 OPRT_TEST_BACKENDS=nvidia
nvidia-smi --query-gpu=name,driver_version,mig.mode.current --format=csv,noheader
python3 -c "import operator_runtime as o; print(o.available_backends(), o._lib.lib._name, \"fastcall:\", o.fastcall_enabled())"

echo "== op tests on nvidia"
python3 -m pytest -q -p no:cacheprovider -x --junitxml="$OUT/junit.xml" ops tests ${PYTEST_ARGS:-} 2>&1 | tail -n 30

echo "== benchmark"
python3 tools/run_ops.py --op all --backend nvidia --mode bench --json "$OUT/bench.json" ${BENCH_ARGS:-}
python3 tools/plot_bench.py "$OUT/bench.json" "$OUT/bench.png" || true
