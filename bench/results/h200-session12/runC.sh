#!/usr/bin/env bash
# Session 12, run 3 (carry dist/main, dist/ptx; .q1 and Liger's wheel in .whl travel untracked): runA.sh without its
# labs, on the final code (f16 base-2 stats in the grid and cluster tiers; the warp-tier body and the loads as
# before): every test file on nvidia from the sm_90 wheel and, at the same time, from the compute_80 PTX-only wheel,
# and run_ops's tests with torch present (run 3 wrote that log as runC-test_run_ops.txt, from a copy of these steps).
LABS=0 exec bash "$(dirname "$0")/runA.sh"
