"""Timing for run_ops' bench mode, and the statistics its reports are made of.

Device benchmark (issue 11's method), on a backend whose tensors torch can see (nvidia):
  - device time: torch.profiler (CUPTI) records every device activity (kernels, memsets, memcpys); the
    activities one call launches are summed. Before each timed call an L2 flush writes a 256 MB buffer
    (4x the H200's 60 MB L2) with a kernel of its own; its kernels mark where one call ends and the next
    begins, and are not counted. One call's time = the sum of its kernels (gaps between them excluded).
  - wall time: per call, perf_counter around `fn(); synchronize()` after a flush and a synchronize (the
    time a user waits for one call, launch and Python overhead included); CUDA-event time of the same
    span is kept beside it.
  - several implementations of one row (measure_many): timed together, one call each per round, each round
    in an order of its own (a seeded shuffle: interleaved_order), so that none always runs after the same one.
  - p20/p50/p80 over `repeats` calls (default 50, at least `min_repeats`), fewer when a call is so slow
    that `repeats` would exceed the time budget of one measurement.
  - the peak: a 1 GiB torch copy_ timed the same way, bytes read + written / p50 device time.

Without torch on the device (metax), time_ms() falls back to the wall clock around a synchronize.

The pure functions (quantiles, split_calls, summarize, ...) take plain numbers so that tests can feed
them a fake profiler result.
"""

from __future__ import annotations

import datetime
import math
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time

from . import _backends

L2_FLUSH_BYTES = 256 << 20  # H200's L2 is 60 MB; writing 4x that evicts everything we read before
QUANTILES = (20, 50, 80)
UNDER_PEAK_PERCENT = 85.0  # issue 11: rows under this share of the copy peak at >= 64 MB moved need an explanation
UNDER_PEAK_MIN_BYTES = 64 << 20
BOOTSTRAP_RESAMPLES = 2000  # paired_ratio's interval
MIN_PAIRED_ROUNDS = 10


# ----------------------------------------------------------------------------------------------------
# statistics (pure: no device, no torch)


def quantile(values, q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between order statistics (numpy's default)."""
    if not values:
        return float("nan")
    data = sorted(values)
    pos = (len(data) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def quantiles(values, qs=QUANTILES) -> dict:
    """{'p20': .., 'p50': .., 'p80': ..} of values."""
    return {"p%d" % q: quantile(values, q) for q in qs}


def geomean(values) -> float:
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def gbps(nbytes: int, us: float) -> float:
    return nbytes / (us * 1e-6) / 1e9 if us and us > 0 else float("nan")


def pct_of_peak(nbytes: int, us: float, peak_gbps) -> float | None:
    return 100.0 * gbps(nbytes, us) / peak_gbps if peak_gbps else None


def paired_ratio(peer_calls, our_calls, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> dict | None:
    """A peer's and our per-call device times from the same rounds (measure_many: one call of each per round;
    both lists in round order) as per-round ratios peer / ours: {'median': their median, 'ci95': [lo, hi]}, a
    95% percentile-bootstrap interval of that median (the rounds resampled with replacement, seeded: the same
    interval for the same times). Pairing by round takes out what drifts over a run (clocks, the L2's state)
    and falls on both alike. A row whose interval lies wholly below 1.00 is behind by more than this run's
    spread; one whose interval holds 1.00 is a tie this run cannot order. None for lists of different
    lengths, of fewer than MIN_PAIRED_ROUNDS rounds, or with a call of ours timed at 0."""
    if len(peer_calls) != len(our_calls) or len(our_calls) < MIN_PAIRED_ROUNDS or min(our_calls) <= 0:
        return None
    ratios = [p / o for p, o in zip(peer_calls, our_calls)]
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
    return {"median": statistics.median(ratios), "ci95": [quantile(medians, 2.5), quantile(medians, 97.5)]}


def split_calls(events, is_marker, expected_calls: int, markers_per_flush: int = 1):
    """Per-call device activity from a profiler trace in which every timed call follows one flush.

    events: (name, start_ns, duration_ns) of device activities in any order; is_marker(name) says which
    belong to the flush, which launches markers_per_flush of them. Activities are taken in start order;
    each flush starts a new call and the non-marker activities up to the next flush belong to it. Returns
    [(device_us, [kernel names])], one per call; ValueError when the trace holds other than
    expected_calls flushes (a call that launched a kernel of the flush's name too), an activity comes
    before the first flush, or a call launched nothing."""
    ordered = sorted(events, key=lambda e: e[1])
    markers = sum(1 for name, _, _ in ordered if is_marker(name))
    if markers != expected_calls * markers_per_flush:
        raise ValueError("found %d flush activities in the trace, expected %d (%d calls x %d)" % (
            markers, expected_calls * markers_per_flush, expected_calls, markers_per_flush))
    calls, seen = [], 0
    for name, start, duration in ordered:
        if is_marker(name):
            if seen % markers_per_flush == 0:
                calls.append([0, []])
            seen += 1
            continue
        if not calls:
            raise ValueError("device activity %r before the first flush" % name)
        calls[-1][0] += duration
        calls[-1][1].append(name)
    empty = sum(1 for _, names in calls if not names)
    if empty:
        raise ValueError("%d of %d calls launched no device activity between flushes" % (empty, len(calls)))
    return [(ns / 1e3, names) for ns, names in calls]


def impl_summary(device_us, wall_us=None, event_us=None, kernels=None, nbytes=None, peak_gbps=None) -> dict:
    """One implementation's timings on one row: quantiles, GB/s and % of peak from the p50 device time."""
    result = {"status": "ok", "calls": len(device_us), "device_us": quantiles(device_us)}
    if wall_us:
        result["wall_us"] = quantiles(wall_us)
    if event_us:
        result["event_us"] = quantiles(event_us)
    if kernels is not None:
        result["kernels"] = kernels
    if nbytes:
        result["GBps"] = gbps(nbytes, result["device_us"]["p50"])
        result["pct_peak"] = pct_of_peak(nbytes, result["device_us"]["p50"], peak_gbps)
    return result


OUR_OTHER_KERNELS = ("tilelang",)  # impls of a row that are ours too (run_ops --tilelang_column): never a peer


def best_peer(impls: dict, ours: str = "ours"):
    """(name, result) of the peer with the lowest p50 device time among those that ran; (None, None)."""
    ran = [(r["device_us"]["p50"], name, r) for name, r in impls.items()
           if name != ours and name not in OUR_OTHER_KERNELS and r.get("status") == "ok" and r.get("device_us")]
    if not ran:
        return None, None
    _, name, result = min(ran, key=lambda t: t[0])
    return name, result


def compare_row(row: dict, ours: str = "ours") -> dict:
    """Adds ours_us, best_peer, best_peer_us, ratio (best peer / ours: >= 1.00 means we lead) and the %
    of peak of both to a row with 'impls'; where both were timed interleaved with every call's time kept
    (device_us_calls), also ratio_paired and ratio_ci95 (paired_ratio) and ratio_verdict; returns the row."""
    mine = row["impls"].get(ours, {})
    if mine.get("status") == "ok":
        row["ours_us"] = mine["device_us"]["p50"]
        row["ours_wall_us"] = mine.get("wall_us", {}).get("p50")
        row["ours_pct_peak"] = mine.get("pct_peak")
    name, peer = best_peer(row["impls"], ours)
    if peer is not None:
        row.update(best_peer=name, best_peer_us=peer["device_us"]["p50"],
                   best_peer_wall_us=peer.get("wall_us", {}).get("p50"), best_peer_pct_peak=peer.get("pct_peak"))
        if "ours_us" in row:
            row["ratio"] = row["best_peer_us"] / row["ours_us"]
            # ratio_verdict: 'lead' / 'behind' where the paired interval lies wholly at or above / below 1.00,
            # 'tie' where it holds 1.00.
            if mine.get("timed") == peer.get("timed") == "interleaved":
                pair = paired_ratio(peer.get("device_us_calls") or [], mine.get("device_us_calls") or [])
                if pair:
                    ci = pair["ci95"]
                    row.update(ratio_paired=pair["median"], ratio_ci95=ci,
                               ratio_verdict="lead" if ci[0] >= 1.0 else "behind" if ci[1] < 1.0 else "tie")
    return row


def summarize(rows) -> dict:
    """Rows where we lead (ratio >= 1.00) of those with a ratio, the geometric mean of the ratios (all
    rows and per op), and the rows under 85% of the copy peak at >= 64 MB moved."""
    with_ratio = [r for r in rows if r.get("ratio") is not None]
    per_op = {}
    for r in with_ratio:
        per_op.setdefault(r["op"], []).append(r["ratio"])
    under = [{"op": r["op"], "case": r["case"], "bytes": r["bytes"], "ours_pct_peak": r["ours_pct_peak"]}
             for r in rows if r.get("ours_pct_peak") is not None and r["bytes"] >= UNDER_PEAK_MIN_BYTES
             and r["ours_pct_peak"] < UNDER_PEAK_PERCENT]
    lost = sorted(with_ratio, key=lambda r: r["ratio"])
    return {
        "rows": len(rows),
        "rows_with_ratio": len(with_ratio),
        "rows_lead": sum(1 for r in with_ratio if r["ratio"] >= 1.0),
        "geomean_ratio": geomean([r["ratio"] for r in with_ratio]),
        "geomean_ratio_per_op": {op: geomean(v) for op, v in per_op.items()},
        "min_ratio": lost[0]["ratio"] if lost else None,
        "behind": [dict({"op": r["op"], "case": r["case"], "ratio": r["ratio"], "best_peer": r["best_peer"]},
                        **({"ratio_ci95": r["ratio_ci95"]} if r.get("ratio_ci95") else {}))
                   for r in lost if r["ratio"] < 1.0],
        # Rows by their paired-ratio interval (compare_row's ratio_verdict: the interval wholly at or above
        # 1.00, holding it, wholly below): how many rows behind are behind by more than the run's spread.
        "rows_by_interval": {verdict: sum(1 for r in with_ratio if r.get("ratio_verdict") == verdict)
                             for verdict in ("lead", "tie", "behind")},
        "under_%d_pct_peak_at_64MB" % UNDER_PEAK_PERCENT: under,
        "best_peer_counts": {name: sum(1 for r in with_ratio if r["best_peer"] == name)
                             for name in sorted({r["best_peer"] for r in with_ratio})},
    }


def interleaved_order(count: int, rounds: int, seed: int = 0) -> list:
    """Indices 0..count-1, each once per round, each round shuffled (random.Random(seed): the same order
    in every run): over many rounds each one follows every other about equally often, which a fixed
    rotation does not (there each follows the same neighbour in all but one place per round)."""
    rng = random.Random(seed)
    order = []
    for _ in range(rounds):
        round_ = list(range(count))
        rng.shuffle(round_)
        order += round_
    return order


def repeats_for(estimate_s: float, repeats: int, min_repeats: int, budget_s: float) -> int:
    """Timed calls for one measurement: `repeats`, fewer (down to min_repeats) when a call, flush included,
    takes so long that they would exceed budget_s."""
    if estimate_s <= 0:
        return repeats
    return max(min_repeats, min(repeats, int(budget_s / estimate_s)))


# ----------------------------------------------------------------------------------------------------
# the device timer


def _torch_cuda():
    try:
        import torch

        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


ANNOTATION = "oprt_bench_call"


def _event_times(profiler, device_type, annotated=False):
    """(name, start_ns, duration_ns) of the trace's activities on `device_type` (kernels, memcpys,
    memsets), user annotations left out. annotated (the CPU self-test): only the flush's top-level op and
    the record_function ranges named ANNOTATION."""
    out = []
    for e in profiler.profiler.kineto_results.events():
        if e.device_type() != device_type:
            continue
        if annotated:
            if e.name() not in (ANNOTATION, "aten::bitwise_not_"):
                continue
        elif (getattr(e, "is_user_annotation", lambda: False)()
              or getattr(e, "activity_type", lambda: "")() == "gpu_user_annotation"
              or e.name() in ("Context Sync", "cudaDeviceSynchronize")):
            continue
        if hasattr(e, "start_ns"):
            out.append((e.name(), e.start_ns(), e.duration_ns()))
        else:  # older torch
            out.append((e.name(), int(e.start_us() * 1000), int(e.duration_us() * 1000)))
    return out


class DeviceTimer:
    """Device time (torch.profiler / CUPTI) and wall time of calls on a CUDA device, an L2 flush before each.

    measure(fn) -> {'device_us': [...], 'wall_us': [...], 'event_us': [...], 'kernels': [...]}.
    `torch` is the module; `device` 'cuda'. The flush buffer is `flush_bytes` of uint8 inverted in place
    by one kernel whose name (found once, by profiling a flush alone) marks the boundaries between calls.
    device='cpu' is the self-test: the CPU profiler, and each call wrapped in a record_function range
    that stands for its kernels (our C calls leave no other trace there).
    """

    def __init__(self, torch, device="cuda", repeats=50, min_repeats=10, budget_s=0.25, warmup=3,
                 flush_bytes=L2_FLUSH_BYTES, before_flush=None):
        self.torch, self.device = torch, device
        self.before_flush = before_flush  # e.g. persisting_l2_reset(torch): run before every flush
        self.annotated = device == "cpu"
        self.repeats, self.min_repeats, self.budget_s, self.warmup = repeats, min_repeats, budget_s, warmup
        from torch.profiler import ProfilerActivity
        from torch.autograd import DeviceType

        self.activities = [ProfilerActivity.CPU] if self.annotated else [ProfilerActivity.CUDA]
        self.device_type = DeviceType.CPU if self.annotated else DeviceType.CUDA
        self.flush_buffer = torch.empty(flush_bytes, dtype=torch.uint8, device=device)
        self.flush_buffer.zero_()
        self.flush_names, self.markers_per_flush = set(), 0
        tries = [self.activities] if self.annotated else [
            self.activities, self.activities, [ProfilerActivity.CPU, ProfilerActivity.CUDA]]  # CUPTI warm-up; old kineto
        for activities in tries:
            self.activities = activities
            self._learn_flush()
            if self.flush_names:
                break
        if not self.flush_names:
            raise RuntimeError("the profiler recorded no device activity for the L2 flush: is CUPTI usable?")

    def flush(self):
        if self.before_flush is not None:
            self.before_flush()
        self.flush_buffer.bitwise_not_()

    def _learn_flush(self, flushes=3):
        """The names of the device activities a flush launches, and how many per flush: those that three
        flushes alone leave in a trace a multiple of three times (anything else there is not the flush's)."""
        counts = {}
        for name, _, _ in self._trace(lambda: None, flushes, split=False, wrap=False):
            counts[name] = counts.get(name, 0) + 1
        names = {name for name, n in counts.items() if n % flushes == 0}
        self.flush_names = names
        self.markers_per_flush = sum(counts[name] for name in names) // flushes

    def synchronize(self):
        if self.device != "cpu":
            self.torch.cuda.synchronize()

    def _profiler(self):
        from torch.profiler import profile

        return profile(activities=self.activities)

    def _events(self, prof):
        return _event_times(prof, self.device_type, self.annotated)

    def _trace(self, fn, calls, split=True, wrap=True):
        """Runs flush + fn `calls` times under the profiler; per-call (device_us, kernel names), or the
        raw events (split=False)."""
        if self.annotated and wrap:
            from torch.profiler import record_function

            def fn(fn=fn):
                with record_function(ANNOTATION):
                    fn()
        self.synchronize()
        with self._profiler() as prof:
            for _ in range(calls):
                self.flush()
                fn()
            self.synchronize()
        events = self._events(prof)
        if not split:
            return events
        return split_calls(events, lambda name: name in self.flush_names, calls, self.markers_per_flush)

    def estimate_s(self, fn, calls=3) -> float:
        """Seconds per flush + call + synchronize, from a few calls (also a warm-up)."""
        self.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            self.flush()
            fn()
            self.synchronize()
        return (time.perf_counter() - t0) / calls

    def measure(self, fn) -> dict:
        """Warms fn up, then times it: device time under the profiler, then wall time without it."""
        return self.measure_many({"fn": fn})["fn"]

    def measure_many(self, fns: dict) -> dict:
        """Times several implementations of one row together: name -> measure()'s dict. Each is warmed up
        and its call estimated alone; then one profiled loop makes `n` rounds of one call each (a flush
        before every call), each round in its own order (interleaved_order), and the wall-clock loop the
        same. So whatever state one implementation leaves on the device falls on the others alike: timed one
        after another, the measurement right after torch.compile's kernels ran ~9% faster than the same
        kernel later (bench/notes/softmax-tuning.md, "Session 11"); in rounds of a fixed rotation, each
        followed the same neighbour, and our 128x131072 f16 softmax took 20.7 us after torch eager's calls,
        21.2 after torch.compile's and 21.6 after QuACK's (session 12). n: the fewest repeats any of them
        gets alone."""
        names = list(fns)
        n = self.repeats
        for name in names:
            for _ in range(self.warmup):
                fns[name]()
            n = min(n, repeats_for(self.estimate_s(fns[name]), self.repeats, self.min_repeats, self.budget_s))
        order = [names[i] for i in interleaved_order(len(names), n)]

        def caller():  # one implementation is called directly: no dispatch inside its wall-time span
            return fns[names[0]] if len(names) == 1 else _Cycle(fns, order)

        traced = self._trace(caller(), len(order))
        wall, event = self.wall_us(caller(), len(order))
        out = {}
        for name in names:
            mine = [k for k, owner in enumerate(order) if owner == name]
            per_call = [traced[k] for k in mine]
            out[name] = {"device_us": [us for us, _ in per_call], "wall_us": [wall[k] for k in mine],
                         "event_us": [event[k] for k in mine] if event else [],
                         "kernels": list(dict.fromkeys(kn for _, names_ in per_call for kn in names_)),
                         "kernels_per_call": statistics.median(len(names_) for _, names_ in per_call)}
        return out

    def wall_us(self, fn, calls):
        """Per call: perf_counter around fn() + synchronize (after a flush and a synchronize), and the
        CUDA-event time of the same span."""
        torch, cuda = self.torch, self.device != "cpu"
        wall, pairs = [], []
        for _ in range(calls):
            self.flush()
            self.synchronize()
            if cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
            t0 = time.perf_counter()
            fn()
            if cuda:
                end.record()
            self.synchronize()
            wall.append((time.perf_counter() - t0) * 1e6)
            if cuda:
                pairs.append((start, end))
        return wall, [s.elapsed_time(e) * 1e3 for s, e in pairs]

    def copy_peak(self, nbytes: int = 1 << 30) -> dict:
        """The measured HBM peak: a torch copy_ of nbytes, (read + written bytes) / p50 device time."""
        src = self.torch.empty(nbytes, dtype=self.torch.uint8, device=self.device)
        dst = self.torch.empty_like(src)
        src.zero_()
        m = self.measure(lambda: dst.copy_(src))
        del src, dst
        device = quantiles(m["device_us"])
        return {"bytes": 2 * nbytes, "device_us": device, "GBps": gbps(2 * nbytes, device["p50"]),
                "calls": len(m["device_us"]), "kernels": m["kernels"]}


class _Cycle:
    """A callable that calls fns[order[0]], fns[order[1]], ... on successive calls (measure_many's rounds)."""

    def __init__(self, fns, order):
        self.fns, self.order, self.next = fns, order, 0

    def __call__(self):
        name = self.order[self.next]
        self.next += 1
        return self.fns[name]()


def persisting_l2_reset(torch, driver=None):
    """A callable for DeviceTimer's before_flush: synchronizes, then resets the L2's persisting lines to normal
    (the driver's cuCtxResetPersistingL2Cache), so that the flush can evict them. Lines loaded with an L2
    evict_last policy (Inductor's looped reductions read x that way) outlive a flush of normal-priority lines
    and leave the next calls' inputs partly in L2; after this reset the flush evicts them (measured on the H200:
    bench/peers-method.md, "Persisting lines are reset before every flush"). `driver`: libcuda, or a stand-in
    with the same function (tests)."""
    if driver is None:
        import ctypes

        driver = ctypes.CDLL("libcuda.so.1")

    def reset():
        torch.cuda.synchronize()
        status = driver.cuCtxResetPersistingL2Cache()
        if status != 0:
            raise RuntimeError("cuCtxResetPersistingL2Cache failed: CUresult %d" % status)
    return reset


class EventTimer(DeviceTimer):
    """DeviceTimer's fallback where the profiler records nothing (no CUPTI): device time is the CUDA-event
    time around each call after its flush (launch gaps included). Reports say so."""

    def __init__(self, torch, device="cuda", repeats=50, min_repeats=10, budget_s=0.25, warmup=3,
                 flush_bytes=L2_FLUSH_BYTES, before_flush=None):
        self.torch, self.device, self.annotated, self.before_flush = torch, device, False, before_flush
        self.repeats, self.min_repeats, self.budget_s, self.warmup = repeats, min_repeats, budget_s, warmup
        self.flush_buffer = torch.empty(flush_bytes, dtype=torch.uint8, device=device)
        self.flush_buffer.zero_()
        self.flush_names, self.markers_per_flush = set(), 0

    def _trace(self, fn, calls, split=True, wrap=True):
        torch = self.torch
        pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
        self.synchronize()
        for start, end in pairs:
            self.flush()
            start.record()
            fn()
            end.record()
        self.synchronize()
        return [(s.elapsed_time(e) * 1e3, ["(CUDA events)"]) for s, e in pairs]


class Timer:
    """The older interface: time_ms(fn) -> median milliseconds over `repeats` runs, each after an L2
    flush, by CUDA events when torch sees the device, else by the wall clock around a synchronize."""

    def __init__(self, backend: str, repeats: int = 30, warmup: int = 3):
        self.backend, self.repeats, self.warmup = backend, repeats, warmup
        self.torch = _torch_cuda() if backend == "nvidia" else None
        self._flush = self.torch.empty(L2_FLUSH_BYTES // 4, dtype=self.torch.float32, device="cuda") if self.torch else None

    def times_ms(self, fn) -> list:
        for _ in range(self.warmup):
            fn()
        times = []
        if self.torch is not None:
            torch = self.torch
            start = [torch.cuda.Event(enable_timing=True) for _ in range(self.repeats)]
            end = [torch.cuda.Event(enable_timing=True) for _ in range(self.repeats)]
            for i in range(self.repeats):
                self._flush.zero_()  # evict L2, not timed
                start[i].record()
                fn()
                end[i].record()
            torch.cuda.synchronize()
            times = [s.elapsed_time(e) for s, e in zip(start, end)]
        else:
            for _ in range(self.repeats):
                _backends.synchronize()
                t0 = time.perf_counter()
                fn()
                _backends.synchronize()
                times.append((time.perf_counter() - t0) * 1e3)
        return times

    def time_ms(self, fn) -> float:
        return statistics.median(self.times_ms(fn))

    def copy_bandwidth_gbps(self, nbytes: int = 1 << 30) -> float | None:
        """Measured peak: a device-to-device copy of nbytes (read + write counted)."""
        if self.torch is None:
            return None
        src = self.torch.empty(nbytes, dtype=self.torch.uint8, device="cuda")
        dst = self.torch.empty_like(src)
        ms = self.time_ms(lambda: dst.copy_(src))
        return 2 * nbytes / (ms * 1e-3) / 1e9


# ----------------------------------------------------------------------------------------------------
# facts about the machine


def _run(cmd) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def package_versions(names=("torch", "triton", "liger_kernel", "quack", "numpy", "operator_runtime")) -> dict:
    """{import name: version, or None when it does not import} (only modules already imported are
    looked at through sys.modules first; others are imported)."""
    import importlib
    from importlib import metadata

    dists = {"liger_kernel": "liger-kernel", "quack": "quack-kernels", "operator_runtime": "operator_runtime"}
    versions = {}
    for name in names:
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional package that fails to import is simply absent
            versions[name] = None
            continue
        version = getattr(module, "__version__", None)
        if version is None:
            try:
                version = metadata.version(dists.get(name, name))
            except metadata.PackageNotFoundError:
                version = "unknown"
        versions[name] = str(version)
    return versions


def machine_info(backend: str) -> dict:
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "backend": backend,
        "device": _backends.device_name(),
    }
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:
        pass
    if backend == "nvidia":
        query = _run(["nvidia-smi", "--query-gpu=name,driver_version,mig.mode.current,memory.total,clocks.max.memory",
                      "--format=csv,noheader"])
        if query:
            fields = [f.strip() for f in query.splitlines()[0].split(",")]
            info.update(zip(["gpu", "driver", "mig_mode", "memory_total", "max_memory_clock"], fields))
        smi = _run(["nvidia-smi"])
        for token in smi.split("|"):
            if "CUDA Version:" in token:
                info["driver_cuda"] = token.split("CUDA Version:")[1].split()[0]
        torch = _torch_cuda()
        if torch is not None:
            info["torch"] = torch.__version__
            info["torch_cuda"] = torch.version.cuda
            props = torch.cuda.get_device_properties(0)
            info["sm_count"] = props.multi_processor_count
            info.setdefault("gpu", props.name)
            info["compute_capability"] = "%d.%d" % (props.major, props.minor)
            l2 = getattr(props, "L2_cache_size", None)
            if l2:
                info["l2_bytes"] = l2
        info["CUDA_VISIBLE_DEVICES"] = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    return info
