#!/usr/bin/env bash
# Written in session 36, not run. Right after next-a.sh on the same warm machine (carry .q2): every peer into
# /tmp/site, then issue 11's full matrix from main's wheel in one run_ops process; call it again (nothing carried,
# `tools/gpu_peers_bench.sh /tmp/dm $OUT 1` alone) for the second process.
set -u
export OUT=${1:?}
[[ -d /tmp/dm ]] || { echo "no /tmp/dm: run next-a.sh first on this machine"; exit 0; }
tools/gpu_peers_site.sh install .q2 /tmp/w || exit $?
tools/gpu_peers_bench.sh /tmp/dm $OUT 1
