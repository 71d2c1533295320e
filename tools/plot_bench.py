"""Draws a benchmark JSON from run_ops as a PNG: achieved GB/s per case, ours vs torch, with the
measured copy bandwidth as the roof.  python tools/plot_bench.py bench/results/h200.json out.png"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    report = json.load(open(path))
    rows = report["results"]
    labels = ["%s\n%s" % (r["op"], r["case"]) for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(10, 0.42 * len(rows)), 6))
    width = 0.4
    ax.bar([i - width / 2 for i in x], [r["ours_GBps"] for r in rows], width, label="operator_runtime")
    ax.bar([i + width / 2 for i in x], [r.get("torch_GBps", 0) for r in rows], width, label="torch")
    if report.get("peak_copy_GBps"):
        ax.axhline(report["peak_copy_GBps"], color="k", linestyle="--", linewidth=1,
                   label="measured copy peak %.0f GB/s" % report["peak_copy_GBps"])
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=90, fontsize=6)
    ax.set_ylabel("GB/s (bytes read + written)")
    m = report["machine"]
    ax.set_title("%s, torch %s, driver %s, MIG %s (median of %s runs, L2 flushed)" % (
        m.get("gpu", m.get("device")), m.get("torch", "-"), m.get("driver", "-"), m.get("mig_mode", "-"),
        report.get("repeats")), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
