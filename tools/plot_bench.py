"""Draws a benchmark JSON from run_ops as a PNG, one panel per operator, one labelled bar group per case.

  bazel run //tools:plot_bench -- bench/results/h200.json /tmp/h200.png     # paths relative to where you are
  python tools/plot_bench.py bench.json bench.png
  python tools/plot_bench.py bench/results/h200-peers.json --markdown -     # README's table (no matplotlib)

Device results against peers (run_ops --backend nvidia --mode bench, issue 11's method: rows with
'impls'): per op a panel, per row two bars -- ours and the best peer of that row (colored by which peer
it is: torch eager, torch.compile, Liger, QuACK) -- in GB/s from the p50 device time, whiskers from p80
to p20, the measured copy peak as a dashed line, and at each row the ratio best peer / ours (>= 1.00:
we lead; red when behind). Older device results (ours vs torch): achieved GB/s of both, the ratio to
torch. CPU results (--backend cpu): milliseconds of numpy, ours and torch's CPU kernels, numpy-time /
ours-time at each bar.

matplotlib is an optional dependency (the `plot` extra: pip install 'operator_runtime[plot]', or
`python3 -m pip install matplotlib` into the interpreter ./bazelw uses); without it this prints one line
and exits with status 2.
"""

import argparse
import json
import lzma
import os
import pathlib
import sys


def user_path(path) -> pathlib.Path:
    """Relative paths mean the directory `bazel run` was started from (the program runs in runfiles)."""
    path = pathlib.Path(path).expanduser()
    if not path.is_absolute() and os.environ.get("BUILD_WORKING_DIRECTORY"):
        path = pathlib.Path(os.environ["BUILD_WORKING_DIRECTORY"]) / path
    return path


def read_report(path) -> dict:
    """A run_ops --json report at `path` (user_path's meaning); `.xz` ones are read through lzma (bench/results keeps
    the sessions' reports compressed)."""
    path = user_path(path)
    with (lzma.open(path) if path.suffix == ".xz" else path.open("rb")) as report:
        return json.load(report)


def _label(row) -> str:
    """'4096x4096 float16 axis=0 log' for a device row, 'softmax 1024x4096 (1024x4096) bfloat16' for a CPU row."""
    if "numpy_ms" in row:
        shape = "x".join(str(n) for n in row.get("shape", []))
        return "%s%s  %s" % (row["case"], "  [%s]" % shape if shape and shape not in row["case"] else "", row["dtype"])
    shapes = " + ".join(_shape(s) for s in row["shapes"])
    if len({tuple(s) for s in row["shapes"]}) == 1 and len(row["shapes"]) > 1:
        shapes = "%s, %d inputs" % (_shape(row["shapes"][0]), len(row["shapes"]))
    attrs = " ".join("%s=%s" % (k, v) for k, v in row.get("attrs", {}).items()
                     if not (k == "log" and v is False) and not (k == "axis" and v in (-1, None) and row["op"] != "reduce_sum"))
    return " ".join(p for p in (shapes, row["dtype"], attrs) if p)


def _shape(shape) -> str:
    """4096x4096; a 1-D size of whole mebi-elements also as 16M."""
    text = "x".join(str(n) for n in shape)
    if len(shape) == 1 and shape[0] >= 1 << 20 and shape[0] % (1 << 20) == 0:
        text += " (%dM)" % (shape[0] >> 20)
    return text


def _series(report):
    """(x axis label, [(name, key)], ratio key and its text, roof) for the kind of report."""
    rows = report["results"]
    if rows and "numpy_ms" in rows[0]:
        series = [("numpy", "numpy_ms"), ("operator_runtime", "ours_ms")]
        if any("torch_ms" in r for r in rows):
            series.append(("torch (CPU)", "torch_ms"))
        return "milliseconds (lower is better)", series, ("numpy_over_ours", "%.2fx numpy"), None
    series = [("operator_runtime", "ours_GBps")]
    if any("torch_GBps" in r for r in rows):
        series.append(("torch", "torch_GBps"))
    return "GB/s, bytes read + written (higher is better)", series, ("speedup_vs_torch", "%.2fx torch"), \
        report.get("peak_copy_GBps")


PEER_COLORS = {"torch_eager": "C1", "torch_compile": "C2", "liger": "C4", "quack": "C3"}
PEER_NAMES = {"torch_eager": "torch eager", "torch_compile": "torch.compile", "liger": "Liger-Kernel", "quack": "QuACK"}


def _gbps(nbytes, us):
    return nbytes / (us * 1e-6) / 1e9 if us else 0.0


def _peer_bars(row):
    """[(series name, GB/s at p50, (GB/s at p80, GB/s at p20) or None, color)] for ours and the best peer."""
    bars = []
    for name in ("ours", row.get("best_peer")):
        r = row.get("impls", {}).get(name) if name else None
        if not r or r.get("status") != "ok":
            bars.append(None)
            continue
        d = r["device_us"]
        bars.append((name, _gbps(row["bytes"], d["p50"]), (_gbps(row["bytes"], d["p80"]), _gbps(row["bytes"], d["p20"])),
                     "C0" if name == "ours" else PEER_COLORS.get(name, "C7")))
    return bars


def draw_peers(report, out):
    """Issue 11's device report: ours vs the best peer per row, GB/s, ratio annotated."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = [r for r in report["results"] if r.get("impls")]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    roof = report.get("peak_copy_GBps")
    heights = [max(1.4, 0.42 * sum(r["op"] == op for r in rows) + 0.7) for op in ops]
    fig, axes = plt.subplots(len(ops), 1, figsize=(12, sum(heights) + 1.4), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    width = 0.38
    used = {}
    for ax, op in zip(axes[:, 0], ops):
        mine = [r for r in rows if r["op"] == op]
        top = max([b[1] for r in mine for b in _peer_bars(r) if b] + [roof or 0, 1.0])
        for i, r in enumerate(mine):
            for k, bar in enumerate(_peer_bars(r)):
                if bar is None:
                    continue
                name, value, (lo, hi), color = bar
                y = i + (k - 0.5) * width
                ax.barh(y, value, height=width, color=color, xerr=[[value - lo], [hi - value]],
                        error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": "0.25"})
                used[name] = color
            if r.get("ratio") is not None:
                text = "%.2fx vs %s" % (r["ratio"], PEER_NAMES.get(r["best_peer"], r["best_peer"]))
                color = "black" if r["ratio"] >= 1.0 else "firebrick"
            elif r.get("ours_us") is not None:
                text, color = "no peer ran", "0.4"
            else:
                text, color = "ours did not run", "firebrick"
            ax.annotate(text, (top, i), xytext=(6, 0), textcoords="offset points", va="center", fontsize=7,
                        color=color, fontweight="bold" if color == "firebrick" else "normal")
        if roof:
            ax.axvline(roof, color="k", linestyle="--", linewidth=1)
        ax.set_xlim(0, top * 1.02)
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels([_label(r) for r in mine], fontsize=7.5)
        ax.invert_yaxis()
        ax.set_title(op, loc="left", fontsize=10, fontweight="bold")
        ax.set_xlabel("GB/s at the p50 device time, bytes read + written (higher is better); whiskers p80..p20",
                      fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=c, label="operator_runtime" if n == "ours" else "best peer: " + PEER_NAMES.get(n, n))
               for n, c in used.items()]
    if roof:
        handles.append(plt.Line2D([], [], color="k", linestyle="--", label="measured copy peak %.0f GB/s" % roof))
    total = sum(heights) + 1.4
    top_frac = 1.0 - 1.1 / total
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 6), fontsize=8,
               bbox_to_anchor=(0.5, top_frac + 0.45 * (1 - top_frac)))
    m, summary = report.get("machine", {}), report.get("summary", {})
    versions = report.get("versions", {})
    title = "%s: device time (CUDA profiler, %d MB L2 flush per call), ours vs the best peer per row" % (
        m.get("gpu") or m.get("device") or "?", (report.get("l2_flush_bytes") or 0) >> 20)
    if summary.get("rows_with_ratio"):
        title += "\nwe lead %d / %d rows, geometric mean best peer / ours %.3fx" % (
            summary["rows_lead"], summary["rows_with_ratio"], summary["geomean_ratio"])
    title += "; " + ", ".join("%s %s" % (k, v) for k, v in versions.items() if v and k in ("torch", "triton", "liger_kernel", "quack"))
    fig.suptitle(title, fontsize=9.5, y=0.999)
    fig.tight_layout(rect=(0, 0, 1, top_frac))
    fig.savefig(out, dpi=120)
    plt.close(fig)


def draw(report, out):
    if report["results"] and "impls" in report["results"][0]:
        return draw_peers(report, out)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["results"]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    xlabel, series, (ratio_key, ratio_text), roof = _series(report)
    heights = [max(1.2, 0.22 * len(series) * sum(r["op"] == op for r in rows) + 0.6) for op in ops]
    fig, axes = plt.subplots(len(ops), 1, figsize=(11, sum(heights) + 1.0), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    width = 0.8 / len(series)
    for ax, op in zip(axes[:, 0], ops):
        mine = [r for r in rows if r["op"] == op]
        for k, (name, key) in enumerate(series):
            ys = [i + (k - (len(series) - 1) / 2) * width for i in range(len(mine))]
            ax.barh(ys, [r.get(key, 0) for r in mine], height=width, label=name, color="C%d" % k)
        for i, r in enumerate(mine):
            if ratio_key in r:  # after the longest bar of the group
                ax.annotate(ratio_text % r[ratio_key], (max(r.get(key, 0) for _, key in series), i),
                            xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
        values = [r[key] for r in mine for _, key in series if r.get(key)]
        if roof is None and values and max(values) > 30 * min(values):  # CPU times spanning decades
            ax.set_xscale("log")
            ax.set_xlabel(xlabel.replace(" (", ", log scale ("), fontsize=8)
        if roof:
            ax.axvline(roof, color="k", linestyle="--", linewidth=1, label="measured copy peak %.0f GB/s" % roof)
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels([_label(r) for r in mine], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(op, loc="left", fontsize=10, fontweight="bold")
        if ax.get_xscale() != "log":
            ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.margins(x=0.12)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    top = 1.0 - 0.9 / (sum(heights) + 1.0)
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8, bbox_to_anchor=(0.5, top + 0.35 * (1 - top)))
    m = report.get("machine", {})
    device = m.get("gpu") or m.get("device") or m.get("cpu") or "?"
    fig.suptitle("%s; %s" % (device, report.get("timing", "")) + (
        ", torch %s" % m["torch"] if m.get("torch") else "") + (
        ", median of %s runs" % report["repeats"] if report.get("repeats") else ""), fontsize=10, y=0.999)
    fig.tight_layout(rect=(0, 0, 1, top))
    fig.savefig(out, dpi=120)
    plt.close(fig)


def _interval(row) -> str:
    """The row's paired ratio and its 95% interval, marked by what the interval says (ratio_verdict)."""
    ci = row.get("ratio_ci95")
    if not ci:
        return "-"
    verdict = {"lead": "ahead", "behind": "**behind**", "tie": "tie"}[row["ratio_verdict"]]
    return "%.3f (%.3f-%.3f) %s" % (row["ratio_paired"], ci[0], ci[1], verdict)


def markdown_table(report) -> str:
    """README's performance table from an issue-11 device report: per row ours and the best peer, device
    and wall time (p50, us), the ratio and % of the measured copy peak; then the lead count and geomean."""
    rows = [r for r in report["results"] if r.get("impls")]
    paired = any(r.get("ratio_ci95") for r in rows)  # runs since session 24 keep every call's time
    lines = ["| op | shape | dtype | ours: device / wall (us) | best peer: device / wall (us) | best peer / ours "
             "| % of copy peak: ours / peer |" + (" paired ratio, 95% interval |" if paired else ""),
             "|---|---|---|---|---|---|---|" + ("---|" if paired else "")]

    def us(v):
        return "-" if v is None else ("%.0f" % v if v >= 100 else "%.1f" % v)

    for r in rows:
        peer = PEER_NAMES.get(r.get("best_peer"), r.get("best_peer") or "none ran")
        shape = _label(r).replace(" " + r["dtype"], "")
        lines.append("| %s | %s | %s | %s / %s | %s %s / %s | %s | %s / %s |" % (
            r["op"], shape, r["dtype"].replace("float", "f"), us(r.get("ours_us")),
            us(r.get("ours_wall_us")), peer, us(r.get("best_peer_us")), us(r.get("best_peer_wall_us")),
            "%.2fx" % r["ratio"] if r.get("ratio") is not None else "-",
            "%.0f%%" % r["ours_pct_peak"] if r.get("ours_pct_peak") is not None else "-",
            "%.0f%%" % r["best_peer_pct_peak"] if r.get("best_peer_pct_peak") is not None else "-")
            + (" %s |" % _interval(r) if paired else ""))
    s = report.get("summary") or {}
    if s.get("rows_with_ratio"):
        lines.append("")
        lines.append("We lead %d of %d rows (ratio >= 1.00); geometric mean of best peer / ours: %.3fx. Copy peak "
                     "measured in the same run: %.0f GB/s." % (s["rows_lead"], s["rows_with_ratio"], s["geomean_ratio"],
                                                               report.get("peak_copy_GBps") or float("nan")))
        counts = s.get("rows_by_interval") or {}
        if paired and sum(counts.values()):
            lines.append("By the paired ratio's 95%% interval (per-round best peer / ours, bootstrapped): ahead in "
                         "%d rows, behind in %d, and %d ties the run cannot order (the interval holds 1.00)."
                         % (counts["lead"], counts["behind"], counts["tie"]))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="run_ops --json output")
    parser.add_argument("png", nargs="?", help="the chart to write")
    parser.add_argument("--markdown", help="also write README's performance table (markdown) here ('-': stdout); "
                        "needs no matplotlib")
    args = parser.parse_args(argv)
    if args.markdown:
        report = read_report(args.json)
        table = markdown_table(report)
        if args.markdown == "-":
            sys.stdout.write(table)
        else:
            user_path(args.markdown).write_text(table)
            print("wrote %s" % user_path(args.markdown))
        if not args.png:
            return 0
    if not args.png:
        parser.error("the chart's path is missing (or pass --markdown)")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_bench: needs matplotlib, an optional dependency: pip install 'operator_runtime[plot]' or "
              "%s -m pip install matplotlib" % sys.executable, file=sys.stderr)
        return 2
    source, out = user_path(args.json), user_path(args.png)
    report = read_report(source)
    if not report.get("results"):
        print("plot_bench: %s has no results" % source, file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    draw(report, out)
    print("wrote %s (%d cases, %d panels)" % (out, len(report["results"]),
                                               len({r["op"] for r in report["results"]})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
