#!/usr/bin/env bash
# Written in session 34, not run on an H200 (every lease was an H100; call A exits on any other card). H200 call C (nothing carried), right after call B: the second run_ops process of the full matrix.
set -u
export OUT=${1:?}
[[ -d /tmp/site && -d /tmp/dm ]] || exit 0
tools/gpu_peers_bench.sh /tmp/dm $OUT 1 && for f in $OUT/*; do mv $f ${f/peers-/peers-p2-}; done
