"""Draws a benchmark JSON from run_ops as a PNG, one panel per operator, one labelled bar group per case.

  bazel run //tools:plot_bench -- bench/results/h200.json /tmp/h200.png     # paths relative to where you are
  python tools/plot_bench.py bench.json bench.png

Device results (run_ops --backend nvidia|metax --mode bench): achieved GB/s of ours and torch's, the
measured copy bandwidth as the roof, our speed relative to torch's at each bar. CPU results (--backend
cpu): milliseconds of numpy, ours and torch's CPU kernels, numpy-time / ours-time at each bar.

matplotlib is an optional dependency (the `plot` extra: pip install 'operator_runtime[plot]', or
`python3 -m pip install matplotlib` into the interpreter ./bazelw uses); without it this prints one line
and exits with status 2.
"""

import argparse
import json
import os
import pathlib
import sys


def user_path(path) -> pathlib.Path:
    """Relative paths mean the directory `bazel run` was started from (the program runs in runfiles)."""
    path = pathlib.Path(path).expanduser()
    if not path.is_absolute() and os.environ.get("BUILD_WORKING_DIRECTORY"):
        path = pathlib.Path(os.environ["BUILD_WORKING_DIRECTORY"]) / path
    return path


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


def draw(report, out):
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="run_ops --json output")
    parser.add_argument("png", help="the chart to write")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_bench: needs matplotlib, an optional dependency: pip install 'operator_runtime[plot]' or "
              "%s -m pip install matplotlib" % sys.executable, file=sys.stderr)
        return 2
    source, out = user_path(args.json), user_path(args.png)
    report = json.loads(source.read_text())
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
