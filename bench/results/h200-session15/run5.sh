#!/usr/bin/env bash
# Session 15, run 5 (right after runS.sh on the same warm machine; carry .q2, .whl2): ncu (--set full) of ours, Liger
# and QuACK on the softmax rows still behind QuACK (16x262144 and 8192x512, f16 and bf16; bench/lab/peer_kernels.py:
# one profiled call each after an L2 flush), details as CSV plus a summary of the main metrics per kernel.
set -u
tools/gpu_peers_site.sh || exit $?
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:/tmp/oprt-site:$PWD
for dt in float16 bfloat16; do
  timeout 200 ncu --clock-control none --profile-from-start off --set full -f -o /tmp/peers-$dt \
    python3 bench/lab/peer_kernels.py --shapes 16x262144,8192x512 --dtype $dt 2>&1 | grep -v "^==PROF==" | tail -8
  ncu -i /tmp/peers-$dt.ncu-rep --page details --csv > $OUT/run5-ncu-$dt-details.csv 2>&1
done
python3 - $OUT <<'PY'
import csv, sys, pathlib
keys = ["Duration", "Registers Per Thread", "Block Size", "Grid Size", "Cluster Size", "Achieved Occupancy",
        "Theoretical Occupancy", "Waves Per SM", "DRAM Throughput", "Memory Throughput", "L2 Hit Rate",
        "Issue Slots Busy", "Executed Ipc Active", "Dynamic Shared Memory Per Block", "Static Shared Memory Per Block"]
out = pathlib.Path(sys.argv[1])
for f in sorted(out.glob("run5-ncu-*-details.csv")):
    rows = list(csv.DictReader(open(f)))
    kernels = {}
    for r in rows:
        k = (r.get("ID"), r.get("Kernel Name", "")[:90])
        if r.get("Metric Name") in keys:
            kernels.setdefault(k, {})[r["Metric Name"]] = "%s %s" % (r.get("Metric Value"), r.get("Metric Unit"))
    print("==", f.name)
    for (i, name), m in kernels.items():
        print(i, name)
        print("   " + "; ".join("%s: %s" % (k, m[k]) for k in keys if k in m))
PY
