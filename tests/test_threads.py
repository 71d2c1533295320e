"""Threads (issue 14). 16 threads share the descriptor caches, shrunk to 8 entries so that eviction never
stops: some repeat one op on a large input while the others call ops on many distinct shapes, and every
result is compared with numpy (or torch); there must be no wrong result and no exception. Each thread
picks its backend with `with oprt.backend(...)`: "cpu" here; where nvidia is requested and usable, half
of the threads use nvidia with torch tensors, each on its own torch.cuda.Stream, including ops that need
a workspace (reduce_sum of a 16M-element vector, softmax of 8 x 262144). Also: a backend chosen in one
thread is not seen in another, and racing cache misses leave no descriptor alive beyond the cache."""

import ctypes
import threading

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _backends, _dispatch, _lib, testing

THREADS = 16
CACHE_SIZE = 8
DEVICE = "nvidia" in testing.backends() and "nvidia" in oprt.available_backends()
needs_cpu = pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")


@pytest.fixture
def small_caches(monkeypatch):
    monkeypatch.setattr(_dispatch, "_CACHE_SIZE", CACHE_SIZE)


def run_threads(workers):
    """Runs each worker(check) in its own thread, all released at once; returns (wrong results, errors)."""
    wrong, errors = [], []
    start = threading.Barrier(len(workers))

    def check(ok, what):
        if not ok:
            wrong.append(what)

    def body(worker):
        try:
            start.wait()
            worker(check)
        except Exception as e:  # noqa: BLE001 - every exception is a failure, reported below
            errors.append("%s: %r" % (worker.__name__, e))

    threads = [threading.Thread(target=body, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return wrong, errors


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ------------------------------------------------------------------------------------------ cpu workers


def cpu_repeater(seed, tensors):
    """relu over 2^20 elements, again and again: oprt.Tensor (the compiled fast path) or numpy."""

    def cpu_repeat(check):
        x = np.random.default_rng(seed).standard_normal(1 << 20).astype(np.float32)
        expected = np.where(x > 0, x, np.float32(0.25) * x)
        with oprt.backend("cpu"):
            if tensors:
                x, out = oprt.Tensor.from_numpy(x), oprt.Tensor.from_numpy(np.zeros_like(x))
            else:
                out = np.zeros_like(x)
            for i in range(25):
                oprt.relu(x, negative_slope=0.25, out=out)
                check(np.array_equal(testing.to_numpy(out), expected), "relu 2^20 call %d" % i)

    return cpu_repeat


def cpu_churner(seed):
    """The four op families on ever new shapes (misses, evictions), numpy and oprt.Tensor alike."""

    def cpu_churn(check):
        rng = np.random.default_rng(seed)
        with oprt.backend("cpu"):
            for i in range(60):
                shape = (1 + (seed * 13 + i) % 29, 1 + (seed * 7 + 3 * i) % 31)
                x, y = rng.standard_normal(shape), rng.standard_normal(shape)
                what = "%s %s" % (["relu", "vector_add", "softmax", "reduce_sum"][i % 4], shape)
                if i % 4 == 0:
                    want = np.where(x > 0, x, 0.25 * x)
                    if i % 8:
                        got = oprt.relu(x, negative_slope=0.25)
                    else:  # oprt.Tensor: the second call is a hit in the compiled fast path
                        xt, out = oprt.Tensor.from_numpy(x), oprt.Tensor.empty(shape, np.float64)
                        oprt.relu(xt, negative_slope=0.25, out=out)
                        got = oprt.relu(xt, negative_slope=0.25, out=out).numpy()
                elif i % 4 == 1:
                    got, want = oprt.vector_add(x, y), x + y
                elif i % 4 == 2:
                    got, want = oprt.softmax(x, axis=i % 2), softmax_ref(x, i % 2)
                else:
                    got, want = oprt.reduce_sum(x, axis=0), x.sum(axis=0)
                check(got.shape == want.shape and np.allclose(got, want, rtol=1e-12, atol=1e-14), what)

    return cpu_churn


# ------------------------------------------------------------------------------------------ nvidia workers


def device_worker(seed, kind):
    """On nvidia with torch tensors on a torch stream of its own; checked on that stream against torch."""
    import torch

    def device_work(check):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream), oprt.backend("nvidia"):
            if kind == "repeat":
                x = torch.randn(1 << 21, device="cuda", generator=gen)
                out, expected = torch.empty_like(x), torch.where(x > 0, x, 0.25 * x)
                for i in range(25):
                    oprt.relu(x, negative_slope=0.25, out=out)
                    check(torch.equal(out, expected), "nvidia relu 2^21 call %d" % i)
            elif kind == "workspace":  # both need a workspace: two-phase sum, split softmax rows
                v = torch.randn(1 << 24, device="cuda", generator=gen)
                rows = torch.randn(8, 262144, device="cuda", generator=gen)
                v_sum, v_abs = v.double().sum(), v.double().abs().sum()
                rows_softmax = torch.softmax(rows.double(), dim=-1)
                for i in range(10):
                    s = oprt.reduce_sum(v)
                    check(abs(s.double() - v_sum) <= 1e-5 * v_abs, "nvidia reduce_sum 2^24 call %d" % i)
                    p = oprt.softmax(rows, axis=-1)
                    check(torch.allclose(p.double(), rows_softmax, rtol=1e-3, atol=1e-9), "nvidia softmax 8x262144 %d" % i)
            else:  # "churn": new shapes
                for i in range(60):
                    shape = (1 + (seed * 13 + i) % 29, 1 + (seed * 7 + 3 * i) % 31)
                    x = torch.randn(shape, device="cuda", generator=gen, dtype=torch.float64)
                    if i % 2:
                        got, want = oprt.softmax(x, axis=1), torch.softmax(x, dim=1)
                    else:
                        got, want = oprt.relu(x, negative_slope=0.25), torch.where(x > 0, x, 0.25 * x)
                    check(torch.allclose(got, want, rtol=1e-12, atol=1e-14), "nvidia %s" % (shape,))
        stream.synchronize()

    return device_work


def workers():
    """16 workers: on cpu 4 repeaters (2 through the fast path) and 12 churners; with a usable nvidia,
    half of them on nvidia instead (2 repeaters, 3 workspace users, 3 churners)."""
    cpu = [cpu_repeater(s, tensors=s % 2 == 0) for s in range(4)] + [cpu_churner(s) for s in range(4, 16)]
    if not DEVICE:
        return cpu
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("the nvidia part of this test needs torch")
    kinds = ["repeat"] * 2 + ["workspace"] * 3 + ["churn"] * 3
    return cpu[:2] + cpu[4:10] + [device_worker(100 + i, k) for i, k in enumerate(kinds)]


class WorkspaceCount:
    """The library, counting oprt_malloc_async calls (workspaces)."""

    def __init__(self):
        self.count = 0

    def __getattr__(self, name):
        fn = getattr(_lib.lib, name)
        if name != "oprt_malloc_async":
            return fn

        def counted(*args):
            self.count += 1  # (a lost update under threads only lowers the count)
            return fn(*args)

        return counted


@pytest.mark.skipif(not ("cpu" in testing.backends() or DEVICE), reason="no usable backend requested")
@pytest.mark.parametrize("fast_path", [True, False], ids=["fast path", "python path"])
def test_sixteen_threads_no_wrong_results(small_caches, monkeypatch, fast_path):
    # The fast path allocates workspaces in C, where no Python wrapper sees them: counted on the Python path.
    if not fast_path:
        for op in _dispatch.OPERATORS.values():
            monkeypatch.setattr(op, "_fast", None)
    workspaces = WorkspaceCount()
    monkeypatch.setattr(_dispatch, "lib", workspaces)
    wrong, errors = run_threads(workers())
    assert errors == []
    assert wrong == []
    if DEVICE and not fast_path:  # the workspace users' 60 calls each allocated one (lost updates aside)
        assert workspaces.count >= 30


# ------------------------------------------------------------------------------------------ backends per thread


@needs_cpu
def test_a_backend_chosen_in_one_thread_is_not_seen_in_another():
    chosen, looked = threading.Event(), threading.Event()
    seen = {}

    def chooser():
        try:
            if "nvidia" in oprt.available_backends():
                oprt.set_backend("nvidia")
            else:  # no device here: the context variable alone, which is what other threads must not see
                _backends._current.set(_backends.BACKENDS["nvidia"])
        finally:
            chosen.set()
        looked.wait(10)
        seen["chooser"] = oprt.get_backend()

    def bystander():
        chosen.wait(10)
        try:
            seen["bystander"] = oprt.get_backend(), _lib.lib.oprt_get_backend()
            seen["relu"] = oprt.relu(np.array([-1.0, 2.0]))  # a cpu call, while the other thread is on nvidia
        finally:
            looked.set()

    threads = [threading.Thread(target=chooser), threading.Thread(target=bystander)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["chooser"] == "nvidia"
    assert seen["bystander"] == ("cpu", 0)
    np.testing.assert_array_equal(seen["relu"], [0.0, 2.0])
    assert oprt.get_backend() == "cpu"


# ------------------------------------------------------------------------------------------ no leaks


@needs_cpu
def test_racing_misses_leave_no_descriptor_beyond_the_cache(small_caches, monkeypatch):
    relu = _dispatch.Operator("relu", [ctypes.c_double], num_inputs=1)
    handles = []

    class Recorded(_dispatch._Descriptor):
        def __init__(self, handle, destroy):
            super().__init__(handle, destroy)
            handles.append(handle)

    monkeypatch.setattr(_dispatch, "_Descriptor", Recorded)
    shapes = [(1 + i % 40, 1 + i // 40) for i in range(2000)]  # the same new keys in every thread: misses race

    def race(check):
        for shape in shapes:
            x = np.ones(shape, np.float32)
            relu(np.empty_like(x), [x], (0.0,))

    wrong, errors = run_threads([race] * 4)
    assert errors == [] and wrong == []
    assert len(handles) >= len(shapes)
    size = ctypes.c_size_t()
    live = [h for h in handles if relu._workspace(h, ctypes.byref(size)) == 0]  # destroyed: BAD_DESCRIPTOR
    assert len(relu._descriptors) == CACHE_SIZE
    assert sorted(live) == sorted(entry[0] for entry in relu._descriptors.values())


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
