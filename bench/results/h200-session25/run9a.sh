#!/usr/bin/env bash
# Session 25, run 9, first of three calls back to back (carry .q1): tools/gpu_peers_site.sh on the GPU machine for
# the first time in its staged form: the first part of QuACK's cu13 libs wheel into /tmp/q.
set -u
rm -rf /tmp/q && tools/gpu_peers_site.sh stage .q1
