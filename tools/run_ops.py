"""run_ops: every operator's correctness cases and benchmark shapes on one backend.

  bazel run //tools:run_ops -- --op all --mode all                 # CPU reference, the main job
  bazel run --config=nvidia //tools:run_ops -- --op softmax --backend nvidia --mode bench --json out.json
  python tools/run_ops.py --backend nvidia --mode bench            # from a checkout with the wheel installed

Operators are found as ops/**/cases.py (NAME, op, reference, CASES, BENCH_CASES, bytes_moved,
torch_reference). Bench times are medians of CUDA-event timings with an L2 flush before each run;
PyTorch runs the same call on the same tensors in the same process, and the device's copy bandwidth
is measured too, so every number comes with a ratio to torch and a % of measured peak.
"""

import importlib
import json
import pathlib
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
flags.DEFINE_string("op", "all", "operator name (NAME in its cases.py) or 'all'")
flags.DEFINE_enum("backend", "cpu", ["cpu", "nvidia", "metax"], "backend to run on")
flags.DEFINE_enum("mode", "all", ["test", "bench", "all"], "test: correctness cases; bench: timings; all: both")
flags.DEFINE_string("json", None, "write the benchmark results (with machine facts) to this JSON file")
flags.DEFINE_integer("repeats", 30, "timed runs per benchmark (median reported)")
flags.DEFINE_integer("max_bench_elements", None,
                     "shrink benchmark shapes to at most this many elements (default: 2^20 on cpu, none on devices)")
flags.DEFINE_boolean("torch", True, "also time torch's implementation (when importable, device backends)")


def discover_ops() -> dict:
    """NAME -> cases module, for every ops/**/cases.py."""
    modules = {}
    for path in sorted((REPO / "ops").rglob("cases.py")):
        name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        module = importlib.import_module(name)
        modules[module.NAME] = module
    return modules


def run_tests(modules, backend):
    print("\n== correctness on backend %s" % backend)
    print("%-12s %8s %8s %8s" % ("op", "cases", "passed", "failed"))
    total_failed = 0
    for name, module in modules.items():
        passed = failed = 0
        for case in module.CASES:
            if case.device_only and not testing.is_device(backend):
                continue
            for dtype in case.dtypes:
                try:
                    testing.run_case(module, case, dtype, backend)
                    passed += 1
                except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the run
                    failed += 1
                    print("FAIL %s %s %s: %s" % (name, case.id, dtype, str(error).splitlines()[0][:300]))
        total_failed += failed
        print("%-12s %8d %8d %8d" % (name, passed + failed, passed, failed))
    return total_failed


def _shrunk(case, max_elements):
    """The case with its leading dims halved until it has at most max_elements (for the CPU backend)."""
    shapes = [list(s) for s in case.shapes]
    while max(int(np.prod(s)) for s in shapes) > max_elements:
        for s in shapes:
            dim = 0 if s[0] > 1 else len(s) - 1
            s[dim] = max(1, s[dim] // 2)
    return testing.BenchCase(shapes=tuple(tuple(s) for s in shapes), dtype=case.dtype, attrs=case.attrs)


def _torch_inputs(torch, case):
    dtype = getattr(torch, case.dtype)
    return [torch.randn(s, dtype=dtype, device="cuda") for s in case.shapes]


def run_bench(modules, backend):
    timer = benchmark.Timer(backend, repeats=FLAGS.repeats)
    torch = timer.torch if FLAGS.torch else None
    peak = timer.copy_bandwidth_gbps()
    max_elements = FLAGS.max_bench_elements or (1 << 20 if backend == "cpu" else None)
    print("\n== benchmark on backend %s (%s)" % (backend, oprt.device_name()))
    if peak:
        print("measured device-to-device copy bandwidth: %.0f GB/s" % peak)
    header = "%-11s %-34s %11s %9s %7s %11s %8s" % ("op", "case", "ours (us)", "GB/s", "%peak", "torch (us)", "speedup")
    print(header + "\n" + "-" * len(header))
    results = []
    for name, module in modules.items():
        for case in getattr(module, "BENCH_CASES", []):
            if max_elements:
                case = _shrunk(case, max_elements)
            kwargs = case.kwargs
            inputs = _torch_inputs(torch, case) if torch is not None else testing.bench_inputs(case, backend)
            nbytes = module.bytes_moved(case)
            try:
                ours_ms = timer.time_ms(lambda: module.op(*inputs, **kwargs))
            except oprt.OprtError as error:
                print("%-11s %-34s error: %s" % (name, case.id, error))
                continue
            row = {"op": name, "case": case.id, "shapes": case.shapes, "dtype": case.dtype, "attrs": dict(case.attrs),
                   "bytes": nbytes, "ours_us": ours_ms * 1e3, "ours_GBps": nbytes / (ours_ms * 1e-3) / 1e9}
            if peak:
                row["ours_pct_peak"] = 100.0 * row["ours_GBps"] / peak
            if torch is not None and hasattr(module, "torch_reference"):
                torch_ms = timer.time_ms(lambda: module.torch_reference(*inputs, **kwargs))
                row.update(torch_us=torch_ms * 1e3, torch_GBps=nbytes / (torch_ms * 1e-3) / 1e9,
                           speedup_vs_torch=torch_ms / ours_ms)
            results.append(row)
            print("%-11s %-34s %11.1f %9.1f %7s %11s %8s" % (
                name, case.id, row["ours_us"], row["ours_GBps"],
                "%.1f" % row["ours_pct_peak"] if "ours_pct_peak" in row else "-",
                "%.1f" % row["torch_us"] if "torch_us" in row else "-",
                "%.2fx" % row["speedup_vs_torch"] if "speedup_vs_torch" in row else "-"))
            del inputs
    overhead = _call_overhead(torch) if torch is not None else None
    return {"machine": benchmark.machine_info(backend), "python_call_overhead": overhead, "peak_copy_GBps": peak, "repeats": FLAGS.repeats,
            "l2_flush_bytes": benchmark.L2_FLUSH_BYTES, "timing": "cuda events" if timer.torch else "wall clock",
            "results": results}


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
    modules = discover_ops()
    if FLAGS.op != "all":
        if FLAGS.op not in modules:
            raise app.UsageError("unknown --op %s; known: %s" % (FLAGS.op, ", ".join(modules)))
        modules = {FLAGS.op: modules[FLAGS.op]}
    oprt.set_backend(FLAGS.backend)
    start = time.time()
    failed = 0
    if FLAGS.mode in ("test", "all"):
        failed = run_tests(modules, FLAGS.backend)
    if FLAGS.mode in ("bench", "all"):
        report = run_bench(modules, FLAGS.backend)
        if FLAGS.json:
            pathlib.Path(FLAGS.json).write_text(json.dumps(report, indent=1, default=str) + "\n")
            print("wrote %s" % FLAGS.json)
    print("\nrun_ops finished in %.1f s%s" % (time.time() - start, ", %d case(s) FAILED" % failed if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    app.run(main)
