#!/usr/bin/env bash
# Session 25, run 9, second call (carry .q2): the second part.
set -u
tools/gpu_peers_site.sh stage .q2
