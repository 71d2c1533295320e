"""The kernel lab: time candidate kernels against each other and against the peers' recorded numbers, by the
same method as run_ops's device bench (CUPTI device time through torch.profiler, a 256 MB L2 flush before
each call; operator_runtime.benchmark.DeviceTimer), without building the library.

A lab is a .cu file of `extern "C" __global__` kernels (one per candidate and dtype) compiled here to a cubin
(`bench/lab/build.sh`) and a Python script that loads it with cupy on the GPU machine, launches each candidate
on torch tensors, checks its output against torch, and times it. What a lab measured decides what goes into
ops/*/nvidia; the lab stays as the record of what was tried (bench/lab/README.md).

    import lab
    module = lab.load("reduce_rows")                     # bench/lab/build/reduce_rows.cubin
    fn = module.kernel("sum_rows_block_f16")
    call = lambda: fn.launch(grid, block, x, y, rows, cols)   # tensors pass as pointers, ints as int64
    lab.check(name, y, expected, dtype)                  # raises on a wrong result
    stats = lab.time(call)                               # {'p20':, 'p50':, 'p80':} device us
    lab.best_peer("reduce_sum", "8192x8192 axis=-1", "float16")  # recorded p50 of the strongest peer
    lab.save("reduce_rows", rows)                        # $OUT/lab-reduce_rows.json (or bench/results/lab/)
"""

import importlib.util
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
PEERS_JSON = REPO / "bench" / "results" / "h200-peers.json"

_timer = None
_benchmark = None


def _benchmark_module():
    """operator_runtime/benchmark.py by path, inside a stand-in package (its `from . import _backends` is
    used only by the wall-clock Timer, not by DeviceTimer): the lab needs its timer, not the library."""
    import types

    package = types.ModuleType("oprt_lab_package")
    package.__path__ = [str(REPO / "python" / "operator_runtime")]
    sys.modules["oprt_lab_package"] = package
    sys.modules["oprt_lab_package._backends"] = types.ModuleType("oprt_lab_package._backends")
    spec = importlib.util.spec_from_file_location("oprt_lab_package.benchmark",
                                                  REPO / "python" / "operator_runtime" / "benchmark.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def benchmark():
    """operator_runtime/benchmark.py, loaded once (_benchmark_module)."""
    global _benchmark
    if _benchmark is None:
        _benchmark = _benchmark_module()
    return _benchmark


def timer():
    global _timer
    if _timer is None:
        import torch

        # as run_ops times: persisting (evict_last) lines reset before every flush, or they outlive it
        _timer = benchmark().DeviceTimer(torch, before_flush=benchmark().persisting_l2_reset(torch))
    return _timer


def stats(device_us) -> dict:
    """p20 / p50 / p80 of one implementation's per-call device times (a DeviceTimer measurement's device_us)."""
    q = np.percentile(device_us, [20, 50, 80])
    return {"p20": float(q[0]), "p50": float(q[1]), "p80": float(q[2])}


def time_interleaved(runs: dict, rounds: int, base: dict, moved_bytes: int, label: str, peer="torch.compile",
                     keep_calls=False) -> list:
    """Times runs (name -> callable) together, `rounds` times: each round one DeviceTimer.measure_many, every
    implementation's calls interleaved as run_ops times a row. One row per implementation and round: base's keys,
    variant, round, kernels, p20/p50/p80 us, GB/s (moved_bytes / p50) and compile_over_it, the paired per-call
    ratio of `peer`'s time to its own (operator_runtime.benchmark.paired_ratio); device_us_calls too with
    keep_calls. Each row is printed as it comes."""
    rows = []
    for r in range(rounds):
        measured = timer().measure_many(runs)
        peer_calls = measured[peer]["device_us"]
        for name, m in measured.items():
            paired = benchmark().paired_ratio(peer_calls, m["device_us"])
            row = dict(base, variant=name, round=r, kernels=m["kernels"], compile_over_it=paired)
            if keep_calls:
                row["device_us_calls"] = m["device_us"]
            row.update(stats(m["device_us"]))
            row["GBps"] = moved_bytes / row["p50"] / 1e3
            rows.append(row)
            print("%-22s round %d  %-32s p20 %8.2f p50 %8.2f p80 %8.2f us  %5.0f GB/s  %s/it %s" % (
                label, r, name, row["p20"], row["p50"], row["p80"], row["GBps"], peer,
                "%.4f [%.4f, %.4f]" % (paired["median"], *paired["ci95"]) if paired else "-"), flush=True)
    return rows


def time_us(fn, by=None) -> dict:
    """p20 / p50 / p80 device time of one call of fn, in microseconds (L2 flushed before each call), by the
    lab's DeviceTimer or `by` (another timer, e.g. one with its own flush)."""
    m = (by or timer()).measure(fn)
    return dict(stats(m["device_us"]), kernels=m["kernels"], calls=len(m["device_us"]))


class Kernel:
    def __init__(self, function, name):
        self.function, self.name = function, name

    def set_max_dynamic_shared(self, nbytes: int):
        self.function.max_dynamic_shared_size_bytes = int(nbytes)

    def launch(self, grid, block, *args, shared: int = 0):
        """Launches on torch's current stream; torch tensors pass as device pointers, Python ints as int64,
        floats as float32, bools as int32; numpy scalars keep their own type."""
        import cupy
        import torch

        packed = []
        for a in args:
            if isinstance(a, torch.Tensor):
                packed.append(np.uint64(a.data_ptr()))
            elif isinstance(a, bool):
                packed.append(np.int32(a))
            elif isinstance(a, int):
                packed.append(np.int64(a))
            elif isinstance(a, float):
                packed.append(np.float32(a))
            else:
                packed.append(a)
        grid = grid if isinstance(grid, tuple) else (int(grid),)
        block = block if isinstance(block, tuple) else (int(block),)
        stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        self.function(grid, block, tuple(packed), shared_mem=int(shared), stream=stream)


class Module:
    def __init__(self, path: pathlib.Path):
        import cupy

        self.path = path
        self.module = cupy.RawModule(path=str(path))

    def kernel(self, name: str) -> Kernel:
        return Kernel(self.module.get_function(name), name)


def load(name: str) -> Module:
    """bench/lab/build/<name>.cubin (made by bench/lab/build.sh)."""
    return Module(HERE / "build" / (name + ".cubin"))


def check(label: str, actual, expected, dtype_name: str):
    """Raises AssertionError when actual (torch) differs from expected (torch, any float type) beyond the
    tolerance of the data type (f16/bf16 a few ulps of the output, f32 1e-5 relative)."""
    import torch

    rtol = {"float16": 4e-3, "bfloat16": 1.6e-2, "float32": 1e-5}[dtype_name]
    a, e = actual.double(), expected.double()
    bad = ~torch.isclose(a, e, rtol=rtol, atol=rtol * 1e-3)
    if bool(bad.any()):
        i = int(bad.flatten().nonzero()[0])
        raise AssertionError("%s: %d values wrong, first at flat index %d: %r vs %r" % (
            label, int(bad.sum()), i, float(a.flatten()[i]), float(e.flatten()[i])))


_peers = None


def best_peer(op: str, label: str, dtype_name: str):
    """(name, p50 device us) of the strongest peer recorded for a row of bench/results/h200-peers.json
    (label as that file's 'label', e.g. '65536x128' or '8192x8192 axis=-1'), or None."""
    global _peers
    if _peers is None:
        _peers = json.loads(PEERS_JSON.read_text()) if PEERS_JSON.exists() else {"results": []}
    for row in _peers["results"]:
        if row["op"] == op and row["label"] == label and row["dtype"] == dtype_name:
            best = None
            for name, impl in row["impls"].items():
                if name == "ours" or impl.get("status") != "ok":
                    continue
                if best is None or impl["device_us"]["p50"] < best[1]:
                    best = (name, impl["device_us"]["p50"])
            return best
    return None


def recorded_ours(op: str, label: str, dtype_name: str):
    """Our p50 device us recorded for the row in bench/results/h200-peers.json, or None."""
    best_peer(op, label, dtype_name)
    for row in _peers["results"]:
        if row["op"] == op and row["label"] == label and row["dtype"] == dtype_name:
            impl = row["impls"].get("ours", {})
            return impl["device_us"]["p50"] if impl.get("status") == "ok" else None
    return None


def save(name: str, rows: list, extra: dict = None):
    """Writes the lab's rows with the machine and versions to $OUT/lab-<name>.json (the GPU machine's run
    folder) or bench/results/lab/<name>.json, and prints one line per row."""
    import torch

    out_dir = pathlib.Path(os.environ["OUT"]) if os.environ.get("OUT") else REPO / "bench" / "results" / "lab"
    out_dir.mkdir(parents=True, exist_ok=True)
    report = {
        "lab": name,
        "command": " ".join([sys.executable] + sys.argv),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"gpu": torch.cuda.get_device_name(), "host": platform.node()},
        "versions": {"torch": torch.__version__, "cuda": torch.version.cuda},
        "method": "CUPTI device time via torch.profiler (operator_runtime.benchmark.DeviceTimer), 256 MB L2 flush "
                  "before each call; a peer is timed in the same rounds where it is a row's variant (time_interleaved: "
                  "compile_over_it), else its p50 is the one recorded in bench/results/h200-peers.json (best_peer)",
        "rows": rows,
    }
    report.update(extra or {})
    path = out_dir / ("lab-%s.json" % name)
    path.write_text(json.dumps(report, indent=1))
    print("wrote", path)


def time_row_sum(label: str, dtype_name: str, variant: str, run, y, expected, length: int) -> dict:
    """A row-sum lab's row: run(y) once, its error against expected (float64 sums; relative, with sqrt(length)
    added to the denominator so near-zero sums do not dominate; "wrong" above 1e-2), then its device time,
    next to the strongest peer and our own time recorded in h200-peers.json. Printed and returned."""
    import torch

    run(y)
    torch.cuda.synchronize()
    err = float(((y.double() - expected).abs() / (expected.abs() + length ** 0.5)).max())
    row = sum_row(label, dtype_name, variant, time_us(lambda: run(y)))
    row.update({"rel_err": err, "status": "ok" if err < 1e-2 else "wrong"})
    print_row(row)
    return row


def compile_like_run_ops(fn):
    """torch.compile of fn as run_ops compiles a peer: dynamo reset, dynamic=False, fullgraph=True, and Inductor's
    autotuning done in this process, the one that times it (not taken from its local autotune cache)."""
    import torch
    import torch._inductor.config as inductor_config

    inductor_config.autotune_local_cache = False
    torch._dynamo.reset()
    return torch.compile(fn, dynamic=False, fullgraph=True)


def time_compiled_sum(label: str, dtype_name: str, fn, x):
    """torch.compile's fn (compile_like_run_ops) timed on x as time_row_sum times a candidate, its first call (the
    compile) untimed. Printed; returns the row and the compiled function."""
    compiled = compile_like_run_ops(fn)
    compiled(x)
    row = sum_row(label, dtype_name, "torch.compile (this run)", time_us(lambda: compiled(x)))
    print_row(row)
    return row, compiled


def check_sums(label: str, dtype_name: str, fns: dict, outs: dict, expected, length: int):
    """Calls each of fns (name -> a call) once and checks its sums (outs[name] where it writes there, else what it
    returns) against expected as time_row_sum checks them; raises AssertionError on the first wrong one."""
    import torch

    for name, fn in fns.items():
        got = fn()
        torch.cuda.synchronize()
        got = outs.get(name, got)
        err = float(((got.double() - expected).abs() / (expected.abs() + length ** 0.5)).max())
        assert err < 1e-2, (label, dtype_name, name, err)


def time_sums_interleaved(rows_out: list, label: str, dtype_name: str, fns: dict, outs: dict, expected, length: int,
                          rounds: int, variant: str = "%s (round %d)"):
    """Row-sum candidates timed as run_ops times a row: fns checked (check_sums), then `rounds` rounds of
    DeviceTimer.measure_many (interleaved calls, a flush before each). Appends a printed row per candidate and
    round to rows_out, named variant % (name, round)."""
    check_sums(label, dtype_name, fns, outs, expected, length)
    for r in range(rounds):
        for name, m in timer().measure_many(fns).items():
            row = sum_row(label, dtype_name, variant % (name, r), stats(m["device_us"]))
            print_row(row)
            rows_out.append(dict(row, round=r, timed="interleaved"))


def sum_row(label: str, dtype_name: str, variant: str, stats: dict) -> dict:
    """A row-sum lab's row: the timings, the strongest peer and our own time recorded in h200-peers.json."""
    return {"shape": label, "dtype": dtype_name, "variant": variant, "p20": stats["p20"], "p50": stats["p50"],
            "p80": stats["p80"], "best_peer": best_peer("reduce_sum", label, dtype_name),
            "recorded_ours": recorded_ours("reduce_sum", label, dtype_name)}


def print_row(row: dict):
    peer = row.get("best_peer")
    peer_text = "%s %.2f" % tuple(peer) if peer else "-"
    print("%-28s %-10s %-34s p50 %8.2f us  (p20 %.2f, p80 %.2f)  best peer %s  ours recorded %s" % (
        row["shape"], row["dtype"], row["variant"], row["p50"], row["p20"], row["p80"], peer_text,
        "%.2f" % row["recorded_ours"] if row.get("recorded_ours") else "-"), flush=True)
