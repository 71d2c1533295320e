#!/usr/bin/env bash
# Session 34, call 2 (carry .q2), right after call 1 on the same warm machine: every peer into /tmp/site, then
# issue 11's full matrix from main's wheel in one run_ops process.
set -u
export OUT=${1:?}
nvidia-smi --query-gpu=name --format=csv,noheader
tools/gpu_peers_site.sh install .q2 /tmp/w || exit $?
tools/gpu_peers_bench.sh /tmp/dm $OUT 1
