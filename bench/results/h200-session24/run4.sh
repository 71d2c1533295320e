#!/usr/bin/env bash
# Session 24, run 4, second of three calls (carry .q2): stages the second third of QuACK's cu13 libs wheel.
set -u
[ -d /tmp/oprt-site ] && [ -d /tmp/q ] || { echo "not the machine run3.sh ran on"; exit 3; }
cp .q2/cu13.part.* /tmp/q/ && ls -la /tmp/q
