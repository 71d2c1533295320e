#!/usr/bin/env bash
# Session 29, run 2: five device calls back to back on one warm H100 (the machine keeps /tmp about 30 s between
# calls). Each block below is one call's command; the comment names what that call carried.
exit 2  # a record of the calls, not a script to run whole

# call 1 (carry .q1): the first of three 31 MB parts of QuACK's cu13 libs wheel (split -b 31000000 -d)
rm -rf /tmp/q && tools/gpu_peers_site.sh stage .q1
# call 2 (carry .q2)
tools/gpu_peers_site.sh stage .q2
# call 3 (carry .whl2 and dist/main; with .q3 beside them the call would pass the 64 MiB limit)
mkdir -p /tmp/w /tmp/dm && cp .whl2/*.whl /tmp/w/ && cp dist/main/*.whl /tmp/dm/
# call 4 (carry .q3): every peer into /tmp/site, then one run_ops process of the full matrix (run2/)
tools/gpu_peers_site.sh install .q3 /tmp/w && tools/gpu_peers_bench.sh /tmp/dm $OUT 1
# call 5 (nothing carried; run 3 = run3/): the second process, the peers still in /tmp/site
tools/gpu_peers_bench.sh /tmp/dm $OUT 1
