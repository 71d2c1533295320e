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
torch_reference). On a device (issue 11's method, operator_runtime.benchmark): every row of issue 11's
shape matrix (--matrix=cases: the ops' BENCH_CASES) is timed for ours and, on the same tensors in the same
process, their calls interleaved in rounds of a seeded-shuffled order, the peers: torch eager,
torch.compile (Inductor), Liger-Kernel's Triton softmax and QuACK's CuTe-DSL softmax (each "absent: why"
when it does not import or fails to compile, "n/a: why" when it does not do the row's op). Device time is
the sum of the kernels one call launches, from the CUDA profiler (CUPTI via torch.profiler), a 256 MB L2
flush before every call; wall time per call (call + synchronize) beside it; p20/p50/p80 of up to 50 calls;
% of the copy peak measured in the same run; ratio = best peer / ours (>= 1.00: we lead). The end prints
rows led / total, the geometric mean of the ratios and the rows under 85% of the peak at >= 64 MB moved;
--json keeps everything (rewritten after every row). The whole matrix takes about 3-4 minutes on an H200
(--time_budget_s bounds it):

  PYTHONPATH=... python3 tools/run_ops.py --mode bench --backend nvidia --json bench/results/h200-peers.json
  python3 tools/plot_bench.py bench/results/h200-peers.json bench/results/h200-peers.png
  python3 tools/run_ops.py --mode bench --bench_self_test --json /tmp/self.json   # the same code on the CPU

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
import re
import statistics
import sys
import time

import numpy as np
from absl import app, flags

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without Bazel
    sys.path.insert(0, str(REPO))

os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # the CUDA profiler's per-session STAGE lines, off (before torch loads)

import operator_runtime as oprt  # noqa: E402
from operator_runtime import benchmark, testing  # noqa: E402

if not hasattr(benchmark, "DeviceTimer") and (REPO / "python" / "operator_runtime" / "benchmark.py").exists():
    # an installed wheel older than this checkout's run_ops: take the checkout's benchmark module (pure
    # Python; it only needs the installed package's _backends)
    import importlib.util

    _spec = importlib.util.spec_from_file_location("operator_runtime.benchmark",
                                                   REPO / "python" / "operator_runtime" / "benchmark.py")
    benchmark = importlib.util.module_from_spec(_spec)
    sys.modules["operator_runtime.benchmark"] = benchmark
    _spec.loader.exec_module(benchmark)
    print("run_ops: the installed operator_runtime's benchmark module predates this run_ops; using %s"
          % _spec.origin, file=sys.stderr)

FLAGS = flags.FLAGS
flags.DEFINE_string("op", "all", "public op names, comma-separated (copy, vector_add, relu, reduce_sum, softmax, "
                    "log_softmax), or 'all'")
flags.DEFINE_string("cases", None, "only cases whose name contains this text, e.g. 'axis=0', '4096x4096', 'float16' "
                    "(correctness, device and CPU benchmarks)")
flags.DEFINE_enum("backend", "cpu", ["cpu", "nvidia", "metax", "tilelang"], "backend to run on")
flags.DEFINE_boolean("tilelang_column", False, "device bench: also time the tilelang backend's kernels on every row, "
                     "a column beside ours (ours too, never a peer; its kernels compile on first use)")
flags.DEFINE_enum("mode", "all", ["test", "bench", "all", "explain"],
                  "test: correctness cases; bench: timings; all: both; explain: which kernels serve each benchmark "
                  "shape (name, grid, block, shared memory; oprt.explain)")
flags.DEFINE_string("json", None, "write the benchmark results (with machine facts) to this JSON file")
flags.DEFINE_integer("repeats", None, "timed calls per benchmark (default: 50 on devices, fewer -- down to "
                     "--min_repeats -- where they would exceed --measure_budget_s; 11 on cpu)")
flags.DEFINE_integer("min_repeats", 10, "device benchmark: the fewest timed calls of one measurement")
flags.DEFINE_float("measure_budget_s", 0.25, "device benchmark: seconds one measurement (one implementation, "
                   "device or wall timing) aims at; slow calls get fewer repeats")
flags.DEFINE_float("time_budget_s", 240, "device benchmark: after 80%% of this many seconds torch.compile is "
                   "skipped, after all of it the remaining rows are skipped (both said in the output and JSON)")
flags.DEFINE_enum("matrix", "issue11", ["issue11", "cases"], "device benchmark shapes: issue 11's matrix "
                  "(softmax, log_softmax, axis-0 softmax, row sums, sums to a scalar, copy/relu/vector_add at "
                  "64M and 256M elements; f16, bf16, f32), or each op's BENCH_CASES")
flags.DEFINE_list("shapes", None, "device benchmark: these input shapes instead of --matrix, for every selected op "
                  "in f16, bf16 and f32, e.g. 4096x3072,67108864: softmax, log_softmax and reduce_sum over the last "
                  "axis (a 1-D reduce_sum to a scalar), elementwise ops over the whole tensor")
flags.register_validator("shapes", lambda shapes: shapes is None or all(re.fullmatch(r"[1-9][0-9]*(x[1-9][0-9]*)*", s)
                                                                         for s in shapes),
                         "--shapes takes positive sizes joined by x, comma-separated (4096x3072,67108864)")
flags.DEFINE_list("peers", ["torch_eager", "torch_compile", "liger", "quack"], "device benchmark peers "
                  "(each absent when it does not import or does not do the row's op)")
flags.DEFINE_boolean("flush_reset_persisting", True, "device benchmark: before every L2 flush, synchronize and "
                     "reset the L2's persisting lines (cuCtxResetPersistingL2Cache): lines loaded with an evict_last "
                     "policy (torch.compile's looped reductions) outlive the flush otherwise and warm the next calls "
                     "of every implementation (bench/peers-method.md)")
flags.DEFINE_integer("precompile_workers", 8, "device benchmark: processes that make the first call of every "
                     "row's compiling peers (torch.compile, Liger, QuACK) at once before timing starts, so that "
                     "the timed run finds their on-disk caches warm (0: off)")
flags.DEFINE_float("precompile_timeout_s", 100, "device benchmark: the most seconds those processes may take")
flags.DEFINE_boolean("bench_self_test", False, "run the device benchmark's code on the CPU (torch CPU tensors, "
                     "the CPU profiler, shapes shrunk to --max_bench_elements, default 65536): checks the "
                     "harness without a GPU; the numbers mean nothing")
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


def _torch_inputs(torch, case, device="cuda"):
    dtype = getattr(torch, case.dtype)
    return [torch.randn(s, dtype=dtype, device=device) for s in case.shapes]


def _on_backend(backend, op, inputs, kwargs):
    with oprt.backend(backend):
        return op(*inputs, **kwargs)


def run_explain(selection, backend):
    """For each benchmark shape: the kernels one call launches (oprt.explain), to find them in kernel.cuh."""
    for sel in selection:
        for case in getattr(sel.module, "BENCH_CASES", []):
            if sel.owns(case):
                explanation = oprt.explain(sel.module.op, *testing.bench_inputs(case, backend), **case.kwargs)
                print("== %s %s\n%s" % (sel.name, case.id, explanation), flush=True)


# ----------------------------------------------------------------------------------------------------
# Device benchmark (issue 11): ours against the strongest peers, device time by the CUDA profiler

DTYPES3 = ("float16", "bfloat16", "float32")


def _bench_case(op, shape, dtype):
    """op's BenchCase on one input shape as the matrix runs it: softmax, log_softmax and reduce_sum over the last
    axis (reduce_sum of a 1-D tensor: its whole sum), vector_add of two such tensors, other ops on one."""
    case = testing.BenchCase
    if op == "reduce_sum":
        return case((shape,), dtype, (("axis", -1 if len(shape) > 1 else None),))
    if op in ("softmax", "log_softmax"):
        return case((shape,), dtype, (("axis", -1),) + ((("log", True),) if op == "log_softmax" else ()))
    return case((shape, shape) if op == "vector_add" else (shape,), dtype)


def _issue11_matrix():
    """(public op name, BenchCase): issue 11's shape matrix, in the order it is run and printed."""
    softmax_shapes = ((4096, 4096), (8192, 8192), (65536, 128), (16384, 256), (8192, 512), (32768, 1024),
                      (128, 131072), (16, 262144), (1, 1048576))
    row_shapes = ((8192, 8192), (128, 131072), (16, 262144), (4096, 4096), (65536, 128), (16384, 256),
                  (8192, 512), (32768, 1024))
    big = ((64 << 20,), (256 << 20,))
    return ([("softmax", _bench_case("softmax", s, d)) for s in softmax_shapes for d in DTYPES3]
            + [("log_softmax", _bench_case("log_softmax", s, d))
               for s in ((4096, 4096), (32768, 1024), (65536, 128), (128, 131072)) for d in DTYPES3]
            + [("softmax", testing.BenchCase((s,), d, (("axis", 0),))) for s in ((4096, 4096), (1024, 32768))
               for d in DTYPES3]
            + [("reduce_sum", _bench_case("reduce_sum", s, d)) for s in row_shapes + big for d in DTYPES3]
            + [(op, _bench_case(op, s, d)) for op in ("copy", "relu", "vector_add") for s in big for d in DTYPES3]
            + [("gelu", _bench_case("gelu", (256 << 20,), d)) for d in DTYPES3])  # (selected by --op all or gelu)


def _shapes_matrix(op_names, shapes):
    """(public op name, BenchCase) of --shapes ('4096x3072', '67108864'): every op on every shape, in every dtype."""
    parsed = [tuple(int(n) for n in text.split("x")) for text in shapes]
    return [(op, _bench_case(op, s, d)) for op in op_names for s in parsed for d in DTYPES3]


PEERS = ("torch_eager", "torch_compile", "liger", "quack")
PEER_LABELS = {"ours": "ours", "torch_eager": "eager", "torch_compile": "compile", "liger": "liger", "quack": "quack"}


def _reason(error) -> str:
    text = (str(error).strip().splitlines() or [""])[0][:200]
    return "%s: %s" % (type(error).__name__, text) if text else type(error).__name__


def logical_op(torch, op_name, kwargs):
    """The torch function that does what our op does on a row: fn(*inputs) -> output."""
    axis = kwargs.get("axis", -1)
    if op_name in ("softmax", "log_softmax"):
        f = torch.log_softmax if kwargs.get("log") else torch.softmax
        return lambda x: f(x, dim=axis)
    if op_name == "reduce_sum":
        return (lambda x: x.sum()) if axis is None else (lambda x: x.sum(dim=axis))
    if op_name == "copy":
        return lambda x: x.clone()
    if op_name == "relu":
        return lambda x: torch.relu(x)
    if op_name == "vector_add":
        return lambda a, b: a + b
    if op_name == "gelu":
        approximate = kwargs.get("approximate", "none")
        return lambda x: torch.nn.functional.gelu(x, approximate=approximate)
    return None  # an op run_ops knows no torch equivalent of: its peers are absent


class Peers:
    """The peer implementations of a row: {name: callable, or 'absent: why' / 'n/a: why'}.

    torch_eager: the torch function; torch_compile: torch.compile of it (Inductor, dynamic=False,
    fullgraph=True; dynamo's caches reset per row and its recompile limits raised, so it never falls back
    to eager); liger: Liger-Kernel's Triton softmax (softmax over the last axis, rows of <= 65,536);
    quack: QuACK's CuTe-DSL softmax_fwd (2-D softmax over the last axis)."""

    def __init__(self, torch, wanted=PEERS):
        self.torch, self.wanted = torch, tuple(wanted)
        self.liger = self.quack = None
        self.liger_absent = self.quack_absent = self.compile_absent = None
        if "liger" in self.wanted:
            try:
                from liger_kernel.ops.softmax import LigerSoftmaxFunction

                self.liger = LigerSoftmaxFunction.apply
            except Exception as error:  # noqa: BLE001 - optional: any import failure makes it absent
                self.liger_absent = "absent: " + _reason(error)
        if "quack" in self.wanted:
            try:
                from quack.softmax import softmax_fwd

                self.quack = softmax_fwd
            except Exception as error:  # noqa: BLE001
                self.quack_absent = "absent: " + _reason(error)
        if "torch_compile" in self.wanted:
            try:
                import torch._dynamo as dynamo

                _configure_dynamo(dynamo)
                self.dynamo = dynamo
            except Exception as error:  # noqa: BLE001
                self.compile_absent = "absent: " + _reason(error)

    def for_row(self, op_name, kwargs, ndim, row_length, skip_compile=None) -> dict:
        torch, out = self.torch, {}
        fn = logical_op(torch, op_name, kwargs)
        if fn is None:
            return {name: "absent: no torch equivalent of %s known to run_ops" % op_name for name in self.wanted}
        if "torch_eager" in self.wanted:
            out["torch_eager"] = fn
        if "torch_compile" in self.wanted:
            if self.compile_absent or skip_compile:
                out["torch_compile"] = self.compile_absent or skip_compile
            else:
                self.dynamo.reset()  # one row's shapes only: no guard chain across rows, no recompile limit
                out["torch_compile"] = torch.compile(fn, dynamic=False, fullgraph=True)
        axis = kwargs.get("axis", -1)
        last_axis = axis in (-1, ndim - 1)
        plain_softmax = op_name == "softmax" and not kwargs.get("log")
        if "liger" in self.wanted:
            if not plain_softmax:
                out["liger"] = "n/a: softmax only"
            elif not last_axis:
                out["liger"] = "n/a: last axis only"
            elif self.liger is None:
                out["liger"] = self.liger_absent
            elif row_length > 65536:
                out["liger"] = "n/a: refuses rows longer than 65,536"
            else:
                out["liger"] = self.liger
        if "quack" in self.wanted:
            if not plain_softmax:
                out["quack"] = "n/a: softmax only"
            elif not last_axis or ndim != 2:
                out["quack"] = "n/a: 2-D, last axis only"
            elif self.quack is None:
                out["quack"] = self.quack_absent
            else:
                out["quack"] = self.quack
        return out


def _configure_dynamo(dynamo):
    """Recompile limits far above the rows of a run, static shapes, and Inductor's autotuning done in the
    process that times the kernels (never taken from the cache that the precompile workers, busy on the
    same GPU at once, would leave behind); the same settings in the workers keep the cache keys equal."""
    try:
        import torch._inductor.config as inductor_config

        if hasattr(inductor_config, "autotune_local_cache"):
            inductor_config.autotune_local_cache = False
    except ImportError:
        pass
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(dynamo.config, name):
            setattr(dynamo.config, name, 4096)
    if hasattr(dynamo.config, "automatic_dynamic_shapes"):
        dynamo.config.automatic_dynamic_shapes = False


def _precompile_row(device, peers, op_name, shapes, dtype, attrs):
    """In a worker process: the first call of each compiling peer of one row -- torch.compile (Inductor),
    Liger's Triton kernel, QuACK's CuTe-DSL kernel -- which fills their on-disk caches (FX graphs, Triton
    and CuTe binaries) for the main process. Returns (seconds, [errors])."""
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    import torch
    import torch._dynamo as dynamo

    _configure_dynamo(dynamo)
    t0, errors = time.time(), []
    inputs = [torch.randn(s, dtype=getattr(torch, dtype), device=device) for s in shapes]
    row = Peers(torch, [p for p in peers if p != "torch_eager"]).for_row(
        op_name, dict(attrs), len(shapes[0]), shapes[0][-1])
    for name, fn in row.items():
        if callable(fn):
            try:
                fn(*inputs)
            except Exception as error:  # noqa: BLE001 - the main process meets (and reports) it again
                errors.append("%s: %s" % (name, _reason(error)))
    if device != "cpu":
        torch.cuda.synchronize()
    return time.time() - t0, errors


def _precompile_worker(spec_json):
    """The body of one precompile process: its rows, one JSON line of (seconds, errors) per row on stdout."""
    spec = json.loads(spec_json)
    for op_name, shapes, dtype, attrs in spec["rows"]:
        try:
            result = _precompile_row(spec["device"], spec["peers"], op_name, shapes, dtype, [tuple(a) for a in attrs])
        except Exception as error:  # noqa: BLE001
            result = (None, [_reason(error)])
        print(json.dumps(result), flush=True)


def precompile(device, work, peers, workers, timeout_s):
    """The compiling peers' first calls for every row, in `workers` processes at once (rows dealt round
    robin), before anything is timed: their kernels never overlap a measurement. Processes still running
    after timeout_s are killed (what they compiled stays cached). Returns a line for the report."""
    import subprocess

    peers = [p for p in peers if p in ("torch_compile", "liger", "quack")]
    rows = [(sel.name, [list(s) for s in case.shapes], case.dtype, [list(a) for a in case.attrs]) for sel, case in work]
    if workers <= 0 or not rows or not peers:
        return "off"
    t0 = time.time()
    code = "import sys; sys.path.insert(0, %r); import run_ops; run_ops._precompile_worker(sys.stdin.read())" % str(
        pathlib.Path(__file__).resolve().parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    procs = []
    for i in range(min(workers, len(rows))):
        spec = json.dumps({"device": device, "peers": peers, "rows": rows[i::workers]})
        proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env, cwd=str(REPO))
        proc.stdin.write(spec)
        proc.stdin.close()
        procs.append(proc)
    done, errors, killed = 0, 0, 0
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, timeout_s - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            killed += 1
        for line in proc.stdout.read().splitlines():
            try:
                seconds, errs = json.loads(line)
            except ValueError:
                continue
            done += 1
            errors += bool(errs) or seconds is None
    return "%d of %d rows (%s) in %d processes, %.0f s%s%s" % (
        done, len(rows), ", ".join(peers), len(procs), time.time() - t0,
        "; %d cut short by --precompile_timeout_s" % killed if killed else "",
        "; %d rows with a failure" % errors if errors else "")


def max_rel_err(torch, out, ref) -> float:
    """max |out - ref| / max |ref| in float32 (one number: is it the same op?)."""
    if out.shape != ref.shape:
        return float("inf")
    a, b = out.float(), ref.float()
    scale = b.abs().max().item() if b.numel() else 0.0
    return (a - b).abs().max().item() / max(scale, 1e-30) if b.numel() else 0.0


def _row_label(op_name, case):
    shapes = " + ".join("x".join(str(n) for n in s) for s in case.shapes)
    if len(case.shapes) == 2 and case.shapes[0] == case.shapes[1]:
        shapes = "x".join(str(n) for n in case.shapes[0]) + " x2"
    axis = case.kwargs.get("axis", -1)
    if op_name == "reduce_sum":
        shapes += " ->scalar" if axis is None else " axis=%s" % axis
    elif axis not in (-1, None) and "softmax" in op_name:
        shapes += " axis=%s" % axis
    return shapes


def _fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def _bench_table_line(row) -> str:
    impls = row["impls"]

    def us(name):
        r = impls.get(name)
        if r is None:
            return "-"
        if r.get("status") == "ok":
            return ("%.1f" % r["device_us"]["p50"]) + ("!" if r.get("mismatch") else "")
        return r["status"].split(":")[0]  # absent / n/a / error

    line = "%-11s %-22s %-8s %7.1f %8s %8s %5s | %s | %-7s %8s %5s %6s" % (
        row["op"], row["label"], row["dtype"].replace("float", "f"), row["bytes"] / 1e6,
        us("ours"), _fmt(row.get("ours_wall_us")), _fmt(row.get("ours_pct_peak"), "%.0f"),
        " ".join("%8s" % us(p) for p in PEERS),
        PEER_LABELS.get(row.get("best_peer"), "-"), _fmt(row.get("best_peer_us")),
        _fmt(row.get("best_peer_pct_peak"), "%.0f"), _fmt(row.get("ratio"), "%.2f"))
    return line + (" | tilelang %8s" % us("tilelang") if "tilelang" in impls else "")  # --tilelang_column


BENCH_HEADER = "%-11s %-22s %-8s %7s %8s %8s %5s | %s | %-7s %8s %5s %6s" % (
    "op", "shape", "dtype", "MB", "ours us", "wall us", "%pk", " ".join("%8s" % PEER_LABELS[p] for p in PEERS),
    "best", "best us", "%pk", "ratio")


def _write_json(path, report):
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, default=str) + "\n")
    os.replace(tmp, path)


def _first_call(timer, torch, fn, inputs, ref):
    """One implementation's untimed first call (compiles happen here: torch.compile, Triton, CuTe DSL), its
    output checked against eager's: {first_call_s, max_rel_err_vs_eager, mismatch}, or {status: error}."""
    t0 = time.time()
    try:
        out = fn(*inputs)
        timer.synchronize()
    except Exception as error:  # noqa: BLE001 - a failing implementation is a row entry, not the end of the run
        return {"status": "error: " + _reason(error)}
    first = {"first_call_s": time.time() - t0}
    try:
        err = max_rel_err(torch, out, ref) if ref is not None else None
    except Exception as error:  # noqa: BLE001 - e.g. an output of another type; timed all the same
        err = "not compared: " + _reason(error)
    if err is not None:
        first["max_rel_err_vs_eager"] = err
    if err is not None and not isinstance(err, str):
        first["mismatch"] = not err <= 0.05
    return first


def _measure_row(timer, fns, inputs, nbytes, peak):
    """The row's implementations (name -> fn) timed together, their calls interleaved (DeviceTimer.measure_many);
    where that fails (one of them raised), each alone. name -> (result, measurement or None)."""
    calls = {name: (lambda fn=fn: fn(*inputs)) for name, fn in fns.items()}
    how = "interleaved" if len(calls) > 1 else "alone"
    try:
        measured = timer.measure_many(calls)
    except Exception:  # noqa: BLE001 - find which one fails, and time the others alone
        measured, how = {}, "alone"
        for name, call in calls.items():
            try:
                measured[name] = timer.measure(call)
            except Exception as error:  # noqa: BLE001
                measured[name] = error
    out = {}
    for name, m in measured.items():
        if isinstance(m, Exception):
            out[name] = ({"status": "error: " + _reason(m)}, None)
            continue
        result = benchmark.impl_summary(m["device_us"], m["wall_us"], m["event_us"], m["kernels"], nbytes, peak)
        result["kernels_per_call"] = m["kernels_per_call"]
        result["timed"] = how
        # Every call's device time, in round order: compare_row pairs ours with the best peer's by round.
        result["device_us_calls"] = [round(us, 3) for us in m["device_us"]]
        out[name] = (result, m)
    return out


def _context_alive(torch, device):
    if device == "cpu":
        return True
    try:
        torch.cuda.synchronize()
        return True
    except Exception:  # noqa: BLE001 - a sticky CUDA error: nothing more can run in this process
        return False


def run_bench(selection, backend, json_path=None, device="cuda"):
    """The device benchmark: issue 11's matrix (or each op's BENCH_CASES with --matrix=cases), ours and the
    peers on the same tensors, device time by the profiler, wall time beside it; the report is rewritten
    to json_path after every row, so a run cut short still leaves its rows. device='cpu' is the self-test
    (--bench_self_test): torch CPU tensors, the CPU profiler, small shapes."""
    started = time.time()
    torch = benchmark._torch_cuda() if device == "cuda" else _torch_cpu()
    if torch is None:
        return run_bench_wall_clock(selection, backend)
    by_name = {sel.name: sel for sel in selection}
    if FLAGS.shapes:
        work = [(by_name[op], case) for op, case in _shapes_matrix(by_name, FLAGS.shapes) if by_name[op].owns(case)]
    elif FLAGS.matrix == "issue11":
        work = [(by_name[op], case) for op, case in _issue11_matrix() if op in by_name and by_name[op].owns(case)]
    else:
        work = [(sel, case) for sel in selection for case in getattr(sel.module, "BENCH_CASES", []) if sel.owns(case)]
    plan, seen = [], set()  # (sel, case as run, case as listed): shrunk by --max_bench_elements, no shape twice
    for sel, original in work:
        case = _shrunk(original, FLAGS.max_bench_elements) if FLAGS.max_bench_elements else original
        case = original if case.id == original.id else case
        if (sel.name, case.id) not in seen:
            seen.add((sel.name, case.id))
            plan.append((sel, case, original))
    work = [(sel, case) for sel, case, _ in plan]
    wanted = [p for p in PEERS if p in FLAGS.peers] if FLAGS.torch else []
    settings = dict(device=device, repeats=FLAGS.repeats or 50, min_repeats=min(FLAGS.min_repeats, FLAGS.repeats or 50),
                    budget_s=FLAGS.measure_budget_s,
                    flush_bytes=benchmark.L2_FLUSH_BYTES if device == "cuda" else 1 << 20,
                    before_flush=benchmark.persisting_l2_reset(torch) if FLAGS.flush_reset_persisting
                    and device == "cuda" else None)
    timing = "device time (torch.profiler)"
    try:
        timer = benchmark.DeviceTimer(torch, **settings)
    except Exception as error:  # noqa: BLE001 - no CUPTI: CUDA events, said in every report
        if device != "cuda":
            raise
        timing = "CUDA events around each call (the profiler failed: %s)" % _reason(error)
        print("run_ops: " + timing, file=sys.stderr)
        timer = benchmark.EventTimer(torch, **settings)
    peak = timer.copy_peak(1 << 30 if device == "cuda" else 1 << 22)
    peers = Peers(torch, wanted)
    compiling = [p for p in wanted if p in ("torch_compile", "liger", "quack")
                 and not (p == "torch_compile" and peers.compile_absent) and not (p == "liger" and peers.liger is None)
                 and not (p == "quack" and peers.quack is None)]
    precompiled = "off"
    if compiling and FLAGS.precompile_workers > 0:
        progress("compiling %s for %d rows in %d processes ..." % (", ".join(compiling), len(work),
                                                                  FLAGS.precompile_workers))
        precompiled = precompile(device, work, compiling, FLAGS.precompile_workers, FLAGS.precompile_timeout_s)
        progress("  " + precompiled)
    versions = benchmark.package_versions()
    report = {
        "schema": "operator_runtime.bench.device/2",
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "argv": sys.argv, "cwd": os.getcwd(), "timestamp": benchmark.machine_info("cpu")["date"],
        "machine": benchmark.machine_info(backend if device == "cuda" else "cpu"), "versions": versions,
        "method": {
            "device_time": "torch.profiler (CUPTI): sum of the device activities (kernels, memsets, memcpys) one "
                           "call launches; the L2 flush's kernel (%s) marks calls and is excluded" % ", ".join(
                               sorted(timer.flush_names)),
            "wall_time": "perf_counter around fn() + synchronize, after a flush and a synchronize, per call",
            "interleaved": "a row's implementations timed together: rounds of one call each, each round in its "
                           "own seeded-shuffled order (timed: interleaved; alone where that failed)",
            "event_time": "CUDA events around the same span",
            "l2_flush_bytes": int(timer.flush_buffer.numel()), "quantiles": list(benchmark.QUANTILES),
            "flush_reset_persisting": bool(timer.before_flush),
            "repeats": timer.repeats, "min_repeats": timer.min_repeats, "budget_s_per_measurement": timer.budget_s,
            "ratio": "best peer p50 device time / ours (>= 1.00: we lead)",
            "peak": "torch copy_ of 1 GiB, bytes read + written / p50 device time",
            "matrix": "shapes " + ",".join(FLAGS.shapes) if FLAGS.shapes else FLAGS.matrix,
            "peers": wanted, "time_budget_s": FLAGS.time_budget_s,
            "torch_compile": "torch.compile(fn, dynamic=False, fullgraph=True), dynamo reset per row, recompile "
                             "limits 4096, Inductor's autotuning in this process; first call (compile) untimed",
            "precompiled": precompiled,
        },
        "peak_copy": peak, "peak_copy_GBps": peak["GBps"], "timing": timing,
        "l2_flush_bytes": int(timer.flush_buffer.numel()), "repeats": timer.repeats,
        "results": [], "skipped": [],
    }
    print("\n== device benchmark on backend %s (%s), %d rows; peers: %s" % (
        backend, report["machine"].get("gpu") or report["machine"].get("device"), len(work), ", ".join(wanted) or "none"),
        flush=True)
    print("versions: " + ", ".join("%s %s" % (k, v or "absent") for k, v in versions.items()))
    print("timing: " + timing + "; peers compiled beforehand: " + precompiled)
    print("measured copy peak: %.0f GB/s (torch copy_ of %d MiB, p50 device time %.1f us); L2 flush %d MB before "
          "every timed call; device time p50 of %d calls (>= %d), wall = one call + synchronize" % (
              peak["GBps"], peak["bytes"] >> 21, peak["device_us"]["p50"], timer.flush_buffer.numel() >> 20, timer.repeats,
              timer.min_repeats))
    print("ours/peer columns: p50 device us; best = fastest peer; ratio = best peer / ours (>= 1.00: we lead); "
          "! = output differs from eager's")
    print(BENCH_HEADER + "\n" + "-" * len(BENCH_HEADER), flush=True)
    absences, dead = {}, False
    for k, (sel, case, original) in enumerate(plan):
        elapsed = time.time() - started
        if dead or elapsed > FLAGS.time_budget_s:
            report["skipped"].append({"op": sel.name, "case": case.id, "why": "device context lost" if dead else
                                      "time budget (--time_budget_s=%d) spent" % FLAGS.time_budget_s})
            continue
        skip_compile = None
        if elapsed > 0.8 * FLAGS.time_budget_s:
            skip_compile = "absent: skipped, 80% of --time_budget_s spent"
        kwargs, module = case.kwargs, sel.module
        nbytes = int(module.bytes_moved(case))
        row = {"op": sel.name, "case": case.id, "label": _row_label(sel.name, case),
               "shapes": [list(s) for s in case.shapes], "dtype": case.dtype, "attrs": dict(case.attrs),
               "bytes": nbytes, "impls": {}}
        if case is not original:
            row["shrunk_from"] = original.id
        try:
            inputs = _torch_inputs(torch, case, device)
        except Exception as error:  # noqa: BLE001 - e.g. out of memory
            report["skipped"].append({"op": sel.name, "case": case.id, "why": "inputs: " + _reason(error)})
            continue
        fns = {"ours": lambda *xs, kwargs=kwargs: module.op(*xs, **kwargs)}
        if FLAGS.tilelang_column and backend != "tilelang" and "tilelang" in oprt.available_backends():
            fns["tilelang"] = lambda *xs, kwargs=kwargs: _on_backend("tilelang", module.op, xs, kwargs)
        if wanted:
            ndim = len(case.shapes[0])
            fns.update(peers.for_row(sel.name, kwargs, ndim, case.shapes[0][-1], skip_compile))
        ref = None
        if wanted and logical_op(torch, sel.name, kwargs) is not None:
            try:
                ref = logical_op(torch, sel.name, kwargs)(*inputs)
            except Exception:  # noqa: BLE001
                ref = None
        firsts, timed = {}, {}
        for name, fn in fns.items():
            if isinstance(fn, str) or fn is None:
                row["impls"][name] = {"status": fn or "absent"}
                continue
            if not _context_alive(torch, device):
                dead = True
                row["impls"][name] = {"status": "error: the device context was lost"}
                continue
            firsts[name] = _first_call(timer, torch, fn, inputs, ref if name != "torch_eager" else None)
            if "status" in firsts[name]:
                row["impls"][name] = firsts[name]
            else:
                timed[name] = fn
        if timed and _context_alive(torch, device):
            for name, (result, m) in _measure_row(timer, timed, inputs, nbytes, peak["GBps"]).items():
                if result["status"] == "ok":
                    result.update(firsts[name])  # first_call_s and the error against eager's
                if name == "torch_compile" and m and not any("triton" in kn.lower() for kn in m["kernels"]):
                    result["note"] = "no Triton kernel among its kernels: Inductor called aten"
                row["impls"][name] = result
        elif timed:
            dead = True
            row["impls"].update({name: {"status": "error: the device context was lost"} for name in timed})
        row["impls"] = {name: row["impls"][name] for name in fns}  # the columns' order
        for name, result in row["impls"].items():
            if name == "torch_compile" and result["status"].startswith("error"):
                result["status"] = "absent: torch.compile failed: " + result["status"][len("error: "):]
            if result["status"] != "ok":
                absences.setdefault((name, result["status"]), 0)
                absences[(name, result["status"])] += 1
        del inputs, ref, fns
        benchmark.compare_row(row)
        report["results"].append(row)
        print(_bench_table_line(row), flush=True)
        report["summary"] = benchmark.summarize(report["results"])
        report["elapsed_s"] = time.time() - started
        _write_json(json_path, report)
        if (k + 1) % 10 == 0:
            progress("  ... %d/%d rows, %.0f s" % (k + 1, len(work), time.time() - started))
    if device == "cuda" and not dead:
        try:
            report["python_call_overhead"] = _call_overhead(torch)
        except Exception as error:  # noqa: BLE001 - an extra, never the end of the run
            print("python call overhead: not measured: %s" % _reason(error))
    summary = report["summary"] = benchmark.summarize(report["results"])
    report["elapsed_s"] = time.time() - started
    if absences:
        print("\nnot run (rows):")
        for (name, why), count in sorted(absences.items(), key=lambda item: (item[0][0], str(item[0][1]))):
            print("  %-13s %s (%d)" % (name, why, count))
    if report["skipped"]:
        print("\nskipped rows: %d (%s)" % (len(report["skipped"]), "; ".join(sorted({s["why"] for s in report["skipped"]}))))
    print(format_summary(summary))
    print("benchmark: %.0f s" % report["elapsed_s"], flush=True)
    return report


def format_summary(summary) -> str:
    under_key = "under_%d_pct_peak_at_64MB" % benchmark.UNDER_PEAK_PERCENT
    lines = ["\n== summary",
             "rows where we lead (ratio >= 1.00): %d / %d (of %d rows)" % (
                 summary["rows_lead"], summary["rows_with_ratio"], summary["rows"]),
             "geometric mean of best peer / ours: %.3f" % summary["geomean_ratio"],
             "per op: " + ", ".join("%s %.3f" % kv for kv in summary["geomean_ratio_per_op"].items()),
             "best peer per row: " + ", ".join("%s %d" % kv for kv in summary["best_peer_counts"].items())]
    under = summary[under_key]
    lines.append("rows under %d%% of the copy peak at >= 64 MB moved: %d" % (benchmark.UNDER_PEAK_PERCENT, len(under)))
    lines += ["  %-11s %-36s %6.0f MB %5.1f%%" % (u["op"], u["case"], u["bytes"] / 1e6, u["ours_pct_peak"]) for u in under]
    if summary["behind"]:
        lines.append("rows behind (ratio < 1.00): %d" % len(summary["behind"]))
        lines += ["  %-11s %-36s %.3f (%s)%s" % (b["op"], b["case"], b["ratio"], b["best_peer"],
                                                ", paired 95%% interval %.3f-%.3f" % tuple(b["ratio_ci95"])
                                                if b.get("ratio_ci95") else "") for b in summary["behind"]]
    counts = summary.get("rows_by_interval") or {}
    if sum(counts.values()):
        lines.append("rows by the paired ratio's 95%% interval: lead %d, tie (holds 1.00) %d, behind %d" % (
            counts["lead"], counts["tie"], counts["behind"]))
    return "\n".join(lines)


def run_bench_wall_clock(selection, backend):
    """A device backend torch cannot see (metax): ours only, wall clock around a synchronize, quantiles."""
    timer = benchmark.Timer(backend, repeats=FLAGS.repeats or 30)
    work = [(sel, case) for sel in selection for case in getattr(sel.module, "BENCH_CASES", []) if sel.owns(case)]
    print("\n== benchmark on backend %s (%s): %d cases, wall clock (no torch on this device)" % (
        backend, oprt.device_name(), len(work)), flush=True)
    results = []
    for sel, case in work:
        if FLAGS.max_bench_elements:
            case = _shrunk(case, FLAGS.max_bench_elements)
        inputs = testing.bench_inputs(case, backend)
        nbytes = int(sel.module.bytes_moved(case))
        try:
            times = [t * 1e3 for t in timer.times_ms(lambda: sel.module.op(*inputs, **case.kwargs))]
        except oprt.OprtError as error:
            print("%-11s %-40s error: %s" % (sel.name, case.id, error), flush=True)
            continue
        row = {"op": sel.name, "case": case.id, "label": _row_label(sel.name, case), "shapes": [list(s) for s in case.shapes],
               "dtype": case.dtype, "attrs": dict(case.attrs), "bytes": nbytes,
               "impls": {"ours": benchmark.impl_summary(times, times, None, None, nbytes, None)}}
        results.append(benchmark.compare_row(row))
        print("%-11s %-40s %10.1f us (p20 %.1f, p80 %.1f)" % (sel.name, case.id, row["ours_us"],
                                                             row["impls"]["ours"]["device_us"]["p20"],
                                                             row["impls"]["ours"]["device_us"]["p80"]), flush=True)
        del inputs
    return {"schema": "operator_runtime.bench.device/2", "machine": benchmark.machine_info(backend),
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv), "repeats": timer.repeats,
            "timing": "wall clock around a synchronize", "results": results,
            "summary": benchmark.summarize(results)}


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
    """Median milliseconds of each fn, the calls interleaved (each round shuffled: interleaved_order) so that
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
    for i in benchmark.interleaved_order(len(fns), repeats):
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
        if FLAGS.backend == "tilelang":  # a Python backend: tilelang, torch and a CUDA GPU, not a build option
            from operator_runtime import _tilelang

            why = _tilelang.unavailable_reason(full=False)
        else:
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
        if FLAGS.bench_self_test:
            if FLAGS.max_bench_elements is None:
                FLAGS.max_bench_elements = 1 << 16
            report = run_bench(selection, FLAGS.backend, json_path, device="cpu")
        elif FLAGS.backend == "cpu":
            report = run_cpu_bench(selection)
        else:
            report = run_bench(selection, FLAGS.backend, json_path)
        if json_path:
            _write_json(json_path, report)
            print("wrote %s" % json_path)
    print("\nrun_ops finished in %.1f s%s" % (time.time() - start, ", %d case(s) FAILED" % failed if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    app.run(main)
