#!/usr/bin/env bash
# Session 15, each full pair's run 2 of 2 (right after runS.sh; carry .q2, .whl2, dist/ptx): session 14's runB.sh as
# it is: the full peer benchmark (../h200-peers.json), every test file on nvidia from the sm_90 wheel and, at the
# same time, from the compute_80 PTX-only wheel, and run_ops's tests.
exec bash bench/results/h200-session14/runB.sh
