"""The two device-time modes of a run_ops benchmark's rows: the calls of ours and of the row's best peer pooled and
split in two by 2-means, then for each of the two implementations the share of its calls in the faster mode and
each mode's median, and how often both calls of a round fell in the same mode. On the H200 the calls of many
bandwidth-bound rows fall in two modes 0.5-2.3% apart, and a p50 ratio then follows how often each implementation
lands in which (bench/notes/elementwise-tuning.md, "Two modes per call"). Rows need every call's time
(device_us_calls: run_ops since session 24).

    python3 tools/bench_modes.py bench/results/h200-peers.json [--op copy,relu] [--behind] [--json OUT.json]
"""

import argparse
import json
import statistics
import sys

from plot_bench import read_report, user_path  # relative paths mean where `bazel run` started


def two_means(values, iterations: int = 100):
    """(fast centre, slow centre) of values split in two by 1-D k-means, started from the minimum and maximum
    (deterministic); equal centres when the values are all equal."""
    fast, slow = min(values), max(values)
    for _ in range(iterations):
        lower = [v for v in values if abs(v - fast) <= abs(v - slow)]
        upper = [v for v in values if abs(v - fast) > abs(v - slow)]
        if not lower or not upper:
            break
        moved = (statistics.mean(lower), statistics.mean(upper))
        if moved == (fast, slow):
            break
        fast, slow = moved
    return fast, slow


def modes_of_row(row) -> dict | None:
    """The split of one run_ops row (ours against its best peer), or None without both implementations' calls."""
    peer = row.get("best_peer")
    impls = row.get("impls", {})
    ours = impls.get("ours", {}).get("device_us_calls")
    theirs = impls.get(peer, {}).get("device_us_calls") if peer else None
    if not ours or not theirs:
        return None
    fast, slow = two_means(ours + theirs)
    threshold = (fast + slow) / 2

    def side(calls):
        quick = [us for us in calls if us < threshold]
        rest = [us for us in calls if us >= threshold]
        return {"fast_share": len(quick) / len(calls), "fast_median": statistics.median(quick) if quick else None,
                "slow_median": statistics.median(rest) if rest else None}

    same = None
    if len(ours) == len(theirs):  # interleaved rounds: call k of each is round k
        same = sum((a < threshold) == (b < threshold) for a, b in zip(ours, theirs)) / len(ours)
    return {"op": row["op"], "case": row["case"], "peer": peer, "fast_us": fast, "slow_us": slow,
            "separation_pct": (slow - fast) / fast * 100, "ours": side(ours), "peer_side": side(theirs),
            "same_mode_in_round": same, "ratio": row.get("ratio"), "verdict": row.get("ratio_verdict")}


def format_line(m) -> str:
    us = lambda v: "-" if v is None else "%.2f" % v
    return "%-11s %-34s %-13s modes %8.2f / %8.2f us (%4.1f%% apart)  fast share ours %.2f peer %.2f  " \
           "fast med %s / %s  slow med %s / %s  same mode in round %s  ratio %.3f %s" % (
               m["op"], m["case"], m["peer"], m["fast_us"], m["slow_us"], m["separation_pct"],
               m["ours"]["fast_share"], m["peer_side"]["fast_share"], us(m["ours"]["fast_median"]),
               us(m["peer_side"]["fast_median"]), us(m["ours"]["slow_median"]), us(m["peer_side"]["slow_median"]),
               "-" if m["same_mode_in_round"] is None else "%.2f" % m["same_mode_in_round"], m["ratio"] or 0.0,
               m["verdict"] or "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a run_ops --mode bench JSON")
    parser.add_argument("--op", help="comma-separated op names to keep")
    parser.add_argument("--behind", action="store_true", help="only rows whose p50 ratio is under 1.00")
    parser.add_argument("--json", help="write the splits here")
    args = parser.parse_args(argv)
    rows = read_report(args.report)["results"]
    ops = set(args.op.split(",")) if args.op else None
    splits = []
    for row in rows:
        if (ops and row["op"] not in ops) or (args.behind and not (row.get("ratio") and row["ratio"] < 1.0)):
            continue
        m = modes_of_row(row)
        if m:
            splits.append(m)
            print(format_line(m))
    if args.json:
        user_path(args.json).write_text(json.dumps(splits, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
