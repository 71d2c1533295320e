#!/usr/bin/env bash
# Session 42, written after the leases, not run. Any card, after ../h100-session36/next-b.sh on the same machine
# (QuACK in /tmp/site, main's wheel in /tmp/oprt-site): bench/lab/launch_latency.py, which splits one call's wall
# time (host span, launch API, kernel start, kernel, synchronize) for ours, QuACK, torch eager and torch.compile on
# the softmax tiers where ours has 4-8 us more wall above device time than QuACK (shared-memory and cluster) and the
# tile tier where it has none. Leaves $OUT/lab-launch_latency.json.
set -u
export OUT=${1:?}
[[ -d /tmp/site && -d /tmp/oprt-site ]] || { echo "run ../h100-session36/next-b.sh first on this machine"; exit 0; }
cd bench/lab && PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site \
  timeout 240 python3 launch_latency.py 2>&1 | grep -v "^ *$" | tail -60
