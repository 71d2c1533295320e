#!/usr/bin/env bash
# Session 15, a second full peer benchmark from the final wheel (right after runS.sh; carry .q2, .whl2): session 14's
# runB2.sh as it is (the benchmark without the suites, into run8-peers-second.json; kept here as pairC-peers-second.*).
exec bash bench/results/h200-session14/runB2.sh
