"""run_ops and plot_bench as a user meets them (issue 12, finding 5): every public op is selectable
(log_softmax, a non-last-axis softmax through --cases), an unavailable backend is one line and exit
status 2, relative --json paths mean the directory `bazel run` was started from, CPU benchmark rows carry
their real shapes, and plot_bench without matplotlib says so in one line (exit 2) or, with it, draws one
panel per operator."""

import json
import os
import pathlib
import subprocess
import sys

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


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
