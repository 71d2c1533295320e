#!/usr/bin/env bash
# Written in session 34, not run on an H200 (every lease was an H100; call A exits on any other card). H200 call B (carry .q2), right after call A on the same warm H200: every peer into /tmp/site, then
# issue 11's full matrix from main's wheel in one run_ops process.
set -u
export OUT=${1:?}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$card"
[[ $card == *H200* && -d /tmp/dm ]] || exit 0
tools/gpu_peers_site.sh install .q2 /tmp/w || exit $?
tools/gpu_peers_bench.sh /tmp/dm $OUT 1
