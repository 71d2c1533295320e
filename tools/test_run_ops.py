"""run_ops and plot_bench as a user meets them (issue 12, finding 5): every public op is selectable
(log_softmax, a non-last-axis softmax through --cases), an unavailable backend is one line and exit
status 2, relative --json paths mean the directory `bazel run` was started from, CPU benchmark rows carry
their real shapes, and plot_bench without matplotlib says so in one line (exit 2) or, with it, draws one
panel per operator. Issue 11's device benchmark: its statistics, the per-call split of a (fake) profiler
trace, the timer's measuring loop on a fake device, the peers' applicability, the shape matrix, the
JSON of a whole run (--bench_self_test, when torch is importable) and its chart."""

import collections
import json
import lzma
import os
import pathlib
import random
import subprocess
import sys
import types

import pytest

import operator_runtime as oprt
from operator_runtime import testing

HERE = pathlib.Path(__file__).resolve().parent


def run(tool, *args, cwd=None, env=None):
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **(env or {}))
    full_env.pop("TESTBRIDGE_TEST_ONLY", None)
    r = subprocess.run([sys.executable, str(HERE / tool), *args], capture_output=True, text=True, cwd=cwd, env=full_env)
    return r.returncode, r.stdout, r.stderr


def test_log_softmax_and_a_case_filter_are_selectable():
    code, out, err = run("run_ops.py", "--op", "log_softmax", "--mode", "test", "--cases", "axis=0")
    assert code == 0, err
    rows = [l.split() for l in out.splitlines() if l.startswith(("log_softmax", "softmax"))]
    assert [r[0] for r in rows] == ["log_softmax"] and int(rows[0][1]) > 0, out
    code, out, err = run("run_ops.py", "--op", "softmax,relu", "--mode", "test", "--cases", "33x65")
    names = [l.split()[0] for l in out.splitlines() if l.startswith(("softmax", "relu", "log_softmax"))]
    assert code == 0 and names == ["softmax", "relu"], out + err


def test_unknown_op_names_the_known_ones():
    code, out, err = run("run_ops.py", "--op", "no_such_op", "--mode", "test")
    assert code != 0 and "unknown --op no_such_op; known: copy" in err and "log_softmax" in err


@pytest.mark.parametrize("backend", ["nvidia", "metax"])
def test_an_unavailable_backend_is_one_line_and_exit_2(backend):
    if backend in oprt.available_backends():
        pytest.skip("%s is available here" % backend)
    code, out, err = run("run_ops.py", "--backend", backend, "--mode", "test")
    lines = (out + err).strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, out + err
    assert lines[0].startswith("run_ops: backend %s is not available" % backend)


def test_json_paths_are_relative_to_where_bazel_run_started(tmp_path):
    elsewhere = tmp_path / "runfiles"
    elsewhere.mkdir()
    code, out, err = run("run_ops.py", "--op", "copy", "--mode", "bench", "--cases", "copy 4M", "--repeats", "7",
                         "--json", "results/rel.json", cwd=elsewhere, env={"BUILD_WORKING_DIRECTORY": str(tmp_path)})
    assert code == 0, err
    report = json.loads((tmp_path / "results" / "rel.json").read_text())
    assert not (elsewhere / "results").exists()
    rows = report["results"]
    assert {r["dtype"] for r in rows} == {"float32", "float16", "bfloat16"}
    assert all(r["shape"] == [4 << 20] and r["numpy_ms"] > 0 and r["ours_ms"] > 0 for r in rows)  # real shapes
    assert "4194304" in out  # ... in the printed rows too


DEVICE_REPORT = {
    "machine": {"gpu": "Test GPU"}, "peak_copy_GBps": 1000.0, "repeats": 3, "timing": "cuda events",
    "results": [
        {"op": "copy", "case": "16777216-float32", "shapes": [[16777216]], "dtype": "float32", "attrs": {},
         "ours_GBps": 900.0, "torch_GBps": 880.0, "speedup_vs_torch": 1.02},
        {"op": "softmax", "case": "4096x4096-float16-axis=0", "shapes": [[4096, 4096]], "dtype": "float16",
         "attrs": {"axis": 0}, "ours_GBps": 700.0, "torch_GBps": 300.0, "speedup_vs_torch": 2.3},
        {"op": "log_softmax", "case": "4096x4096-float16-axis=-1-log=True", "shapes": [[4096, 4096]],
         "dtype": "float16", "attrs": {"axis": -1, "log": True}, "ours_GBps": 650.0},
    ]}


def test_plot_bench(tmp_path):
    source = tmp_path / "bench.json"
    source.write_text(json.dumps(DEVICE_REPORT))
    code, out, err = run("plot_bench.py", "bench.json", "chart/bench.png", env={"BUILD_WORKING_DIRECTORY": str(tmp_path)},
                         cwd=HERE)
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # an optional dependency: one line, exit 2
        assert code == 2 and len(err.strip().splitlines()) == 1 and "needs matplotlib" in err, err
        return
    assert code == 0, err
    assert (tmp_path / "chart" / "bench.png").stat().st_size > 10000
    assert "3 panels" in out  # one per operator
    sys.path.insert(0, str(HERE))
    import plot_bench

    labels = [plot_bench._label(r) for r in DEVICE_REPORT["results"]]
    assert labels == ["16777216 (16M) float32", "4096x4096 float16 axis=0", "4096x4096 float16 log=True"]


# ----------------------------------------------------------------------------------------------------
# issue 11's device benchmark

from operator_runtime import benchmark  # noqa: E402

if not hasattr(benchmark, "DeviceTimer"):  # an installed wheel older than this checkout (run_ops does the same)
    import importlib.util

    _spec = importlib.util.spec_from_file_location(
        "operator_runtime.benchmark", HERE.parent / "python" / "operator_runtime" / "benchmark.py")
    benchmark = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(benchmark)


def _run_ops_module():
    sys.path.insert(0, str(HERE))
    import run_ops

    return run_ops


def test_quantiles_interpolate_like_numpy():
    import numpy as np

    values = [5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 7.5]
    q = benchmark.quantiles(values)
    assert list(q) == ["p20", "p50", "p80"]
    for key, p in (("p20", 20), ("p50", 50), ("p80", 80)):
        assert q[key] == pytest.approx(float(np.percentile(values, p)))
    assert benchmark.quantile([3.0], 80) == 3.0 and benchmark.quantiles([])["p50"] != benchmark.quantiles([])["p50"]


FLUSH = "void at::native::vectorized_elementwise_kernel<4, bitwise_not_kernel_cuda>"


def _trace(calls):
    """A fake profiler trace: per call a flush, then the call's kernels (name, duration ns), 1 us apart."""
    events, t = [], 0
    for kernels in calls:
        events.append((FLUSH, t, 130_000))
        t += 131_000
        for name, ns in kernels:
            events.append((name, t, ns))
            t += ns + 1_000
    return events


def test_split_calls_sums_each_calls_kernels_and_leaves_the_flush_out():
    calls = [[("softmax_kernel", 18_000)], [("reduce_pass1", 9_000), ("Memset (Device)", 1_000), ("reduce_pass2", 2_500)],
             [("softmax_kernel", 19_000)]]
    events = _trace(calls)
    shuffled = events[::-1]  # the profiler's order is not relied on
    per_call = benchmark.split_calls(shuffled, lambda n: n == FLUSH, 3)
    assert [us for us, _ in per_call] == [18.0, 12.5, 19.0]
    assert per_call[1][1] == ["reduce_pass1", "Memset (Device)", "reduce_pass2"]
    with pytest.raises(ValueError, match="found 3 flush activities in the trace, expected 4"):
        benchmark.split_calls(events, lambda n: n == FLUSH, 4)
    with pytest.raises(ValueError, match="before the first flush"):
        benchmark.split_calls([("k", 0, 10)] + [(n, t + 100, d) for n, t, d in events], lambda n: n == FLUSH, 3)
    with pytest.raises(ValueError, match="1 of 2 calls launched no device activity"):
        benchmark.split_calls(_trace([[("k", 5_000)], []]), lambda n: n == FLUSH, 2)
    # a flush made of two kernels is one boundary
    two = [("fill", 0, 10), ("fill", 20, 10), ("k", 40, 3_000), ("fill", 5_000, 10), ("fill", 5_050, 10),
           ("k", 5_100, 4_000)]
    assert [us for us, _ in benchmark.split_calls(two, lambda n: n == "fill", 2, 2)] == [3.0, 4.0]


class FakeDevice:
    """Stands in for torch + CUPTI: flush() and the timed fn append to one device timeline."""

    def __init__(self, kernels):
        self.kernels, self.t, self.timeline, self.calls = kernels, 0, [], 0

    def flush(self):
        self.timeline.append((FLUSH, self.t, 130_000))
        self.t += 140_000

    def fn(self):
        self.calls += 1
        for name, ns in self.kernels(self.calls):
            self.timeline.append((name, self.t, ns))
            self.t += ns + 2_000


class FakeTimer(benchmark.DeviceTimer):
    def __init__(self, device, **kwargs):  # no torch: the profiler is the fake device's timeline
        self.torch, self.device, self.annotated, self.fake = None, "cpu", False, device
        self.repeats, self.min_repeats, self.budget_s, self.warmup = 40, 10, 10.0, 3
        self.flush_names, self.markers_per_flush = {FLUSH}, 1
        self.__dict__.update(kwargs)

    def flush(self):
        self.fake.flush()

    def _profiler(self):
        import contextlib

        self.fake.timeline = []
        return contextlib.nullcontext(self.fake)

    def _events(self, prof):
        return list(prof.timeline)


def test_device_timer_measures_each_call_from_a_fake_profiler_trace():
    device = FakeDevice(lambda i: [("pass1", 10_000 + 1_000 * (i % 5)), ("pass2", 2_000)])
    timer = FakeTimer(device)
    m = timer.measure(device.fn)
    assert len(m["device_us"]) == 40 and len(m["wall_us"]) == 40 and m["event_us"] == []
    assert sorted(set(m["device_us"])) == [12.0, 13.0, 14.0, 15.0, 16.0]  # flush and gaps left out
    assert m["kernels"] == ["pass1", "pass2"] and m["kernels_per_call"] == 2
    assert device.calls == 3 + 3 + 40 + 40  # warm-up, estimate, profiled, wall-clock calls
    summary = benchmark.impl_summary(m["device_us"], m["wall_us"], None, m["kernels"], nbytes=28_000_000,
                                     peak_gbps=4000.0)
    assert summary["device_us"]["p50"] == 14.0
    assert summary["GBps"] == pytest.approx(2000.0) and summary["pct_peak"] == pytest.approx(50.0)
    # a slow call gets fewer repeats, never fewer than min_repeats
    assert benchmark.repeats_for(0.01, 50, 10, 0.25) == 25
    assert benchmark.repeats_for(1.0, 50, 10, 0.25) == 10 and benchmark.repeats_for(1e-5, 50, 10, 0.25) == 50
    slow = FakeTimer(FakeDevice(lambda i: [("k", 1_000)]), budget_s=0.0, repeats=50, min_repeats=12)
    assert len(slow.measure(slow.fake.fn)["device_us"]) == 12
    # a kernel that shares the flush's name would break the split: an error, never a wrong number
    bad = FakeTimer(FakeDevice(lambda i: [(FLUSH, 1_000), ("k", 1_000)]))
    with pytest.raises(ValueError):
        bad.measure(bad.fake.fn)


def test_flush_runs_before_flush_first_and_the_persisting_reset_checks_the_driver():
    """run_ops --flush_reset_persisting: before every flush, a synchronize and the driver's reset of the L2's
    persisting lines; a failing reset is an error, never a silent warm L2."""
    events = []

    class Buffer:
        def bitwise_not_(self):
            events.append("flush")

    class FakeTorch:
        class cuda:
            @staticmethod
            def synchronize():
                events.append("synchronize")

    class Driver:
        status = 0

        def cuCtxResetPersistingL2Cache(self):
            events.append("reset")
            return self.status

    driver = Driver()
    timer = types.SimpleNamespace(flush_buffer=Buffer(),
                                  before_flush=benchmark.persisting_l2_reset(FakeTorch, driver))
    benchmark.DeviceTimer.flush(timer)
    assert events == ["synchronize", "reset", "flush"]
    driver.status = 1  # CUDA_ERROR_INVALID_VALUE
    with pytest.raises(RuntimeError, match="CUresult 1"):
        benchmark.DeviceTimer.flush(timer)
    assert events[-1] == "reset"  # nothing flushed after a failed reset
    timer.before_flush = None
    benchmark.DeviceTimer.flush(timer)
    assert events[-1] == "flush"


def _row(op, case, nbytes, ours, **peers):
    impls = {"ours": benchmark.impl_summary([ours], [ours + 10], None, ["k"], nbytes, 4000.0)}
    for name, us in peers.items():
        impls[name] = benchmark.impl_summary([us], [us + 10], None, ["p"], nbytes, 4000.0) if isinstance(us, float) \
            else {"status": us}
    return benchmark.compare_row({"op": op, "case": case, "bytes": nbytes, "impls": impls})


def test_best_peer_ratio_geomean_and_rows_under_the_peak():
    rows = [
        _row("softmax", "a", 134_217_728, 40.0, torch_eager=80.0, torch_compile=36.0, liger="n/a: softmax only"),
        _row("softmax", "b", 1_000_000, 10.0, torch_eager=12.0, torch_compile="absent: torch.compile failed: X"),
        _row("copy", "c", 2 << 30, 600.0, torch_eager=590.0),
        _row("relu", "d", 1 << 20, 5.0, liger="absent: ModuleNotFoundError"),  # no peer ran: no ratio
    ]
    a, b, c, d = rows
    assert (a["best_peer"], a["best_peer_us"], a["ratio"]) == ("torch_compile", 36.0, 0.9)
    assert a["ours_pct_peak"] == pytest.approx(134_217_728 / 40e-6 / 1e9 / 4000 * 100)
    assert a["ours_wall_us"] == 50.0 and a["best_peer_wall_us"] == 46.0
    assert (b["best_peer"], b["ratio"]) == ("torch_eager", 1.2)
    assert "ratio" not in d and "best_peer" not in d and d["ours_us"] == 5.0
    s = benchmark.summarize(rows)
    assert (s["rows"], s["rows_with_ratio"], s["rows_lead"]) == (4, 3, 1)
    assert s["geomean_ratio"] == pytest.approx((0.9 * 1.2 * (590 / 600)) ** (1 / 3))
    assert s["geomean_ratio_per_op"]["softmax"] == pytest.approx((0.9 * 1.2) ** 0.5)
    assert [u["case"] for u in s["under_85_pct_peak_at_64MB"]] == ["a"]  # c is at 89%, b and d under 64 MB
    assert [x["case"] for x in s["behind"]] == ["a", "c"] and s["min_ratio"] == 0.9
    assert s["best_peer_counts"] == {"torch_compile": 1, "torch_eager": 2}
    text = _run_ops_module().format_summary(s)
    assert "rows where we lead (ratio >= 1.00): 1 / 3" in text and "rows under 85% of the copy peak" in text


def test_paired_ratio_tells_a_lead_from_a_tie():
    rng = random.Random(1)
    ours = [10.0 + rng.gauss(0, 0.1) for _ in range(50)]
    slower = [o * 1.02 for o in ours]  # a peer 2% slower in every round
    lead = benchmark.paired_ratio(slower, ours)
    assert lead["median"] == pytest.approx(1.02) and lead["ci95"] == pytest.approx([1.02, 1.02])
    same = [10.0 + rng.gauss(0, 0.1) for _ in range(50)]  # the same kernel: independent noise, the same mean
    tie = benchmark.paired_ratio(same, ours)
    assert tie["ci95"][0] < 1.0 < tie["ci95"][1] and tie["ci95"][0] <= tie["median"] <= tie["ci95"][1]
    assert benchmark.paired_ratio(same, ours) == tie  # seeded: the same interval for the same times
    faster = [o * 0.99 + rng.gauss(0, 0.02) for o in ours]
    assert benchmark.paired_ratio(faster, ours)["ci95"][1] < 1.0
    assert benchmark.paired_ratio(same[:9], ours[:9]) is None and benchmark.paired_ratio(same, ours[:-1]) is None
    assert benchmark.paired_ratio(same, [0.0] + ours[1:]) is None


def test_rows_get_a_paired_interval_only_from_interleaved_calls():
    rng = random.Random(2)
    ours = [10.0 + rng.gauss(0, 0.1) for _ in range(30)]

    def row(case, peer_calls, timed="interleaved"):
        impls = {}
        for name, calls in (("ours", ours), ("torch_compile", peer_calls)):
            impls[name] = dict(benchmark.impl_summary(calls, None, None, ["k"], 1 << 20, 4000.0), timed=timed,
                               device_us_calls=calls)
        return benchmark.compare_row({"op": "copy", "case": case, "bytes": 1 << 20, "impls": impls})

    rows = [row("behind", [o * 0.97 for o in ours]), row("ahead", [o * 1.03 for o in ours]),
            row("tie", [10.0 + rng.gauss(0, 0.1) for _ in range(30)]), row("alone", [o * 0.97 for o in ours], "alone")]
    assert [r.get("ratio_verdict") for r in rows] == ["behind", "lead", "tie", None]
    assert "ratio_ci95" not in rows[3] and rows[3]["ratio"] == pytest.approx(0.97, rel=1e-2)
    s = benchmark.summarize(rows)
    assert s["rows_by_interval"] == {"lead": 1, "tie": 1, "behind": 1}
    assert {b["case"]: "ratio_ci95" in b for b in s["behind"]}["behind"]
    text = _run_ops_module().format_summary(s)
    assert "lead 1, tie (holds 1.00) 1, behind 1" in text and "paired 95% interval 0.970-0.970" in text


def test_issue11_matrix_covers_the_issue():
    run_ops = _run_ops_module()
    matrix = run_ops._issue11_matrix()
    have = {(op, tuple(c.shapes[0]), c.dtype, c.kwargs.get("axis", -1), c.kwargs.get("log", False)) for op, c in matrix}
    for shape in ((4096, 4096), (8192, 8192), (65536, 128), (16384, 256), (8192, 512), (32768, 1024), (128, 131072),
                  (16, 262144), (1, 1048576)):
        for dtype in ("float16", "bfloat16", "float32"):
            assert ("softmax", shape, dtype, -1, False) in have
    for shape in ((8192, 8192), (128, 131072), (16, 262144)):
        assert ("reduce_sum", shape, "float32", -1, False) in have
    assert ("softmax", (4096, 4096), "float16", 0, False) in have
    assert any(op == "log_softmax" for op, *_ in have)
    for op in ("copy", "relu", "vector_add", "reduce_sum"):
        assert any(o == op and len(s) == 1 and s[0] >= 64 << 20 and d == "float32" for o, s, d, *_ in have), op
    assert len(matrix) == len({(op, c.id) for op, c in matrix})  # no duplicates
    # every row's op module agrees: softmax/log_softmax rows are told apart by `log`
    modules = run_ops.discover_ops()
    selection = {sel.name: sel for sel in run_ops.select_ops(modules, "all")}
    run_ops.FLAGS.unparse_flags()
    run_ops.FLAGS(["run_ops"])
    assert all(selection[op].owns(case) for op, case in matrix)


def test_shapes_give_every_selected_op_each_shape_in_three_dtypes():
    run_ops = _run_ops_module()
    modules = run_ops.discover_ops()
    selection = {sel.name: sel for sel in run_ops.select_ops(modules, "all")}
    run_ops.FLAGS.unparse_flags()
    run_ops.FLAGS(["run_ops"])
    matrix = run_ops._shapes_matrix(list(selection), ["4096x3072", "1024"])
    got = {(op, c.shapes, c.dtype, tuple(sorted(c.kwargs.items()))) for op, c in matrix}
    assert len(matrix) == len(got) == len(selection) * 2 * 3
    assert ("reduce_sum", ((4096, 3072),), "bfloat16", (("axis", -1),)) in got
    assert ("reduce_sum", ((1024,),), "float32", (("axis", None),)) in got
    assert ("log_softmax", ((4096, 3072),), "float16", (("axis", -1), ("log", True))) in got
    assert ("vector_add", ((1024,), (1024,)), "float32", ()) in got
    assert all(selection[op].owns(case) for op, case in matrix)


class FakeTorch:
    def softmax(self, x, dim):
        return ("softmax", dim)

    def log_softmax(self, x, dim):
        return ("log_softmax", dim)

    def relu(self, x):
        return ("relu",)

    def compile(self, fn, **kwargs):
        raise AssertionError("not asked for")


def test_peers_run_only_the_same_logical_op():
    run_ops = _run_ops_module()
    peers = run_ops.Peers(FakeTorch(), ("torch_eager", "liger", "quack"))
    peers.liger_absent = peers.quack_absent = None
    peers.liger, peers.quack = (lambda x: "liger"), (lambda x: "quack")
    row = peers.for_row("softmax", {"axis": -1}, 2, 4096)
    assert row["liger"](0) == "liger" and row["quack"](0) == "quack" and row["torch_eager"](0) == ("softmax", -1)
    assert peers.for_row("softmax", {"axis": -1}, 2, 131072)["liger"] == "n/a: refuses rows longer than 65,536"
    axis0 = peers.for_row("softmax", {"axis": 0}, 2, 4096)
    assert axis0["liger"].startswith("n/a") and axis0["quack"].startswith("n/a") and axis0["torch_eager"](0) == ("softmax", 0)
    log = peers.for_row("log_softmax", {"axis": -1, "log": True}, 2, 4096)
    assert log["liger"] == log["quack"] == "n/a: softmax only" and log["torch_eager"](0) == ("log_softmax", -1)
    absent = run_ops.Peers(FakeTorch(), ("liger", "quack"))
    if absent.liger is None:  # not installed here: absent, with the reason
        assert absent.for_row("softmax", {"axis": -1}, 2, 4096)["liger"].startswith("absent: ")
    skipped = run_ops.Peers(FakeTorch(), ("torch_compile",))
    compiled = skipped.for_row("relu", {}, 1, 1 << 20, skip_compile="absent: skipped")["torch_compile"]
    assert compiled == (skipped.compile_absent or "absent: skipped")  # without torch._dynamo: that reason


def _launcher(device, name, ns, log):
    """An implementation on the fake device: one kernel `name` of ns per call; appends `name` to log."""
    def call():
        log.append(name)
        device.timeline.append((name, device.t, ns))
        device.t += ns + 2_000
    return call


def test_measure_many_interleaves_the_implementations_in_shuffled_rounds():
    device, log = FakeDevice(None), []
    timer = FakeTimer(device, repeats=6)
    fns = {"ours": _launcher(device, "k_ours", 4_000, log), "peer": _launcher(device, "k_peer", 6_000, log),
           "other": _launcher(device, "k_other", 9_000, log)}
    m = timer.measure_many(fns)
    assert m["ours"]["device_us"] == [4.0] * 6 and m["peer"]["device_us"] == [6.0] * 6
    assert m["other"]["device_us"] == [9.0] * 6 and m["peer"]["kernels"] == ["k_peer"]
    assert len(m["ours"]["wall_us"]) == 6 and m["other"]["kernels_per_call"] == 1
    profiled = log[3 * (3 + 3):][:18]  # after each one's warm-up and estimate: the profiled rounds
    names = ["k_ours", "k_peer", "k_other"]
    assert profiled == [names[i] for i in benchmark.interleaved_order(3, 6)]
    for r in range(6):  # each once per round
        assert sorted(profiled[3 * r:3 * r + 3]) == sorted(names)
    # the slowest one's repeats are everyone's
    slow = FakeTimer(FakeDevice(None), repeats=50, min_repeats=7, budget_s=0.0)
    m = slow.measure_many({"a": _launcher(slow.fake, "a", 1_000, []), "b": _launcher(slow.fake, "b", 1_000, [])})
    assert len(m["a"]["device_us"]) == len(m["b"]["device_us"]) == 7


def test_interleaved_order_lets_each_implementation_follow_every_other_alike():
    rounds, k = 600, 4
    order = benchmark.interleaved_order(k, rounds)
    assert order == benchmark.interleaved_order(k, rounds)  # seeded: the same order in every run
    assert all(sorted(order[r * k:(r + 1) * k]) == list(range(k)) for r in range(rounds))
    follows = collections.Counter(zip(order, order[1:]))  # (previous, next) over the whole loop
    pairs = [follows[(a, b)] for a in range(k) for b in range(k) if a != b]
    # a rotation would give each one a single predecessor (3 of the 12 pairs ~600 times, the rest ~0)
    assert min(pairs) > 0.7 * max(pairs), follows


def test_a_failing_implementation_is_a_row_entry_not_the_end_of_the_run():
    run_ops = _run_ops_module()

    def broken():
        raise RuntimeError("CuTe DSL: shared memory exceeds 227 KB\nmore text")

    first = run_ops._first_call(FakeTimer(FakeDevice(lambda i: [("k", 1_000)])), None, broken, [], None)
    assert first == {"status": "error: RuntimeError: CuTe DSL: shared memory exceeds 227 KB"}
    device = FakeDevice(None)
    timer = FakeTimer(device)
    good, bad = _launcher(device, "k", 4_000, []), _launcher(device, FLUSH, 1_000, [])  # bad fails while timing
    row = run_ops._measure_row(timer, {"ours": good, "bad": bad}, [], 8_000, 1.0)
    assert row["bad"][0]["status"].startswith("error: ValueError: found") and row["bad"][1] is None
    result, m = row["ours"]  # timed alone, once timing them together failed
    assert result["status"] == "ok" and result["timed"] == "alone" and result["device_us"]["p50"] == 4.0
    assert result["pct_peak"] == pytest.approx(200.0) and len(m["device_us"]) == 40
    both = run_ops._measure_row(timer, {"ours": good, "peer": _launcher(device, "p", 5_000, [])}, [], 8_000, 1.0)
    assert both["ours"][0]["timed"] == both["peer"][0]["timed"] == "interleaved"
    assert both["peer"][0]["device_us"]["p50"] == 5.0


def test_device_bench_self_test_writes_the_report(tmp_path):
    """The device benchmark's whole code path on the CPU (torch CPU tensors, CPU profiler): rows, impls,
    summary, the JSON's machine/versions/command, and its chart."""
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("torch is not importable here")
    out = tmp_path / "self.json"
    code, stdout, err = run("run_ops.py", "--mode", "bench", "--bench_self_test", "--op", "softmax,reduce_sum,vector_add",
                            "--cases", "-float32", "--max_bench_elements", "4096", "--peers", "torch_eager,liger,quack",
                            "--repeats", "12", "--json", str(out))
    assert code == 0, err
    report = json.loads(out.read_text())
    assert report["schema"] == "operator_runtime.bench.device/2" and "run_ops.py" in report["command"]
    assert {"torch", "triton", "liger_kernel", "quack", "operator_runtime"} <= set(report["versions"])
    assert report["method"]["quantiles"] == [20, 50, 80] and report["peak_copy"]["GBps"] > 0
    rows = report["results"]
    assert rows and {r["op"] for r in rows} == {"softmax", "reduce_sum", "vector_add"}
    for r in rows:
        ours = r["impls"]["ours"]
        assert ours["status"] == "ok" and set(ours["device_us"]) == {"p20", "p50", "p80"} and ours["calls"] >= 10
        assert r["impls"]["torch_eager"]["status"] == "ok" and not r["impls"]["torch_eager"].get("mismatch")
        assert r["ratio"] == pytest.approx(r["best_peer_us"] / r["ours_us"]) and "ours_wall_us" in r
        assert r["impls"]["liger"]["status"].startswith(("absent", "n/a", "ok", "error"))  # Triton needs a GPU
    assert report["summary"]["rows"] == len(rows)
    assert "rows where we lead (ratio >= 1.00)" in stdout and "geometric mean" in stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    code, stdout, err = run("plot_bench.py", str(out), str(tmp_path / "self.png"))
    assert code == 0 and (tmp_path / "self.png").stat().st_size > 10000, err


def test_malformed_shapes_are_a_usage_error():
    code, _, err = run("run_ops.py", "--mode", "bench", "--op", "reduce_sum", "--shapes", "4096by3072")
    assert code != 0 and "--shapes takes positive sizes joined by x" in err and "Traceback" not in err


def test_device_bench_self_test_times_the_shapes_asked_for(tmp_path):
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("torch is not importable here")
    out = tmp_path / "shapes.json"
    code, _, err = run("run_ops.py", "--mode", "bench", "--bench_self_test", "--op", "reduce_sum", "--shapes", "64x48,96",
                       "--peers", "torch_eager", "--repeats", "10", "--json", str(out))
    assert code == 0, err
    report = json.loads(out.read_text())
    assert report["method"]["matrix"] == "shapes 64x48,96"
    assert sorted(r["case"] for r in report["results"]) == sorted(
        "%s-%s-axis=%s" % (s, d, a) for s, a in (("64x48", -1), ("96", None)) for d in ("float16", "bfloat16", "float32"))


def test_plot_bench_writes_readmes_table_without_matplotlib(tmp_path):
    rows = [_row("softmax", "4096x4096-float16-axis=-1", 67_108_864, 18.8, torch_eager=60.0, liger=17.1),
            _row("relu", "x", 1 << 20, 5.0, liger="absent: ModuleNotFoundError")]
    rows[0].update(shapes=[[4096, 4096]], dtype="float16", attrs={"axis": -1})
    rows[1].update(shapes=[[1 << 20]], dtype="float32", attrs={})
    report = {"peak_copy_GBps": 4000.0, "results": rows, "summary": benchmark.summarize(rows)}
    (tmp_path / "peers.json").write_text(json.dumps(report))
    code, out, err = run("plot_bench.py", str(tmp_path / "peers.json"), "--markdown", "-")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[2] == "| softmax | 4096x4096 | f16 | 18.8 / 28.8 | Liger-Kernel 17.1 / 27.1 | 0.91x | 89% / 98% |"
    assert lines[3].startswith("| relu | 1048576 (1M) | f32 | 5.0 / 15.0 | none ran - / - | - |")
    assert "We lead 0 of 1 rows" in out


def test_plot_bench_table_shows_the_paired_interval(tmp_path):
    calls = [10.0 + 0.01 * (k % 7) for k in range(20)]
    impls = {name: dict(benchmark.impl_summary(c, None, None, ["k"], 1 << 20, 4000.0), timed="interleaved",
                        device_us_calls=c) for name, c in (("ours", calls), ("torch_eager", [x * 0.98 for x in calls]))}
    row = benchmark.compare_row({"op": "copy", "case": "x", "bytes": 1 << 20, "impls": impls, "shapes": [[1 << 18]],
                                 "dtype": "float32", "attrs": {}})
    report = {"peak_copy_GBps": 4000.0, "results": [row], "summary": benchmark.summarize([row])}
    (tmp_path / "peers.json").write_text(json.dumps(report))
    code, out, err = run("plot_bench.py", str(tmp_path / "peers.json"), "--markdown", "-")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("| paired ratio, 95% interval |") and lines[1].endswith("|---|---|")
    assert lines[2].endswith("| 0.98x | 3% / 3% | 0.980 (0.980-0.980) **behind** |")
    assert "ahead in 0 rows, behind in 1, and 0 ties" in out


def test_plot_bench_draws_a_peer_report(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not importable here")
    rows = [_row("softmax", "4096x4096-float16-axis=-1", 67_108_864, 18.8, torch_eager=60.0, liger=17.1, quack=16.0),
            _row("reduce_sum", "8192x8192-float32-axis=-1", 268_468_224, 70.0, torch_compile=67.2),
            _row("copy", "268435456-float32", 2 << 30, 500.0, torch_eager=505.0, torch_compile="absent: X")]
    for r, shape, dtype, attrs in zip(rows, ([[4096, 4096]], [[8192, 8192]], [[268435456]]),
                                      ("float16", "float32", "float32"), ({"axis": -1}, {"axis": -1}, {})):
        r.update(shapes=shape, dtype=dtype, attrs=attrs)
    report = {"machine": {"gpu": "Test GPU"}, "versions": {"torch": "2.11"}, "peak_copy_GBps": 4200.0,
              "l2_flush_bytes": 256 << 20, "results": rows, "summary": benchmark.summarize(rows)}
    (tmp_path / "peers.json").write_text(json.dumps(report))
    code, out, err = run("plot_bench.py", str(tmp_path / "peers.json"), str(tmp_path / "peers.png"))
    assert code == 0, err
    assert "3 panels" in out and (tmp_path / "peers.png").stat().st_size > 10000


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))


def _paired_row(op, case, ours_calls, peer_calls):
    impls = {name: dict(benchmark.impl_summary(c, None, None, ["k"], 1 << 20, 4000.0), timed="interleaved",
                        device_us_calls=c) for name, c in (("ours", ours_calls), ("torch_compile", peer_calls))}
    return benchmark.compare_row({"op": op, "case": case, "bytes": 1 << 20, "impls": impls, "shapes": [[1 << 18]],
                                  "dtype": "float16", "attrs": {}})


def test_bench_replicas_calls_a_row_behind_only_when_every_run_has_it_behind(tmp_path):
    calls = [10.0 + 0.01 * (k % 7) for k in range(20)]
    scaled = lambda f: [x * f for x in calls]
    runs = [  # per run: a row led in both, one behind in both, one behind then tied (peer calls alternate sides)
        [_paired_row("copy", "lead", calls, scaled(1.01)), _paired_row("relu", "behind", calls, scaled(0.99)),
         _paired_row("vector_add", "mixed", calls, scaled(0.99))],
        [_paired_row("copy", "lead", calls, scaled(1.02)), _paired_row("relu", "behind", calls, scaled(0.98)),
         _paired_row("vector_add", "mixed", calls, [x * (0.99 if k % 2 else 1.01) for k, x in enumerate(calls)])],
    ]
    paths = []
    for i, rows in enumerate(runs):  # the second xz-compressed, as bench/results keeps the sessions' reports
        paths.append(str(tmp_path / ("run%d.json" % i)) + (".xz" if i else ""))
        text = json.dumps({"results": rows, "summary": benchmark.summarize(rows)}).encode()
        pathlib.Path(paths[-1]).write_bytes(lzma.compress(text) if i else text)
    code, out, err = run("bench_replicas.py", *paths, "--json", str(tmp_path / "merged.json"), "--markdown", "-")
    assert code == 0, err
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert [row["across"] for row in merged["rows"]] == ["lead", "behind", "mixed"]
    assert merged["rows"][2]["verdicts"] == ["behind", "tie"]
    s = merged["summary"]
    assert (s["runs"], s["rows"], s["lead"], s["behind"], s["mixed"]) == (2, 3, 1, 1, 1)
    assert s["behind_rows"] == [["relu", "behind"]]
    lines = out.splitlines()
    assert lines[0] == "| op | shape | dtype | run 1 | run 2 | across runs |"
    assert lines[3] == "| relu | behind | float16 | 0.990 b | 0.980 b | behind |"
    assert "1 lead in every run, 1 are behind by their interval in every run, 1 are mixed" in out


def test_bench_modes_splits_a_rows_calls_in_two_and_counts_each_sides_fast_calls(tmp_path):
    # ours: 3 of 10 calls fast (100 us), 7 slow (102); the peer: 7 fast, 3 slow; both sides 100 / 102 exactly
    ours = [100.0] * 3 + [102.0] * 7
    peer = [100.0] * 7 + [102.0] * 3
    impls = {name: dict(benchmark.impl_summary(c, None, None, ["k"], 1 << 20, 4000.0), timed="interleaved",
                        device_us_calls=c) for name, c in (("ours", ours), ("torch_compile", peer))}
    row = benchmark.compare_row({"op": "copy", "case": "x", "bytes": 1 << 20, "impls": impls, "shapes": [[1 << 18]],
                                 "dtype": "float16", "attrs": {}})
    (tmp_path / "run.json").write_text(json.dumps({"results": [row]}))
    code, out, err = run("bench_modes.py", str(tmp_path / "run.json"), "--behind", "--json", str(tmp_path / "m.json"))
    assert code == 0, err
    (split,) = json.loads((tmp_path / "m.json").read_text())
    assert (split["fast_us"], split["slow_us"]) == (100.0, 102.0) and split["separation_pct"] == pytest.approx(2.0)
    assert split["ours"] == {"fast_share": 0.3, "fast_median": 100.0, "slow_median": 102.0}
    assert split["peer_side"]["fast_share"] == 0.7
    assert split["same_mode_in_round"] == pytest.approx(0.6)  # calls 0-2 (both fast) and 7-9 (both slow) agree
    assert "fast share ours 0.30 peer 0.70" in out
