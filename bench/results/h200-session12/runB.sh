#!/usr/bin/env bash
# Session 12, final pair, run 2 of 2 (right after runS.sh on the same warm machine): the wheels runS.sh staged join the
# rest in .whl, then session 10's runB.sh unchanged (the peers' wheels and QuACK's libs, then the full peer benchmark,
# each row's implementations interleaved: ../h200-peers.json). .q2 and .whl travel untracked.
cp /tmp/whl1/*.whl .whl/ 2>/dev/null
exec bash "$(dirname "$0")/../h200-session10/runB.sh"
