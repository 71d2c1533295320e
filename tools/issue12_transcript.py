#!/usr/bin/env python3
"""Issue 12, finding by finding: what each one was, and what the same thing does now.

Run it where operator_runtime is installed from its wheel (pip install . / the wheel in a venv):
    python tools/issue12_transcript.py              # every finding that can run here
    python tools/issue12_transcript.py --bazel      # also the Bazel findings (needs ./bazelw, a checkout)
On a GPU machine with a CUDA build of the wheel and torch with CUDA, the GPU parts run too (dispatch of torch
CUDA tensors by placement, the fast path outside `with oprt.backend(...)`, oprt.Tensor on nvidia, DLPack).
Each check prints "ok" or "FAILED"; the exit status is the number of failed checks (0: all as expected).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import timeit

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
failures = 0


def finding(number, text):
    print("\n" + "=" * 100)
    print("Finding %s: %s" % (number, text))
    print("-" * 100)


def show(label, value):
    print("  %-44s %s" % (label, value))


def check(ok, label):
    global failures
    failures += not ok
    print("  [%s] %s" % ("ok" if ok else "FAILED", label))
    return ok


def raises(fn, error):
    """(the exception fn raised, its message) if it is an `error`, else (None, what happened)."""
    try:
        fn()
    except error as e:
        return e, "%s: %s" % (type(e).__name__, e)
    except Exception as e:  # noqa: BLE001 - shown as the wrong outcome
        return None, "%s: %s (expected %s)" % (type(e).__name__, e, error.__name__)
    return None, "no exception (expected %s)" % error.__name__


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


# ----------------------------------------------------------------------------------------------------


def finding_1(oprt, torch):
    finding(1, "dispatch did not follow the data: oprt.relu(torch_cuda_tensor) outside `with oprt.backend(\"nvidia\")` "
               "raised InvalidArgumentError (one process-wide backend)")
    from operator_runtime import _backends

    show("explicit choice in this context", _backends.explicit())
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    y = oprt.relu(x)
    check(type(y) is np.ndarray and np.array_equal(y, np.maximum(x, 0)), "numpy runs on cpu, numpy out")
    t = oprt.Tensor.from_numpy(x, backend="cpu")
    r = oprt.softmax(t, axis=0)
    check(isinstance(r, oprt.Tensor) and r.backend == "cpu", "oprt.Tensor(cpu) -> runs on cpu, result %r" % r)
    fake = oprt.Tensor.from_numpy(x)
    fake.backend_id, fake.device = _backends.BACKENDS["nvidia"], True  # stands for a GPU tensor on a CPU machine
    e, text = raises(lambda: oprt.vector_add(x, fake), oprt.InvalidArgumentError)
    show("numpy + a tensor placed on nvidia", text)
    check(e is not None and "a is a numpy.ndarray" in text and "b is an oprt.Tensor" in text,
          "mixed placements: one InvalidArgumentError naming the parameters")
    with oprt.backend("cpu"):
        y2 = oprt.relu(x, backend="cpu")
    check(np.array_equal(y2, y), "backend= per call and `with oprt.backend(...)` still choose explicitly")
    check(type(oprt.vector_add(1.0, 2.0)) is np.float64, "scalars only: the context default (cpu)")
    if _backends.device_backend() is None:
        e, text = raises(lambda: oprt.relu(FakeDevice(x)), oprt.BackendUnavailableError)
        show("device memory, library without GPU backend", text)
        check(e is not None, "device memory in a CPU-only library: BackendUnavailableError, one line")
    if torch is None:
        show("GPU part", "skipped: no torch with CUDA here (run on the GPU machine with the CUDA wheel)")
        return
    if "nvidia" not in oprt.available_backends():
        check(False, "torch has CUDA but this operator_runtime has no usable nvidia backend (install the +cu wheel)")
        return
    show("device", oprt.device_name("nvidia"))
    g = torch.randn(1 << 20, device="cuda")
    out = oprt.relu(g, negative_slope=0.1)  # no `with oprt.backend("nvidia")`
    torch.cuda.synchronize()
    check(isinstance(out, torch.Tensor) and out.device == g.device and
          torch.equal(out, torch.nn.functional.leaky_relu(g, 0.1)), "relu(torch CUDA tensor) outside any with-block "
          "runs on nvidia and matches torch")
    relu_op = importlib.import_module("operator_runtime.ops.relu")._relu
    small, small_out = torch.randn(256, device="cuda"), torch.empty(256, device="cuda")
    oprt.relu(small, out=small_out)
    check(bool(oprt.fastcall_enabled() and relu_op._fast.run(small_out, [small], (0.0,), None)),
          "a cache hit on torch CUDA tensors outside any with-block takes the C fast path")
    n = 20000
    for label, ctx in (("outside any with-block", None), ("inside with oprt.backend('nvidia')", "nvidia")):
        def loop():
            for _ in range(n):
                oprt.relu(small, out=small_out)
            torch.cuda.synchronize()
        if ctx:
            with oprt.backend(ctx):
                loop()
                us = min(timeit.repeat(loop, number=1, repeat=5)) / n * 1e6
        else:
            loop()
            us = min(timeit.repeat(loop, number=1, repeat=5)) / n * 1e6
        show("oprt.relu(256 floats, out=) " + label, "%.2f us per call" % us)
    ta, tb = torch.randn(256, device="cuda"), torch.empty(256, device="cuda")

    def torch_loop():
        for _ in range(n):
            torch.add(ta, ta, out=tb)
        torch.cuda.synchronize()
    torch_loop()
    show("torch.add(256 floats, out=), for scale", "%.2f us per call"
         % (min(timeit.repeat(torch_loop, number=1, repeat=5)) / n * 1e6))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        a = torch.full((1 << 22,), -2.0, device="cuda")  # queued on `stream`
        b = oprt.relu(a, negative_slope=0.5)  # must run after it, on the same (current) stream
    stream.synchronize()
    check(bool((b == -1.0).all()), "runs on torch's current stream (ordered after work queued there)")
    e, text = raises(lambda: oprt.vector_add(g[:6], np.ones(6, np.float32)), oprt.InvalidArgumentError)
    show("torch CUDA + numpy", text)
    check(e is not None and "torch.Tensor on cuda" in text, "mixed placements: InvalidArgumentError naming both")
    e, text = raises(lambda: oprt.relu(g, backend="cpu"), oprt.InvalidArgumentError)
    check(e is not None, "backend='cpu' on a CUDA tensor: refused, not copied (%s)" % text[:90])
    d = oprt.Tensor.from_numpy(x, backend="nvidia")
    s = oprt.softmax(d, axis=1)
    check(isinstance(s, oprt.Tensor) and s.backend == "nvidia", "oprt.Tensor on nvidia: ops follow it, outputs too")
    shared = torch.from_dlpack(s)
    check(shared.device.type == "cuda" and shared.data_ptr() == s.data_ptr, "torch.from_dlpack(oprt.Tensor): zero copy")
    total = oprt.reduce_sum(g)
    check(isinstance(total, torch.Tensor) and total.dim() == 0, "reduce_sum(torch CUDA tensor): a 0-d torch tensor")
    oprt.synchronize()


class FakeDevice:
    """Claims device memory through __cuda_array_interface__ (pointing at host memory): never dereferenced."""

    def __init__(self, a):
        self.a = a

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.a.shape, "typestr": self.a.dtype.str, "strides": None,
                "data": (self.a.__array_interface__["data"][0], False), "version": 3}


def distribution():
    try:
        return importlib.metadata.distribution("operator_runtime")
    except importlib.metadata.PackageNotFoundError:
        return None


def finding_2(oprt):
    finding(2, "`pip install .` failed: no pyproject.toml or setup.py; the only wheel was `bazel build //python:wheel`")
    pyproject = ROOT / "pyproject.toml"
    if pyproject.exists():
        text = pyproject.read_text()
        backend = re.search(r'build-backend = "([^"]+)"', text)
        path = re.search(r'backend-path = \[([^\]]+)\]', text)
        show("pyproject.toml build-backend", "%s (in-tree: %s)" % (backend and backend.group(1), path and path.group(1)))
        check(bool(backend) and (ROOT / "tools/pep517/oprt_build_backend.py").exists(),
              "pyproject.toml names the in-tree PEP 517 backend that builds through ./bazelw")
    dist = distribution()
    if dist is None:
        show("installed distribution", "none (operator_runtime imported from %s)" % os.path.dirname(oprt.__file__))
        return
    show("operator_runtime imported from", os.path.dirname(oprt.__file__))
    direct = dist.read_text("direct_url.json") or ""
    show("installed by pip from", (re.search(r'"url": "([^"]+)"', direct) or [None, "an index or a wheel file"])[1])
    check(os.path.realpath(oprt.__file__).find("site-packages") >= 0, "imported from an installed wheel (site-packages)")


def finding_3(oprt):
    finding(3, "wheel tagged py3-none-linux_x86_64 despite a CPython stable-ABI extension and GLIBC 2.34 / GLIBCXX 3.4.29 "
               "needs; Requires-Python >=3.9; CPU and CUDA builds had one file name; absl-py undeclared; no LICENSE")
    dist = distribution()
    if dist is None:
        show("wheel", "not installed here: install it (pip install .) to see its tags")
        return
    tag = re.search(r"^Tag: (.+)$", dist.read_text("WHEEL") or "", re.M)
    meta = dist.metadata
    show("version", dist.version)
    show("WHEEL Tag", tag and tag.group(1))
    show("Requires-Python", meta["Requires-Python"])
    show("Requires-Dist", "; ".join(dist.requires or []))
    show("License", meta["License"])
    check(bool(tag) and tag.group(1).startswith("cp310-abi3-manylinux_2_"), "tag cp310-abi3-manylinux_2_N_<arch>")
    check(meta["Requires-Python"] == ">=3.10", "Requires-Python >=3.10 (the extension's stable ABI)")
    cuda = "nvidia" in oprt.compiled_backends()
    check(("+cu" in dist.version) == cuda, ("a CUDA build has a local version (+cu<major>): %s" if cuda else
                                            "a CPU build has none (a CUDA build is <v>+cu<major>): %s") % dist.version)
    check(any(r.startswith("absl-py") and 'extra == "tools"' in r for r in dist.requires or []),
          "absl-py declared, as the tools extra (run_ops); numpy and ml-dtypes as dependencies")
    licenses = [f for f in dist.files or [] if f.name == "LICENSE"]
    check(bool(licenses) and "Apache License" in licenses[0].read_text() and meta["License"] == "Apache-2.0",
          "LICENSE in the wheel, License: Apache-2.0 in METADATA")
    package = pathlib.Path(oprt.__file__).parent
    sys.path.insert(0, str(HERE))
    try:
        import build_wheel  # tools/build_wheel.py: the ELF reader that decided the tag
    except ImportError:
        return
    elves = {p.name: build_wheel.read_elf(p.read_bytes()) for p in package.glob("*.so")}
    for line in build_wheel.evidence(elves):
        print("    " + line)
    allowed, reasons = build_wheel.platform_tag(elves)
    check(bool(tag) and tag.group(1).endswith(allowed), "the installed .so files allow exactly %s (%s)" % (allowed, "; ".join(reasons)))
    if os.path.exists("/usr/bin/objdump"):
        so = package / "libcamp_ops.so"
        dump = subprocess.run(["objdump", "-T", str(so)], capture_output=True, text=True).stdout
        newest = {}
        for ns, v in re.findall(r"\b(GLIBC|GLIBCXX|CXXABI)_([0-9.]+)\b", dump):
            if ns not in newest or tuple(map(int, v.split("."))) > tuple(map(int, newest[ns].split("."))):
                newest[ns] = v
        show("objdump -T libcamp_ops.so (newest)", " ".join("%s_%s" % kv for kv in sorted(newest.items())))


def finding_4(oprt):
    finding(4, "oprt.relu(x[::-1]) raised BadStridesError though the README says any strides")
    x = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    check(np.array_equal(oprt.relu(x[::-1]), np.maximum(x[::-1], 0)), "relu(x[::-1]) == numpy's")
    out = np.zeros((5, 7), np.float32)[::-1, ::-1]
    oprt.softmax(x, axis=0, out=out)
    e = np.exp(x - x.max(0))
    check(np.allclose(out, e / e.sum(0), rtol=1e-5), "a reversed out= is written like numpy writes it")
    t = oprt.Tensor.from_numpy(x[::-1, ::-2])
    check(np.array_equal(t.numpy(), x[::-1, ::-2]), "Tensor.from_numpy of negative strides (copied to a layout it takes)")


def finding_5(oprt):
    finding(5, "run_ops: CPU bench rows shrunk to 2^20 with the same label, no numpy baseline, --op log_softmax "
               "unknown, traceback for an unavailable backend, --json relative to the runfiles tree, plot_bench "
               "undeclared (matplotlib) with 54 unlabeled bars")
    run_ops = ROOT / "tools" / "run_ops.py"
    if not run_ops.exists():
        show("tools/run_ops.py", "not here (run from a checkout)")
        return
    env = dict(os.environ, PYTHONUNBUFFERED="1")

    def tool(name, *args, cwd=None, **extra):
        return subprocess.run([sys.executable, str(ROOT / "tools" / name), *args], capture_output=True, text=True,
                              env=dict(env, **extra), cwd=cwd)

    if importlib.util.find_spec("absl") is None:
        check(False, "tools/run_ops.py needs absl-py: pip install 'operator_runtime[tools]'")
        return
    r = tool("run_ops.py", "--op", "log_softmax", "--mode", "test", "--cases", "axis=0")
    row = [l for l in r.stdout.splitlines() if l.startswith("log_softmax")]
    show("--op log_softmax --mode test --cases axis=0", row[0] if row else r.stderr.strip()[-100:])
    check(r.returncode == 0 and bool(row), "--op log_softmax is selectable; --cases selects non-last-axis cases")
    missing = [b for b in ("nvidia", "metax") if b not in oprt.available_backends()]
    if missing:
        r = tool("run_ops.py", "--op", "copy", "--backend", missing[0], "--mode", "test")
        lines = (r.stdout + r.stderr).strip().splitlines()
        show("--backend %s (not available here)" % missing[0], " | ".join(lines)[:170])
        check(r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, "unavailable backend: one line, exit 2")
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        runfiles = pathlib.Path(where) / "runfiles"
        runfiles.mkdir()
        r = tool("run_ops.py", "--op", "copy,vector_add", "--mode", "bench", "--cases", "4M", "--repeats", "7",
                 "--json", "bench.json", cwd=runfiles, BUILD_WORKING_DIRECTORY=where)
        path = pathlib.Path(where) / "bench.json"
        check(r.returncode == 0 and path.exists() and not (runfiles / "bench.json").exists(),
              "--json bench.json lands in BUILD_WORKING_DIRECTORY (where `bazel run` started), not in runfiles")
        rows = json.loads(path.read_text())["results"] if path.exists() else []
        for line in r.stdout.splitlines():
            if line.startswith(("case ", "copy ", "vector_add ")):
                print("    " + line[:112])
        check(bool(rows) and all("shape" in x and x["numpy_ms"] > 0 for x in rows) and
              len({(x["case"], x["dtype"]) for x in rows}) == len(rows),
              "CPU rows: distinct real shapes, numpy in the same run (numpy/ours per row)")
        r = tool("plot_bench.py", "bench.json", "bench.png", BUILD_WORKING_DIRECTORY=where)
        show("plot_bench bench.json bench.png", (r.stdout + r.stderr).strip()[:120])
        try:
            import matplotlib  # noqa: F401
            check(r.returncode == 0 and (pathlib.Path(where) / "bench.png").exists() and "panels" in r.stdout,
                  "plot_bench: one panel per operator, labelled rows")
        except ImportError:
            check(r.returncode == 2, "plot_bench without matplotlib (optional: the plot extra): one line, exit 2")


def finding_6(oprt):
    finding(6, "conventions: dim= a TypeError; vector_add(x, 1.0) failed naming 'c'; reduce_sum(x) a 0-d array; "
               "np.asarray(oprt.Tensor) an object array; no __dlpack__/__array__/__len__; element strides; 1-line docs")
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float16)
    check(np.array_equal(oprt.softmax(x, dim=0), oprt.softmax(x, axis=0)), "dim= is axis=")
    y = oprt.vector_add(x, 1.0)
    show("vector_add(float16 x, 1.0)", "%s %s" % (y.dtype, y.shape))
    check(y.dtype == np.float16 and np.array_equal(y, x + 1.0), "Python scalars broadcast at the tensor's dtype (x + 1.0)")
    e, text = raises(lambda: oprt.vector_add(x, x, out=np.zeros((3, 4), np.float32)), oprt.BadDtypeError)
    show("vector_add(x, x, out=float32)", text)
    check(e is not None and re.search(r"\bout\b", text) and not re.search(r"\bc\b", text),
          "messages name the Python parameters (out, not C's c)")
    s = oprt.reduce_sum(x.astype(np.float32))
    show("reduce_sum(x) on numpy", repr(s))
    check(type(s) is np.float32, "a reduction to one value returns a numpy scalar, as x.sum()")
    t = oprt.Tensor.from_numpy(x.astype(np.float32)[:, ::2])
    a = np.asarray(t)
    show("np.asarray(oprt.Tensor)", "%s %s" % (a.dtype, a.shape))
    check(a.dtype == np.float32 and a.shape == (3, 2), "__array__: a host copy (its docstring says so), not an object array")
    check(len(t) == 3, "len(t) == 3")
    check(t.strides == (16, 8) and t.element_strides == (4, 2), "strides in bytes like numpy %s; element_strides %s"
          % (t.strides, t.element_strides))
    check(t.__dlpack_device__() == (1, 0) and np.array_equal(np.from_dlpack(t), a), "__dlpack__ / __dlpack_device__")
    docs = {f.__name__: f.__doc__ or "" for f in (oprt.copy, oprt.vector_add, oprt.relu, oprt.reduce_sum, oprt.softmax,
                                                  oprt.log_softmax)}
    check(all(all(k in d for k in ("Parameters:", "Returns:", "Raises:")) for d in docs.values()),
          "every op's docstring has Parameters / Returns / Raises (%d lines for reduce_sum)"
          % len(docs["reduce_sum"].splitlines()))


def finding_7(run_bazel):
    finding(7, "Bazel: --test_filter ignored by the pytest targets; every `bazel test //...` warned 'specified size is "
               "too big'")
    if not run_bazel or not (ROOT / "bazelw").exists():
        show("Bazel", "skipped (pass --bazel in a checkout)")
        return
    r = subprocess.run(["./bazelw", "test", "//ops/softmax:test_softmax", "--test_filter=dtype_mismatch and float16",
                        "--test_output=all", "--nocache_test_results"], cwd=ROOT, capture_output=True, text=True)
    summary = [l for l in r.stdout.splitlines() if "deselected" in l]
    show("--test_filter='dtype_mismatch and float16'", summary[-1].strip() if summary else "(no pytest summary)")
    check(r.returncode == 0 and bool(summary), "--test_filter reaches pytest as -k")
    r = subprocess.run(["./bazelw", "test", "//...", "--nocache_test_results"], cwd=ROOT, capture_output=True, text=True)
    tail = [l for l in (r.stdout + r.stderr).splitlines() if l.startswith("Executed") or "too big" in l]
    for line in tail:
        show("./bazelw test //...", line.strip())
    check(r.returncode == 0 and not any("too big" in l for l in tail), "a plain run passes and warns of no oversized test")
    if any("too big" in l for l in tail):  # which ones
        r = subprocess.run(["./bazelw", "test", "//...", "--test_verbose_timeout_warnings"], cwd=ROOT,
                           capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines():
            if "outside of range" in line:
                print("    " + line.strip()[:160])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bazel", action="store_true", help="also run the Bazel findings (./bazelw in the checkout)")
    args = parser.parse_args()
    import operator_runtime as oprt

    torch = torch_cuda()
    print("issue 12 transcript: operator_runtime %s from %s" % (oprt.__version__, os.path.dirname(oprt.__file__)))
    print("Python %s, numpy %s, %s; backends compiled %s, available %s; fast path %s; torch with CUDA: %s" % (
        platform.python_version(), np.__version__, platform.platform(), oprt.compiled_backends(),
        oprt.available_backends(), oprt.fastcall_enabled(), torch.__version__ if torch else "no"))
    finding_1(oprt, torch)
    finding_2(oprt)
    finding_3(oprt)
    finding_4(oprt)
    finding_5(oprt)
    finding_6(oprt)
    finding_7(args.bazel)
    print("\n%d check(s) failed" % failures)
    return min(failures, 100)


if __name__ == "__main__":
    sys.exit(main())
