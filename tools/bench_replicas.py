"""Several run_ops device benchmarks of one build, each run in its own process, side by side: for every row the
ratio (best peer / ours, p50 device time) and the paired interval's verdict of each run, and what the runs say
together. A paired interval holds the spread from round to round within one process; what stays fixed within a
process and moves between processes it does not hold (bench/peers-method.md, "Paired ratio and its interval"), so
here a row is behind only where every run has it behind by its interval:

    lead     the p50 ratio is >= 1.00 in every run
    behind   every run's interval lies wholly below 1.00
    mixed    anything else (behind in some runs, a tie or a lead in others)

    python3 tools/bench_replicas.py RUN1.json RUN2.json [...] [--markdown OUT.md | -] [--json OUT.json]
"""

import argparse
import json
import math
import statistics
import sys

from plot_bench import read_report, user_path  # relative paths mean where `bazel run` started


def rows_by_key(report) -> dict:
    """(op, case) -> row, for the rows of a run_ops report that have a ratio (ours and a peer timed)."""
    return {(row["op"], row["case"]): row for row in report["results"] if row.get("ratio")}


def across(reports) -> list:
    """One entry per row found in any report (in the first report's order, then the others'): its label and
    dtype, the ratio, paired ratio, verdict and best peer of each run (None where a run lacks the row), and
    `across`: lead / behind / mixed over the runs that have it."""
    keyed = [rows_by_key(report) for report in reports]
    order = list(dict.fromkeys(key for rows in keyed for key in rows))
    merged = []
    for key in order:
        runs = [rows.get(key) for rows in keyed]
        present = [row for row in runs if row is not None]
        if all(row["ratio"] >= 1.0 for row in present):
            verdict = "lead"
        elif all(row.get("ratio_verdict") == "behind" for row in present):
            verdict = "behind"
        else:
            verdict = "mixed"
        first = present[0]
        merged.append({"op": key[0], "case": key[1], "label": first.get("label", key[1]), "dtype": first.get("dtype"),
                       "ratios": [row and row["ratio"] for row in runs],
                       "paired": [row and row.get("ratio_paired") for row in runs],
                       "verdicts": [row and row.get("ratio_verdict") for row in runs],
                       "best_peers": [row and row.get("best_peer") for row in runs],
                       "median_ratio": statistics.median(row["ratio"] for row in present), "across": verdict})
    return merged


def summary(merged, runs: int) -> dict:
    counts = {verdict: sum(1 for row in merged if row["across"] == verdict) for verdict in ("lead", "behind", "mixed")}
    ratios = [row["median_ratio"] for row in merged]
    return dict(counts, runs=runs, rows=len(merged),
                geomean_of_median_ratios=math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None,
                behind_rows=[(row["op"], row["case"]) for row in merged if row["across"] == "behind"])


def markdown(merged, totals) -> str:
    runs = totals["runs"]
    cell = lambda ratio, verdict: "-" if ratio is None else "%.3f%s" % (ratio, {"behind": " b", "tie": " t"}.get(verdict, ""))
    lines = ["| op | shape | dtype | %s | across runs |" % " | ".join("run %d" % (i + 1) for i in range(runs)),
             "|---|---|---|%s---|" % ("---|" * runs)]
    for row in merged:
        lines.append("| %s | %s | %s | %s | %s |" % (row["op"], row["label"], row["dtype"], " | ".join(
            cell(r, v) for r, v in zip(row["ratios"], row["verdicts"])), row["across"]))
    lines.append("")
    lines.append("best peer / ours, p50 device time (b: behind by its paired interval, t: a tie by it). Over %d runs, "
                 "%d rows: %d lead in every run, %d are behind by their interval in every run, %d are mixed; the "
                 "geometric mean of the rows' median ratios is %.3fx." % (
                     runs, totals["rows"], totals["lead"], totals["behind"], totals["mixed"],
                     totals["geomean_of_median_ratios"] or float("nan")))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", help="run_ops --mode bench JSON files, one per process")
    parser.add_argument("--markdown", help="write the table here ('-': stdout)")
    parser.add_argument("--json", help="write the merged rows and the summary here")
    args = parser.parse_args(argv)
    reports = [read_report(path) for path in args.reports]
    merged = across(reports)
    totals = summary(merged, len(reports))
    if args.json:
        user_path(args.json).write_text(json.dumps({"reports": args.reports, "summary": totals, "rows": merged},
                                                      indent=1))
    table = markdown(merged, totals)
    if args.markdown == "-" or not (args.markdown or args.json):
        sys.stdout.write(table)
    elif args.markdown:
        user_path(args.markdown).write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
