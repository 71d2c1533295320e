#!/usr/bin/env bash
# Session 23, run 3, first of three calls back to back (carry dist/main2, dist/ptx2, .q1): main after merging
# session23-cand4 installed into /tmp/oprt-site, every test file on nvidia from it and from its compute_80 PTX-only
# build (tools/gpu_suites_pair.sh); stages the first third of QuACK's cu13 libs wheel in /tmp/q for run5.sh.
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/q && cp .q1/cu13.part.* /tmp/q/ && ls /tmp/q
python3 -c "import google.protobuf as p; print('protobuf', p.__version__)" 2>&1 | tail -1
python3 -c "import cuda.bindings as c; print('cuda.bindings', c.__version__)" 2>&1 | tail -1
rm -rf /tmp/oprt-site /tmp/site-ptx
python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main2/*.whl || exit $?
python3 -m pip install -q --no-index --no-deps --target /tmp/site-ptx dist/ptx2/*.whl || exit $?
tools/gpu_suites_pair.sh /tmp/oprt-site /tmp/site-ptx $OUT run3
