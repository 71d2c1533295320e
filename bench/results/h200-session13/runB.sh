#!/usr/bin/env bash
# Session 13, the final pair's second run (right after ../h200-session12/runS.sh on the same warm machine, which installed
# our wheel into /tmp/oprt-site and staged the first half of QuACK's cu13 libs with two of its wheels): session 12's
# runB.sh unchanged (the rest of the peers' wheels in .whl, the second half in .q2; then the full peer benchmark:
# ../h200-peers.json).
exec bash "$(dirname "$0")/../h200-session12/runB.sh"
