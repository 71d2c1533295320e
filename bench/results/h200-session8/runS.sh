#!/usr/bin/env bash
# Session 8: stage the peers' wheels and the first half of QuACK's cu13 libs (run1.sh follows on the same machine).
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && echo "staged cu13.part.aa"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1; ls /tmp/site | head -3
