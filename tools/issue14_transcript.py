"""Each numbered defect of issue 14, reproduced as the issue describes it, and what happens now.
Prints one block per defect ending in 'ok' or 'FAILED'; the exit status is the number of failures.
Defect 12 (workspaces shared across streams) needs torch with CUDA and the CUDA wheel: it runs where
they are, and says so where they are not.   python3 tools/issue14_transcript.py"""

import ctypes
import mmap
import os
import sys
import tempfile
import threading

import numpy as np

import operator_runtime as oprt
from operator_runtime import _dispatch, _lib, errors

lib = _lib.lib
failures = 0


def report(number, title, ok, detail):
    global failures
    failures += not ok
    print("%2d. %s\n    %s\n    %s" % (number, title, detail, "ok" if ok else "FAILED"))


def outcome(fn):
    try:
        return "returned %r" % (fn(),)
    except Exception as e:  # noqa: BLE001 - the transcript shows whatever happens
        return "%s: %s" % (type(e).__name__, e)


# 1. One thread repeats relu on a 2M array while another misses the cache on ~100 shapes.
_dispatch._CACHE_SIZE, saved = 8, _dispatch._CACHE_SIZE
big = np.random.default_rng(0).standard_normal(2 << 20).astype(np.float32)
want = np.maximum(big, 0)
wrong = [0]
stop = threading.Event()


def churn():
    i = 0
    while not stop.is_set():
        oprt.relu(np.ones(1 + i % 100, np.float32))
        i += 1


def repeat():
    for _ in range(200):
        if not np.array_equal(oprt.relu(big), want):
            wrong[0] += 1


threads = [threading.Thread(target=churn) for _ in range(3)]
for t in threads:
    t.start()
repeat()
stop.set()
for t in threads:
    t.join()
_dispatch._CACHE_SIZE = saved
report(1, "use-after-free: relu(2M) repeated while 3 threads evict the descriptor cache (8 entries)",
       wrong[0] == 0, "%d wrong results of 200" % wrong[0])

# 2. Read-only outputs.
x = np.arange(6, dtype=np.float32) - 3
ro = np.zeros(6, np.float32)
ro.flags.writeable = False
frozen = np.frombuffer(bytes(24), dtype=np.float32)
path = os.path.join(tempfile.mkdtemp(), "m.bin")
np.zeros(6, np.float32).tofile(path)
mm = np.memmap(path, dtype=np.float32, mode="r", shape=(6,))
texts = [outcome(lambda o=o: oprt.relu(x, out=o)) for o in (ro, frozen, mm)]
report(2, "read-only out= (writeable=False, frombuffer(bytes), memmap mode='r')",
       all("read-only" in t for t in texts) and not frozen.any() and not mm.any(), " | ".join(texts))

# 3. Tensor.empty byte-count overflow.
texts = [outcome(lambda s=s: oprt.Tensor.empty(s, np.float64)) for s in ((2**61 + 1,), (2**32, 2**32), (-1,))]
report(3, "Tensor.empty((2**61+1,), f64), ((2**32, 2**32)), ((-1,))", all("BadShapeError" in t for t in texts),
       " | ".join(texts))

# 4. oprt_malloc rounding.
p = ctypes.c_void_p()
status = lib.oprt_malloc(ctypes.byref(p), 2**64 - 1)
report(4, "oprt_malloc(&p, SIZE_MAX)", status == errors.Status.OUT_OF_MEMORY and not p.value,
       "status %d: %s" % (status, lib.oprt_last_error().decode()))

# 5. A destroyed handle after the allocator reuses its memory.
Layout = _lib.Layout


def layout(shape, strides, dtype=0):
    lay = Layout()
    lay.dtype, lay.ndim = dtype, len(shape)
    lay.shape[: len(shape)], lay.strides[: len(shape)] = shape, strides
    return lay


create, _, execute, destroy = _lib.declare_operator("relu", [ctypes.c_double], 1)
small, big_layout = layout([4], [1]), layout([1 << 16], [1])
old = ctypes.c_void_p()
create(ctypes.byref(old), ctypes.byref(small), ctypes.byref(small), 0.0)
destroy(old.value)
fresh = []
for _ in range(200):  # new descriptors of a bigger plan: a pointer handle would be reused by now
    d = ctypes.c_void_p()
    create(ctypes.byref(d), ctypes.byref(big_layout), ctypes.byref(big_layout), 0.0)
    fresh.append(d.value)
y, src = np.full(4, 7.0, np.float32), np.ones(4, np.float32)
status = execute(old.value, None, 0, y.ctypes.data, src.ctypes.data, None)
report(5, "execute with a destroyed relu handle after 200 new descriptors",
       status == errors.Status.BAD_DESCRIPTOR and (y == 7).all() and old.value not in fresh,
       "status %d: %s; output untouched: %s" % (status, lib.oprt_last_error().decode(), (y == 7).all()))
for d in fresh:
    destroy(d)

# 6. std::bad_alloc escaping the C API: a CPU reduce_sum whose temporaries cannot be allocated (one sum of
#    2^52 broadcast elements needs 2^40 chunk partials, 8 TiB) must return a status, not abort. The address
#    space is capped for this call, so the allocation fails on any machine (with overcommit always on, an
#    8 TiB vector would otherwise be granted and then touched).
import resource  # noqa: E402

def address_space_bytes():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))

saved_limit = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (address_space_bytes() + (16 << 30), saved_limit[1]))
rs_create, _, rs_execute, rs_destroy = _lib.declare_operator(
    "reduce_sum", [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.c_int32], 1)
axes = (ctypes.c_int32 * 1)(0)
d = ctypes.c_void_p()
status = rs_create(ctypes.byref(d), ctypes.byref(layout([], [])), ctypes.byref(layout([1 << 52], [0])), axes, 1, 0)
out_buf, one = np.full(1, 7.0, np.float32), np.ones(1, np.float32)
status = rs_execute(d.value, None, 0, out_buf.ctypes.data, one.ctypes.data, None)
detail = "execute: status %d: %s; output untouched: %s" % (status, lib.oprt_last_error().decode(), out_buf[0] == 7)
rs_destroy(d.value)
resource.setrlimit(resource.RLIMIT_AS, saved_limit)
report(6, "reduce_sum of 2^52 broadcast elements on the CPU (8 TiB of partial sums): a status, not an abort",
       status == errors.Status.OUT_OF_MEMORY and out_buf[0] == 7, detail + " (the process is still running)")

# 7. Strides whose extent x stride x itemsize overflows int64.
d = ctypes.c_void_p()
status = create(ctypes.byref(d), ctypes.byref(layout([3], [2**62])), ctypes.byref(layout([3], [1])), 0.0)
report(7, "relu descriptor with y shape [3] strides [2^62]", status == errors.Status.BAD_STRIDES,
       "status %d: %s" % (status, lib.oprt_last_error().decode()))

# 8. Invalid enum values.
status = create(ctypes.byref(d), ctypes.byref(layout([3], [1], 77)), ctypes.byref(layout([3], [1], 77)), 0.0)
detail = "status %d: %s" % (status, lib.oprt_last_error().decode())
backend_status = lib.oprt_set_backend(77)
report(8, "layout with dtype 77 (and oprt_set_backend(77))",
       status == errors.Status.BAD_DTYPE and backend_status == errors.Status.INVALID_ARGUMENT,
       detail + " | set_backend(77): status %d: %s" % (backend_status, lib.oprt_last_error().decode()))

# 9. Axis arguments.
m = np.ones((2, 3), np.float32)
texts = [outcome(lambda: oprt.softmax(m, axis=2**32)), outcome(lambda: oprt.reduce_sum(m, axis=1.7))]
report(9, "softmax(x, axis=2**32), reduce_sum(x, axis=1.7)",
       "InvalidArgumentError" in texts[0] and "TypeError" in texts[1], " | ".join(texts))

# 10. Unaligned numpy arrays.
raw = np.zeros(4 * 6 + 1, np.uint8)
unaligned = raw[1:].view(np.float32)
unaligned[:] = np.arange(6) - 3
res = oprt.relu(unaligned)
out_raw = np.zeros(4 * 6 + 1, np.uint8)
out_unaligned = out_raw[1:].view(np.float32)
oprt.relu(unaligned, out=out_unaligned)
report(10, "relu of, and into, arrays at odd addresses (staged through aligned copies)",
       np.array_equal(res, np.maximum(unaligned, 0)) and np.array_equal(out_unaligned, res),
       "result %s" % res)

# 11. Slope precision, list out=, half rounding, _Buffer after a failed malloc.
slope = oprt.relu(-np.ones(1), 0.1)[0]
texts = outcome(lambda: oprt.relu(x, out=[0.0] * 6))
h = oprt.reduce_sum(np.array([1, 2**-11, 2**-24], np.float16))
report(11, "f64 leaky slope 0.1; out= a list; f16 reduce_sum([1, 2^-11, 2^-24]); Tensor.empty beyond memory",
       slope == -0.1 and "InvalidArgumentError" in texts and h == np.float16(1.001),
       "slope gives %r; list out: %s; f16 sum %r; huge Tensor: %s" % (
           slope, texts, h, outcome(lambda: oprt.Tensor.empty((2**40,), np.float64))))

# 12. Workspaces across streams (H200 only).
try:
    import torch

    cuda = torch.cuda.is_available() and "nvidia" in oprt.available_backends()
except ImportError:
    cuda = False
if cuda:
    xs = [torch.randn(16 * 2**20 + 7, device="cuda") for _ in range(6)]
    ss = [torch.randn(8, 262144, device="cuda", dtype=torch.float16) for _ in range(6)]
    sums = [x.double().sum().item() for x in xs]
    soft = [torch.softmax(s.float(), -1) for s in ss]
    bad = [0] * 6

    def work(i):
        stream = torch.cuda.Stream()
        with oprt.backend("nvidia"), torch.cuda.stream(stream):
            for _ in range(40):
                out = torch.empty((), device="cuda")
                oprt.reduce_sum(xs[i], out=out)
                sm = oprt.softmax(ss[i], axis=-1)
                stream.synchronize()
                bad[i] += abs(out.item() - sums[i]) > 1e-3 * (1 + abs(sums[i]))
                bad[i] += not torch.allclose(sm.float(), soft[i], atol=2e-3, rtol=1e-2)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    report(12, "6 threads, each on its own torch stream: reduce_sum of 16M (two-phase) and softmax of 8x262144 (split)",
           sum(bad) == 0, "%d wrong of 480" % sum(bad))
else:
    print("12. workspaces across streams: needs torch with CUDA and the CUDA wheel (see bench/results/h200-*)")

# 13. Backend choice per thread.
seen = {}
oprt.set_backend("cpu")


def other():
    seen["c"] = lib.oprt_get_backend()
    seen["py"] = oprt.get_backend()


t = threading.Thread(target=other)
with oprt.backend("cpu"):
    t.start()
    t.join()
report(13, "a backend chosen in one thread (with oprt.backend / oprt_set_backend) is not another's",
       seen == {"c": 0, "py": "cpu"}, "the other thread sees %s" % seen)
sys.exit(failures)
