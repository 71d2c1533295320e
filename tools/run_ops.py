"""run_ops: every operator's correctness cases and benchmark shapes on one backend.

  bazel run //tools:run_ops -- --op all --mode all                 # CPU reference, the main job
  bazel run --config=nvidia //tools:run_ops -- --op softmax --backend nvidia --mode bench --json out.json
  bazel run //tools:run_ops -- --op log_softmax,softmax --cases axis=0    # public op names; a case-name filter
  python tools/run_ops.py --backend nvidia --mode bench            # from a checkout with the wheel installed

--op takes public op names (copy, vector_add, relu, reduce_sum, softmax, log_softmax; comma-separated) or
'all'; softmax and log_softmax share ops/softmax/cases.py (the `log` attribute tells them apart). A
backend that is not available here ends the run with one line and exit status 2. Under `bazel run`,
relative paths (--json) are relative to the directory you ran it from. Long test runs print progress.

Operators are found as ops/**/cases.py (NAME, op, reference, CASES, BENCH_CASES, bytes_moved,
torch_reference). On a device, bench times are medians of CUDA-event timings with an L2 flush before
each run; PyTorch runs the same call on the same tensors in the same process, and the device's copy
bandwidth is measured too, so every number comes with a ratio to torch and a % of measured peak.

On the CPU backend the benchmark is CPU_BENCH below: each case against numpy doing the same work (and
torch's CPU kernels when torch is installed) in the same process, calls interleaved, outputs
preallocated where both sides allow it; it reports medians, numpy-time / ours-time per case and the
geometric means. OPRT_NUM_THREADS sets our thread count (and torch's):

  python tools/run_ops.py --mode bench --json bench/results/cpu.json    # with PYTHONPATH=python and OPRT_LIBRARY
"""

import importlib
import json
import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np
from absl import app, flags

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without Bazel
    sys.path.insert(0, str(REPO))

import operator_runtime as oprt  # noqa: E402
from operator_runtime import benchmark, testing  # noqa: E402

FLAGS = flags.FLAGS
flags.DEFINE_string("op", "all", "public op names, comma-separated (copy, vector_add, relu, reduce_sum, softmax, "
                    "log_softmax), or 'all'")
flags.DEFINE_string("cases", None, "only cases whose name contains this text, e.g. 'axis=0', '4096x4096', 'float16' "
                    "(correctness, device and CPU benchmarks)")
flags.DEFINE_enum("backend", "cpu", ["cpu", "nvidia", "metax"], "backend to run on")
flags.DEFINE_enum("mode", "all", ["test", "bench", "all", "explain"],
                  "test: correctness cases; bench: timings; all: both; explain: which kernels serve each benchmark "
                  "shape (name, grid, block, shared memory; oprt.explain)")
flags.DEFINE_string("json", None, "write the benchmark results (with machine facts) to this JSON file")
flags.DEFINE_integer("repeats", None, "timed runs per benchmark, median reported (default: 30 on devices, 11 on cpu)")
flags.DEFINE_integer("max_bench_elements", None, "shrink device benchmark shapes to at most this many elements")
flags.DEFINE_integer("quiet_wait_s", 0, "CPU benchmark on a shared machine: before each case wait up to this many "
                     "seconds for the CPUs to be >= 85% idle, and measure again (3 tries at most) while other "
                     "processes take 10% of the CPUs or more; the quietest try is kept")
flags.DEFINE_string("cpu_cases", None, "CPU benchmark: only cases whose name contains this text ('table': issue 13's table)")
flags.DEFINE_boolean("torch", True, "also time torch's implementation (when importable: CUDA on devices, CPU on cpu)")


def discover_ops() -> dict:
    """NAME -> cases module, for every ops/**/cases.py."""
    return testing.discover_cases(REPO / "ops")


class Selected:
    """One public op: its cases module and which of the module's cases are its own."""

    def __init__(self, name, module):
        self.name, self.module = name, module

    def owns(self, case) -> bool:
        """softmax and log_softmax share one cases module; `log` tells their cases apart."""
        if self.module.NAME == "softmax" and dict(case.attrs).get("log", False) != (self.name == "log_softmax"):
            return False
        return FLAGS.cases is None or FLAGS.cases in case.id


def select_ops(modules, spec):
    """[Selected] for --op: public op names (comma-separated) or 'all'; UsageError for an unknown name."""
    public = {}
    for module_name, module in modules.items():
        for name in (("softmax", "log_softmax") if module_name == "softmax" else (module_name,)):
            public[name] = module
    names = list(public) if spec == "all" else [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in public]
    if unknown or not names:
        raise app.UsageError("unknown --op %s; known: %s, all" % (",".join(unknown) or repr(spec), ", ".join(public)))
    return [Selected(n, public[n]) for n in names]


def user_path(path) -> pathlib.Path:
    """A path the user typed: under `bazel run` relative paths mean the directory they ran it from (the
    process itself runs in the runfiles tree)."""
    path = pathlib.Path(path).expanduser()
    if not path.is_absolute() and os.environ.get("BUILD_WORKING_DIRECTORY"):
        path = pathlib.Path(os.environ["BUILD_WORKING_DIRECTORY"]) / path
    return path


def progress(message):
    print(message, file=sys.stderr, flush=True)


def run_tests(selection, backend):
    print("\n== correctness on backend %s" % backend, flush=True)
    print("%-12s %8s %8s %8s" % ("op", "cases", "passed", "failed"), flush=True)
    total_failed = 0
    for sel in selection:
        work = [(case, dtype) for case in sel.module.CASES if sel.owns(case)
                if not (case.device_only and not testing.is_device(backend)) for dtype in case.dtypes]
        passed = failed = 0
        started = last_report = time.time()
        for k, (case, dtype) in enumerate(work):
            try:
                testing.run_case(sel.module, case, dtype, backend)
                passed += 1
            except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the run
                failed += 1
                print("FAIL %s %s %s: %s" % (sel.name, case.id, dtype, str(error).splitlines()[0][:300]), flush=True)
            if time.time() - last_report >= 10:  # progress on long runs
                last_report = time.time()
                progress("  ... %s: %d/%d cases, %d failed, %.0f s" % (sel.name, k + 1, len(work), failed,
                                                                    last_report - started))
        total_failed += failed
        print("%-12s %8d %8d %8d" % (sel.name, passed + failed, passed, failed), flush=True)
    return total_failed


def _shrunk(case, max_elements):
    """The case with its leading dims halved until it has at most max_elements."""
    shapes = [list(s) for s in case.shapes]
    while max(int(np.prod(s)) for s in shapes) > max_elements:
        for s in shapes:
            dim = 0 if s[0] > 1 else len(s) - 1
            s[dim] = max(1, s[dim] // 2)
    return testing.BenchCase(shapes=tuple(tuple(s) for s in shapes), dtype=case.dtype, attrs=case.attrs)


def _torch_inputs(torch, case):
    dtype = getattr(torch, case.dtype)
    return [torch.randn(s, dtype=dtype, device="cuda") for s in case.shapes]


def run_explain(selection, backend):
    """For each benchmark shape: the kernels one call launches (oprt.explain), to find them in kernel.cuh."""
    for sel in selection:
        for case in getattr(sel.module, "BENCH_CASES", []):
            if sel.owns(case):
                explanation = oprt.explain(sel.module.op, *testing.bench_inputs(case, backend), **case.kwargs)
                print("== %s %s\n%s" % (sel.name, case.id, explanation), flush=True)


def run_bench(selection, backend):
    """The device benchmark: BENCH_CASES of every op, ours and torch on the same tensors."""
    timer = benchmark.Timer(backend, repeats=FLAGS.repeats or 30)
    torch = timer.torch if FLAGS.torch else None
    peak = timer.copy_bandwidth_gbps()
    max_elements = FLAGS.max_bench_elements
    work = [(sel, case) for sel in selection for case in getattr(sel.module, "BENCH_CASES", []) if sel.owns(case)]
    print("\n== benchmark on backend %s (%s): %d cases" % (backend, oprt.device_name(), len(work)), flush=True)
    if peak:
        print("measured device-to-device copy bandwidth: %.0f GB/s" % peak)
    header = "%-11s %-40s %11s %9s %7s %11s %8s" % ("op", "case", "ours (us)", "GB/s", "%peak", "torch (us)", "speedup")
    print(header + "\n" + "-" * len(header), flush=True)
    results = []
    seen = set()
    for sel, case in work:
        name, module = sel.name, sel.module
        original = case
        if max_elements:
            case = _shrunk(case, max_elements)
            if case.id == original.id:
                case = original
            elif (name, case.id) in seen:  # shrunk onto a shape already measured: not a row of its own
                print("%-11s %-40s skipped: --max_bench_elements shrinks it to %s, already run" % (
                    name, original.id, case.id), flush=True)
                continue
        seen.add((name, case.id))
        kwargs = case.kwargs
        inputs = _torch_inputs(torch, case) if torch is not None else testing.bench_inputs(case, backend)
        nbytes = module.bytes_moved(case)
        try:
            ours_ms = timer.time_ms(lambda: module.op(*inputs, **kwargs))
        except oprt.OprtError as error:
            print("%-11s %-40s error: %s" % (name, case.id, error), flush=True)
            continue
        row = {"op": name, "case": case.id, "shapes": case.shapes, "dtype": case.dtype, "attrs": dict(case.attrs),
               "bytes": nbytes, "ours_us": ours_ms * 1e3, "ours_GBps": nbytes / (ours_ms * 1e-3) / 1e9}
        if case is not original:
            row["shrunk_from"] = original.id
        if peak:
            row["ours_pct_peak"] = 100.0 * row["ours_GBps"] / peak
        if torch is not None and hasattr(module, "torch_reference"):
            torch_ms = timer.time_ms(lambda: module.torch_reference(*inputs, **kwargs))
            row.update(torch_us=torch_ms * 1e3, torch_GBps=nbytes / (torch_ms * 1e-3) / 1e9,
                       speedup_vs_torch=torch_ms / ours_ms)
        results.append(row)
        print("%-11s %-40s %11.1f %9.1f %7s %11s %8s" % (
            name, case.id + (" (from %s)" % original.id.split("-")[0] if case is not original else ""),
            row["ours_us"], row["ours_GBps"],
            "%.1f" % row["ours_pct_peak"] if "ours_pct_peak" in row else "-",
            "%.1f" % row["torch_us"] if "torch_us" in row else "-",
            "%.2fx" % row["speedup_vs_torch"] if "speedup_vs_torch" in row else "-"), flush=True)
        del inputs
    overhead = _call_overhead(torch) if torch is not None else None
    return {"machine": benchmark.machine_info(backend), "python_call_overhead": overhead, "peak_copy_GBps": peak, "repeats": timer.repeats,
            "l2_flush_bytes": benchmark.L2_FLUSH_BYTES, "timing": "cuda events" if timer.torch else "wall clock",
            "results": results}


# ----------------------------------------------------------------------------------------------------
# CPU benchmark: ours against numpy (and torch's CPU kernels) on the same arrays

def _elementwise_case(name, n):
    def build(np_dtype, rng):
        x = rng.standard_normal(n).astype(np_dtype)
        b = rng.standard_normal(n).astype(np_dtype)
        out = np.empty_like(x)
        ours = {"copy": lambda: oprt.copy(x, out=out), "vector_add": lambda: oprt.vector_add(x, b, out=out),
                "relu": lambda: oprt.relu(x, out=out)}[name]
        numpy = {"copy": lambda: np.copyto(out, x), "vector_add": lambda: np.add(x, b, out=out),
                 "relu": lambda: np.maximum(x, 0, out=out)}[name]

        def torch_fn(torch):
            tx, tb, tout = _torch_view(torch, x), _torch_view(torch, b), _torch_view(torch, out)
            return {"copy": lambda: tout.copy_(tx), "vector_add": lambda: torch.add(tx, tb, out=tout),
                    "relu": lambda: torch.clamp_min(tx, 0, out=tout)}[name]
        return ours, numpy, torch_fn
    build.shape = (n,)
    return build


def _sum_case(shape, axis):
    def build(np_dtype, rng):
        x = rng.standard_normal(shape).astype(np_dtype)
        out = np.empty(() if axis is None else shape[:axis] + shape[axis + 1:], np_dtype)

        def torch_fn(torch):
            tx, tout = _torch_view(torch, x), _torch_view(torch, out)
            dims = tuple(range(len(shape))) if axis is None else axis
            return lambda: torch.sum(tx, dim=dims, out=tout)
        return (lambda: oprt.reduce_sum(x, axis=axis, out=out)), (lambda: np.sum(x, axis=axis, out=out)), torch_fn
    build.shape = shape
    return build


def _numpy_softmax(x, out, axis, log, scratch):
    m = x.max(axis=axis, keepdims=True)
    np.subtract(x, m, out=out)
    if log:
        np.exp(out, out=scratch)
        np.subtract(out, np.log(scratch.sum(axis=axis, keepdims=True)), out=out)
    else:
        np.exp(out, out=out)
        np.divide(out, out.sum(axis=axis, keepdims=True), out=out)


def _softmax_case(shape, axis, transposed=False, log=False):
    def build(np_dtype, rng):
        x = rng.standard_normal(shape).astype(np_dtype) * np.asarray(3, np_dtype)
        x = x.T if transposed else x
        out, scratch = np.empty_like(x), np.empty_like(x)  # empty_like keeps x's layout
        op = oprt.log_softmax if log else oprt.softmax

        def torch_fn(torch):
            tx = _torch_view(torch, x)
            return lambda: (torch.log_softmax if log else torch.softmax)(tx, dim=axis)  # no out= in torch
        return (lambda: op(x, axis=axis, out=out)), (lambda: _numpy_softmax(x, out, axis, log, scratch)), torch_fn
    build.shape = tuple(reversed(shape)) if transposed else shape  # the shape of x as the op sees it
    return build


M = 1 << 20
# (op NAME, case, in issue 13's table, builder). The table's cases first, then larger and other layouts.
CPU_BENCH = [
    ("copy", "copy 4M", True, _elementwise_case("copy", 4 * M)),
    ("vector_add", "vector_add 4M", True, _elementwise_case("vector_add", 4 * M)),
    ("relu", "relu 4M", True, _elementwise_case("relu", 4 * M)),
    ("reduce_sum", "reduce_sum 4M", True, _sum_case((4 * M,), None)),
    ("softmax", "softmax 1024x4096", True, _softmax_case((1024, 4096), -1)),
    ("reduce_sum", "row sum 1024x4096", True, _sum_case((1024, 4096), 1)),
    ("softmax", "softmax axis 0 of transposed 4096x1024", True, _softmax_case((1024, 4096), 0, transposed=True)),
    ("copy", "copy 16M", False, _elementwise_case("copy", 16 * M)),
    ("vector_add", "vector_add 16M", False, _elementwise_case("vector_add", 16 * M)),
    ("relu", "relu 16M", False, _elementwise_case("relu", 16 * M)),
    ("reduce_sum", "reduce_sum 16M", False, _sum_case((16 * M,), None)),
    ("reduce_sum", "column sum 4096x1024 axis 0", False, _sum_case((4096, 1024), 0)),
    ("softmax", "softmax 4096x4096", False, _softmax_case((4096, 4096), -1)),
    ("log_softmax", "log_softmax 1024x4096", False, _softmax_case((1024, 4096), -1, log=True)),
    ("softmax", "softmax axis 0 of 4096x1024", False, _softmax_case((4096, 1024), 0)),
]
CPU_BENCH_DTYPES = ("float32", "float16", "bfloat16")


def _torch_view(torch, a):
    """A torch CPU tensor sharing a's memory (bfloat16 through its bits)."""
    if testing.dtype_name(a.dtype) == "bfloat16":
        return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _torch_cpu():
    try:
        import torch
    except ImportError:
        return None
    if os.environ.get("OPRT_NUM_THREADS"):
        torch.set_num_threads(int(os.environ["OPRT_NUM_THREADS"]))
    return torch


def _machine_ticks():
    """(busy, total) CPU time of the whole machine in clock ticks (/proc/stat); None off Linux."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except OSError:
        return None
    return sum(fields) - fields[3] - fields[4], sum(fields)  # idle and iowait are not busy


def _median_ms_interleaved(fns, repeats, warmup=2, min_seconds=0.5):
    """Median milliseconds of each fn, the calls interleaved (the order rotating each round) so that
    load from other work on the machine falls on every fn alike; at least `repeats` rounds and
    `min_seconds` of them, except that cases where a call takes over 0.2 s (numpy on half types) get
    the minimum of 7. Also returns the rounds run and the share of the machine's CPU time that other
    processes used meanwhile (None where /proc/stat is missing)."""
    last = [0.0] * len(fns)
    for i, fn in enumerate(fns):
        for _ in range(warmup):
            t0 = time.perf_counter()
            fn()
            last[i] = time.perf_counter() - t0
    if max(last) > 0.2:
        repeats = 7
    else:
        repeats = min(max(repeats, math.ceil(min_seconds / max(sum(last), 1e-6))), 500)
    times = [[] for _ in fns]
    machine0, self0 = _machine_ticks(), os.times()
    for r in range(repeats):
        for k in range(len(fns)):
            i = (k + r) % len(fns)
            t0 = time.perf_counter()
            fns[i]()
            times[i].append((time.perf_counter() - t0) * 1e3)
    machine1, self1 = _machine_ticks(), os.times()
    others = None
    if machine0 is not None and machine1[1] > machine0[1]:
        ours = (self1.user + self1.system - self0.user - self0.system) * os.sysconf("SC_CLK_TCK")
        others = max(machine1[0] - machine0[0] - ours, 0.0) / (machine1[1] - machine0[1])
    return [statistics.median(t) for t in times], repeats, others


def _cpu_idle_percent(seconds=1.0):
    """Share of the machine's CPU time spent idle over the next `seconds`; None off Linux."""
    ticks0 = _machine_ticks()
    time.sleep(seconds)
    ticks1 = _machine_ticks()
    if ticks0 is None or ticks1[1] == ticks0[1]:
        return None
    return 100.0 * (1.0 - (ticks1[0] - ticks0[0]) / (ticks1[1] - ticks0[1]))


def _wait_until_quiet(max_seconds):
    """Waits (up to max_seconds) for the CPUs to be >= 85% idle."""
    deadline = time.time() + max_seconds
    while time.time() < deadline:
        idle = _cpu_idle_percent()
        if idle is None or idle >= 85.0:
            return


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def run_cpu_bench(selection):
    repeats = max(FLAGS.repeats or 11, 7)
    torch = _torch_cpu() if FLAGS.torch else None
    threads = os.environ.get("OPRT_NUM_THREADS") or str(len(os.sched_getaffinity(0)))
    print("\n== CPU benchmark: ours vs numpy%s, medians of >= %d interleaved calls (>= 0.5 s a case), "
          "OPRT_NUM_THREADS=%s, load %s"
          % (" and torch %s (%d threads)" % (torch.__version__, torch.get_num_threads()) if torch else "", repeats,
             threads, "/".join("%.2f" % v for v in os.getloadavg())))
    header = "%-40s %-13s %-9s %10s %10s %12s %10s %12s" % ("case", "shape", "dtype", "numpy ms", "ours ms",
                                                             "numpy/ours", "torch ms", "torch/ours")
    print(header + "\n" + "-" * len(header), flush=True)
    names = {sel.name for sel in selection}
    load_before = os.getloadavg()
    rng = np.random.default_rng(0)
    results = []
    for op_name, case, in_table, build in CPU_BENCH:
        wanted = FLAGS.cpu_cases is None or (in_table if FLAGS.cpu_cases == "table" else FLAGS.cpu_cases in case)
        if op_name not in names or not wanted or (FLAGS.cases is not None and FLAGS.cases not in case):
            continue
        shape = "x".join(str(n) for n in build.shape)
        for dtype in CPU_BENCH_DTYPES:
            try:
                np_dtype = testing.np_dtype(dtype)
            except ImportError as error:  # bfloat16 without ml_dtypes
                print("%-40s %-13s %-9s skipped: %s" % (case, shape, dtype, error), flush=True)
                continue
            ours, numpy, torch_fn = build(np_dtype, rng)
            fns = [numpy, ours] + ([torch_fn(torch)] if torch is not None else [])
            tries = []  # with --quiet_wait_s: up to 3, until other processes used under 10% of the CPUs
            while len(tries) < (3 if FLAGS.quiet_wait_s else 1):
                if FLAGS.quiet_wait_s:
                    _wait_until_quiet(FLAGS.quiet_wait_s)
                tries.append(_median_ms_interleaved(fns, repeats))
                if tries[-1][2] is None or tries[-1][2] < 0.1:
                    break
            medians, calls, others = min(tries, key=lambda t: t[2] or 0.0)  # the quietest try
            row = {"op": op_name, "case": case, "shape": list(build.shape), "dtype": dtype, "in_issue_table": in_table,
                   "calls": calls,
                   "numpy_ms": medians[0], "ours_ms": medians[1], "numpy_over_ours": medians[0] / medians[1],
                   "tries": len(tries)}
            if others is not None:
                row["other_processes_cpu_percent"] = 100.0 * others
            if torch is not None:
                row.update(torch_ms=medians[2], torch_over_ours=medians[2] / medians[1])
            results.append(row)
            print("%-40s %-13s %-9s %10.3f %10.3f %12.2f %10s %12s%s" % (
                case, shape, dtype, row["numpy_ms"], row["ours_ms"], row["numpy_over_ours"],
                "%.3f" % row["torch_ms"] if "torch_ms" in row else "-",
                "%.2f" % row["torch_over_ours"] if "torch_over_ours" in row else "-",
                "   (others used %.0f%% of the CPUs)" % (100.0 * others) if others is not None else ""), flush=True)
            del ours, numpy, torch_fn, fns
    summary = {
        "geomean_numpy_over_ours_issue_table": _geomean([r["numpy_over_ours"] for r in results if r["in_issue_table"]]),
        "geomean_numpy_over_ours_all": _geomean([r["numpy_over_ours"] for r in results]),
        "min_numpy_over_ours_issue_table": min([r["numpy_over_ours"] for r in results if r["in_issue_table"]],
                                               default=float("nan")),
    }
    others = [r["other_processes_cpu_percent"] for r in results if "other_processes_cpu_percent" in r]
    if others:
        summary["max_other_processes_cpu_percent"] = max(others)
    if torch is not None:
        summary["geomean_torch_over_ours_all"] = _geomean([r["torch_over_ours"] for r in results])
    print("\n" + "\n".join("%s: %.2f" % item for item in summary.items()))
    machine = benchmark.machine_info("cpu")
    machine.update(cpu_count=os.cpu_count(), oprt_num_threads=threads, load_average_before=load_before,
                   load_average_after=os.getloadavg())
    try:
        import ml_dtypes

        machine["ml_dtypes"] = ml_dtypes.__version__
    except ImportError:
        pass
    if torch is not None:
        machine.update(torch=torch.__version__, torch_threads=torch.get_num_threads())
    return {"machine": machine, "repeats": repeats, "quiet_wait_s": FLAGS.quiet_wait_s,
            "timing": "wall clock, median of interleaved calls",
            "summary": summary, "results": results}


def _call_overhead(torch, calls=20000):
    """Per-call time of a tiny op from a Python loop (cached descriptor), ours vs torch, same tensors."""
    x = torch.randn(256, device="cuda")
    out = torch.empty_like(x)
    relu_operator = sys.modules["operator_runtime.ops.relu"]._relu
    per_call = {}
    for name, fn in (("ours_relu_out", lambda: oprt.relu(x, out=out)), ("ours_relu", lambda: oprt.relu(x)),
                     # the same call forced through the pure-Python dispatch (what runs without _fastcall)
                     ("ours_relu_out_python_path", lambda: relu_operator._call_python(out, [x], (0.0,), None)),
                     ("torch_relu", lambda: torch.relu(x)), ("torch_add_out", lambda: torch.add(x, x, out=out))):
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        per_call[name + "_us"] = (time.perf_counter() - start) / calls * 1e6
    per_call["fastcall"] = oprt.fastcall_enabled()
    per_call["ratio_ours_out_to_torch_add_out"] = per_call["ours_relu_out_us"] / per_call["torch_add_out_us"]
    per_call["ratio_ours_to_torch_relu"] = per_call["ours_relu_us"] / per_call["torch_relu_us"]
    print("\nPython call overhead, 256 floats, %d calls: " % calls
          + ", ".join("%s %.2f us" % (k[:-3], v) for k, v in per_call.items() if k.endswith("_us"))
          + "; ours(out=)/torch.add(out=) = %.2fx, ours/torch.relu = %.2fx"
          % (per_call["ratio_ours_out_to_torch_add_out"], per_call["ratio_ours_to_torch_relu"]))
    return per_call


def main(argv):
    del argv
    selection = select_ops(discover_ops(), FLAGS.op)
    if FLAGS.backend not in oprt.available_backends():  # one line, exit 2 (no traceback)
        why = ("compiled in, but no device is usable here" if FLAGS.backend in oprt.compiled_backends() else
               "not compiled into this library (build with --config=%s)" % FLAGS.backend)
        print("run_ops: backend %s is not available: %s; available here: %s"
              % (FLAGS.backend, why, ", ".join(oprt.available_backends())), file=sys.stderr)
        return 2
    oprt.set_backend(FLAGS.backend)
    json_path = user_path(FLAGS.json) if FLAGS.json else None
    start = time.time()
    failed = 0
    if FLAGS.mode == "explain":
        run_explain(selection, FLAGS.backend)
    if FLAGS.mode in ("test", "all"):
        failed = run_tests(selection, FLAGS.backend)
    if FLAGS.mode in ("bench", "all"):
        report = run_cpu_bench(selection) if FLAGS.backend == "cpu" else run_bench(selection, FLAGS.backend)
        if json_path:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(report, indent=1, default=str) + "\n")
            print("wrote %s" % json_path)
    print("\nrun_ops finished in %.1f s%s" % (time.time() - start, ", %d case(s) FAILED" % failed if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    app.run(main)
