"""The CPU backend's thread pool: reduce_sum, softmax and log_softmax give bitwise-identical results with
OPRT_NUM_THREADS=1, 2 and 7, each run in its own process (the library reads the variable once); and
with any layout of x (one summation order).

The cases are large enough to be split across threads, in every way the kernels split work: outputs
across threads, the chunks of one long sum across threads (fewer outputs than threads), column tiles,
strided and transposed layouts, slices of softmax; the worker also reports how many threads it ran, so
a pool that never started cannot pass for a deterministic one."""

import os
import subprocess
import sys
import tempfile
import threading

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing

THREAD_COUNTS = (1, 2, 7)


def _inputs(shape, dtype, seed, layout="contiguous", fill="normal"):
    x = testing.random_values(shape, dtype, np.random.default_rng(seed), kind=fill, scale=3.0)
    return x.T if layout == "transposed" else x


def _cases():
    """(name, function of nothing returning a numpy result) for every case."""
    cases = []
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        for shape, axis, layout in [
            ((1 << 20,), None, "contiguous"),   # one sum: its chunks go across threads
            ((3, 300000), -1, "contiguous"),    # 3 sums: split by output with 2 threads, by chunk with 7
            ((1024, 512), -1, "contiguous"),    # rows
            ((512, 1024), 0, "contiguous"),     # column tiles
            ((1024, 512), 0, "transposed"),     # x.T: contiguous rows read through strides
            ((64, 100, 70), (0, 2), "contiguous"),  # reduced dims apart: gathered runs
        ]:
            x = _inputs(shape, dtype, 1, layout)
            cases.append(("reduce_sum %s %s axis=%s %s" % (dtype, shape, axis, layout),
                          lambda x=x, axis=axis: oprt.reduce_sum(x, axis=axis)))
        for shape, axis, layout, fill in [
            ((512, 1000), -1, "contiguous", "normal"),
            ((512, 1000), -1, "contiguous", "specials"),  # NaN / inf rows
            ((1000, 300), 0, "contiguous", "normal"),     # strided slices
            ((300, 1000), 0, "transposed", "normal"),
            ((2, 100000), -1, "contiguous", "normal"),    # fewer slices than threads
        ]:
            x = _inputs(shape, dtype, 2, layout, fill)
            for op in (oprt.softmax, oprt.log_softmax):
                cases.append(("%s %s %s axis=%s %s %s" % (op.__name__, dtype, shape, axis, layout, fill),
                              lambda x=x, axis=axis, op=op: op(x, axis=axis)))
    return cases


def _worker(path):
    results = {name: testing._bits(np.asarray(fn())) for name, fn in _cases()}
    results["threads in this process"] = np.array(len(os.listdir("/proc/self/task")))
    np.savez(path, **results)


def _run(threads, directory):
    path = os.path.join(directory, "threads%d.npz" % threads)
    env = dict(os.environ, OPRT_NUM_THREADS=str(threads), PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path], env=env, check=True)
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


@pytest.fixture(scope="module")
def results():
    with tempfile.TemporaryDirectory() as directory:
        return {threads: _run(threads, directory) for threads in THREAD_COUNTS}


def test_workers_really_ran(results):
    base = int(results[1]["threads in this process"])
    for threads in THREAD_COUNTS:
        assert int(results[threads]["threads in this process"]) == base + threads - 1


@pytest.mark.parametrize("threads", THREAD_COUNTS[1:])
@pytest.mark.parametrize("name", [name for name, _ in _cases()])
def test_bitwise_identical_to_one_thread(results, threads, name):
    np.testing.assert_array_equal(results[threads][name], results[1][name])


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("shape", [(700, 300), (9000, 70)])  # sums of one chunk, of three
def test_layouts_give_the_same_bits(dtype, shape):
    """One summation order for any layout: over axis 0 (column tiles) as over axis 1 of the transposed copy."""
    x = _inputs(shape, dtype, 3)
    xt = np.ascontiguousarray(x.T)
    np.testing.assert_array_equal(testing._bits(oprt.reduce_sum(x, axis=0)), testing._bits(oprt.reduce_sum(xt, axis=1)))
    for op in (oprt.softmax, oprt.log_softmax):
        np.testing.assert_array_equal(testing._bits(np.ascontiguousarray(op(x, axis=0).T)), testing._bits(op(xt, axis=1)))


def test_concurrent_callers_and_a_forked_child():
    """Calls from several Python threads at once (ctypes lets go of the GIL: one gets the pool, the others
    run on their own thread) and from a child forked after the pool started give the same bits."""
    x = _inputs((512, 2048), "float32", 4)
    expected = (testing._bits(oprt.softmax(x)), testing._bits(oprt.reduce_sum(x)))
    mismatches = []

    def calls():
        for _ in range(20):
            if not (np.array_equal(testing._bits(oprt.softmax(x)), expected[0])
                    and np.array_equal(testing._bits(oprt.reduce_sum(x)), expected[1])):
                mismatches.append(1)

    callers = [threading.Thread(target=calls) for _ in range(4)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert not mismatches
    pid = os.fork()
    if pid == 0:  # the child: no pool workers exist here, so everything runs on this thread
        same = np.array_equal(testing._bits(oprt.softmax(x)), expected[0])
        os._exit(0 if same else 1)
    assert os.waitpid(pid, 0)[1] == 0


def test_results_are_sums_and_softmaxes(results):
    """The single-thread results themselves are right (the op suites check far more)."""
    x = _inputs((512, 1024), "float32", 1)
    np.testing.assert_allclose(results[1]["reduce_sum float32 (512, 1024) axis=0 contiguous"].view(np.float32),
                               x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-4)
    y = results[1]["softmax float32 (512, 1000) axis=-1 contiguous normal"].view(np.float32).reshape(512, 1000)
    np.testing.assert_allclose(y.astype(np.float64).sum(axis=-1), 1.0, rtol=1e-5)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2])
    else:
        raise SystemExit(testing.main(__file__))
