#!/usr/bin/env bash
# Session 11, final pair, run 2 of 2 (right after runA.sh on the same warm machine; also run 3, after run3a.sh):
# session 10's runB.sh unchanged (the peers' wheels and QuACK's libs, then the full peer benchmark, which since this
# session times each row's implementations interleaved: ../h200-peers.json). .q2 and .whl travel untracked.
exec bash "$(dirname "$0")/../h200-session10/runB.sh"
