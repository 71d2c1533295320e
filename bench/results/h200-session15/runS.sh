#!/usr/bin/env bash
# Session 15, each full pair's run 1 of 2 (carry dist/main, .q1, .whl1): session 14's runS.sh as it is (installs the
# sm_90 wheel into /tmp/oprt-site and stages half of QuACK's libs for runB.sh on the same warm machine).
exec bash bench/results/h200-session14/runS.sh
