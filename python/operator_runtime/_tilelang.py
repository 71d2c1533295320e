"""The tilelang backend: every public op as a TileLang kernel (ops/<op>/tilelang/kernel.py), run from Python.

It is not a backend of the C library: it has no C id of its own, no C descriptors and no workspaces. What it
shares with the other backends is everything before the kernel:
  * selection: `oprt.set_backend("tilelang")`, `with oprt.backend("tilelang")`, `backend="tilelang"` per call
    (_backends knows it as a Python backend; _dispatch hands its calls to run() below);
  * validation: run() creates (and caches) a C descriptor for the same layouts and attributes on the cpu
    backend, so dtypes, shapes, broadcasting, axes, overlap and rank are checked by the same C code and raise
    the same typed OprtErrors; placement is checked here (CUDA tensors only, as on nvidia);
  * memory: its tensors are CUDA tensors: torch / cupy CUDA tensors and oprt.Tensors on nvidia (what
    `with oprt.backend("tilelang"): oprt.Tensor.from_numpy(a)` allocates), viewed as torch tensors (DLPack,
    no copy), since tilelang's compiled kernels take torch tensors. Kernels run on torch's current stream.

Each op's launcher (ops/<op>/tilelang/launcher.py) compiles a kernel per shape class (dtype, index width,
variant such as "row fits one tile") with dynamic sizes, so a repeated call, or a call of another size of the
same class, costs no compile; compiled kernels are kept in KERNELS (kernel_cache_info() counts them).

Available only where tilelang imports, a CUDA GPU is present (torch.cuda.is_available()) and the kernels
(the ops/ tree of a source checkout, on sys.path) import; elsewhere selecting it raises one
BackendUnavailableError saying which of these is missing.

TileLang from a source tree (e.g. the MetaX build of TileLang): OPRT_TILELANG_SOURCE_ROOT=<tree> puts <tree>
first on sys.path and its build/lib (or lib) on LD_LIBRARY_PATH / TVM_LIBRARY_PATH before tilelang is
imported (the camp's CAMP_TILELANG_SOURCE_ROOT). Not run here: we have no MetaX machine.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import pathlib
import sys
import threading
import time

from . import _backends as _backend
from .errors import BackendUnavailableError, InvalidArgumentError, NotSupportedError
from .tensor import Tensor, describe

NAME = "tilelang"
SOURCE_ROOT_ENV = "OPRT_TILELANG_SOURCE_ROOT"

LAUNCHER_GLOB = "tilelang/launcher.py"  # under each op's folder; its OPS names the C operators it runs

_state = {}  # "reason": why it is unavailable ("" when available), "torch", "tilelang"
_lock = threading.Lock()


def _use_source_root() -> None:
    root = os.environ.get(SOURCE_ROOT_ENV)
    if not root:
        return
    root = os.path.abspath(root)
    if root not in sys.path:
        sys.path.insert(0, root)
    for sub in ("build/lib", "build", "lib"):
        lib_dir = os.path.join(root, sub)
        if os.path.isdir(lib_dir):
            for var in ("LD_LIBRARY_PATH", "TVM_LIBRARY_PATH"):
                paths = [p for p in os.environ.get(var, "").split(os.pathsep) if p]
                if lib_dir not in paths:
                    os.environ[var] = os.pathsep.join([lib_dir] + paths)
            break


def unavailable_reason(full: bool = True) -> str:
    """"" when the backend is usable here, else what is missing. full=False (available_backends) only looks
    for tilelang and the kernels without importing them (importing tilelang takes seconds); full=True
    (selecting the backend, a call) imports them. Each answer is computed once per process."""
    key = "reason" if full else "light"
    with _lock:
        if key not in _state:
            _state[key] = _check(full)
            if full:
                _state["light"] = _state[key]
        return _state[key]


def _check(full: bool) -> str:
    _use_source_root()
    if "reason" in _state:
        return _state["reason"]
    try:
        import torch
    except Exception as e:  # noqa: BLE001 (any import failure means: not usable)
        return "torch is not importable (%s: %s); tilelang's kernels take torch CUDA tensors" % (type(e).__name__, e)
    if not torch.cuda.is_available():
        return "no CUDA GPU is usable here (torch.cuda.is_available() is False)"
    missing_tilelang = ("tilelang is not importable (%s); install it with `pip install tilelang` (the optional "
                        "dependency operator_runtime[tilelang]) or point " + SOURCE_ROOT_ENV + " at a TileLang "
                        "source tree")
    missing_kernels = ("the TileLang kernels (ops/<op>/tilelang of the source checkout) are not importable (%s); "
                       "run from the repository root or put it on PYTHONPATH")
    if not full:
        from importlib.util import find_spec

        if find_spec("tilelang") is None:
            return missing_tilelang % "no module named 'tilelang'"
        return "" if launcher_modules() else missing_kernels % ("no ops/**/%s on sys.path" % LAUNCHER_GLOB)
    try:
        import tilelang  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return missing_tilelang % ("%s: %s" % (type(e).__name__, e))
    try:
        if not launchers():
            return missing_kernels % ("no ops/**/%s on sys.path" % LAUNCHER_GLOB)
    except Exception as e:  # noqa: BLE001
        return missing_kernels % ("%s: %s" % (type(e).__name__, e))
    _state["torch"] = torch
    return ""


def launcher_modules() -> list:
    """The module names of every op folder's TileLang launcher (ops/**/tilelang/launcher.py), found on the
    `ops` package's path without importing them."""
    from importlib.util import find_spec

    try:
        spec = find_spec("ops")
    except ImportError:
        return []
    found = []
    for root in (spec.submodule_search_locations or []) if spec else []:
        for path in sorted(pathlib.Path(root).rglob(LAUNCHER_GLOB)):
            found.append(".".join(("ops",) + path.relative_to(root).with_suffix("").parts))
    return found


def launchers() -> dict:
    """C operator name -> its imported launcher module, from each launcher's OPS (imported once)."""
    if "launchers" not in _state:
        table = {}
        for name in launcher_modules():
            module = importlib.import_module(name)
            table.update((op_name, module) for op_name in module.OPS)
        _state["launchers"] = table
    return _state["launchers"]


def available() -> bool:
    """Whether the backend looks usable here (tilelang installed, a CUDA GPU, the kernels on the path),
    without importing tilelang; require() imports it."""
    return not unavailable_reason(full=False)


def require() -> None:
    """BackendUnavailableError naming what is missing, unless the backend is usable here."""
    reason = unavailable_reason()
    if reason:
        raise BackendUnavailableError("backend 'tilelang' is not usable here: " + reason)


# ------------------------------------------------------------------------------------------ kernels

KERNELS = {}  # (op, shape class...) -> compiled tilelang kernel
COMPILE_SECONDS = {}  # the same keys -> seconds its compile took
_compile_lock = threading.Lock()


def target() -> str:
    """TileLang's target: $OPRT_TILELANG_TARGET, else "auto" (tilelang picks the GPU it finds)."""
    return os.environ.get("OPRT_TILELANG_TARGET", "auto")


def kernel(key: tuple, build):
    """The compiled kernel of `key`, compiling build() (a TileLang prim_func) on the first call only."""
    k = KERNELS.get(key)
    if k is not None:
        return k
    with _compile_lock:
        k = KERNELS.get(key)
        if k is None:
            import tilelang

            start = time.perf_counter()
            k = tilelang.compile(build(), target=target(), execution_backend=os.environ.get("OPRT_TILELANG_EXEC"))
            COMPILE_SECONDS[key] = time.perf_counter() - start
            KERNELS[key] = k
    return k


def _variant_list():
    out = []
    for module in sorted({m.__name__ for m in launchers().values()}):
        out += [(module, i) for i, _ in enumerate(importlib.import_module(module).variants())]
    return out


def _compile_variant(item):
    module, index = item
    key, build = list(importlib.import_module(module).variants())[index]
    start = time.perf_counter()
    kernel(key, build)
    return key, time.perf_counter() - start


def warm(processes: int = 0) -> dict:
    """Compiles every kernel variant of every op ahead of use, in `processes` worker processes (0: one per
    CPU), so that tilelang's disk cache ($TILELANG_CACHE_DIR, default ~/.tilelang/cache) holds them all and
    a later process's first calls only load them. Returns {key: compile seconds}."""
    require()
    items = _variant_list()
    if processes == 1:
        return dict(_compile_variant(i) for i in items)
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes or os.cpu_count()) as pool:
        return dict(pool.map(_compile_variant, items, chunksize=1))


def kernel_cache_info() -> dict:
    """{"kernels": how many are compiled, "compile_seconds": their total compile time}."""
    return {"kernels": len(KERNELS), "compile_seconds": sum(COMPILE_SECONDS.values())}


# ------------------------------------------------------------------------------------------ calls

_DTYPES = {0: "float32", 1: "float16", 2: "bfloat16", 3: "float64"}
_ITEMSIZE = {0: 4, 1: 2, 2: 2, 3: 8}
_validated = {}  # op name -> {layout key: True}; a C descriptor was created for it on cpu (then destroyed)


def _check_placement(views, names) -> None:
    """CUDA tensors only (as the nvidia backend): host arrays and tensors of other backends are refused."""
    for k, v in enumerate(views):
        name = names[k] if k < len(names) else "a tensor"
        if not v.device:
            raise InvalidArgumentError("the tilelang backend takes CUDA tensors (torch / cupy CUDA tensors, "
                                       "oprt.Tensor on nvidia); %s is %s" % (name, describe(v)))
        if isinstance(v.obj, Tensor) and v.obj.backend != "nvidia":
            raise InvalidArgumentError("%s lives on backend %r; the tilelang backend takes CUDA memory (nvidia)"
                                       % (name, v.obj.backend))


def _validate(op, views, attrs) -> None:
    """The other backends' checks, from the same C code: a descriptor for these layouts on cpu (cached)."""
    from ._dispatch import make_layout

    seen = _validated.setdefault(op.name, {})
    key = (attrs,) + tuple((v.dtype, v.shape, v.strides) for v in views)
    if key in seen:
        return
    desc = ctypes.c_void_p()
    layouts = [make_layout(v) for v in views]
    with _backend.on(_backend.CPU):
        op._check(op._create(ctypes.byref(desc), *[ctypes.byref(l) for l in layouts], *attrs))
    op._destroy(desc.value)
    if len(seen) > 4096:
        seen.clear()
    seen[key] = True


# The C library checks these at execution time, when it has the pointers (check_data and
# check_no_partial_overlap in ops/runtime/layout.cc); this backend never calls a C execute, so the same rules
# are applied here, in the same order with the same error types (a C entry point for them would let this go).
_NO_ALIAS = {"reduce_sum"}  # ops that cannot run in place (the others allow out to BE an input exactly)


def _span(v) -> int:
    if 0 in v.shape:
        return 0
    return (sum((n - 1) * s for n, s in zip(v.shape, v.strides)) + 1) * _ITEMSIZE[v.dtype]


def _same_layout(out, x) -> bool:
    """x, broadcast to out's dims, has out's shape and strides (strides of extent-1 dims ignored)."""
    if out.dtype != x.dtype or len(x.shape) > len(out.shape):
        return False
    k = len(out.shape) - len(x.shape)
    shape, strides = (1,) * k + tuple(x.shape), (0,) * k + tuple(x.strides)
    for n_out, s_out, n, s in zip(out.shape, out.strides, shape, strides):
        if n == 1 and n_out != 1:
            n, s = n_out, 0
        if n != n_out or (n_out != 1 and s != s_out):
            return False
    return True


def _check_data(op, views) -> None:
    from .errors import BadStridesError, NullPointerError

    names = op.names
    for k, v in enumerate(views):
        if 0 not in v.shape:
            if not v.ptr:
                raise NullPointerError("data pointer of %s is NULL" % names[k])
            if v.ptr % _ITEMSIZE[v.dtype]:
                raise InvalidArgumentError("data pointer of %s (%#x) is not aligned to its %d-byte elements"
                                           % (names[k], v.ptr, _ITEMSIZE[v.dtype]))
    out = views[0]
    alias = op.name not in _NO_ALIAS
    out_span = _span(out)
    for k in range(1, len(views)):
        x = views[k]
        x_span = _span(x)
        if not out_span or not x_span:
            continue
        if out.ptr + out_span <= x.ptr or x.ptr + x_span <= out.ptr:
            continue
        if alias and out.ptr == x.ptr and _same_layout(out, x):
            continue
        raise BadStridesError("%s overlaps %s in memory%s" % (
            names[0], names[k], " without being exactly the same tensor (only exact in-place aliasing is allowed)"
            if alias else " (this operator cannot run in place)"))


def as_torch(view):
    """A torch CUDA tensor sharing the memory of a validated device view (same shape and strides)."""
    torch = _state["torch"]
    obj = view.obj[0] if isinstance(view.obj, tuple) else view.obj
    if isinstance(obj, torch.Tensor):
        return obj
    if isinstance(obj, Tensor):
        from .tensor import _dlpack_capsule

        return torch.utils.dlpack.from_dlpack(_dlpack_capsule(obj))  # no device sync (what __dlpack__ adds)
    if hasattr(obj, "__dlpack__"):
        return torch.from_dlpack(obj)
    return torch.as_tensor(obj, device="cuda")  # __cuda_array_interface__


def run(op, out, views, attrs, impl=None):
    """One op call on tilelang: views are [out, inputs...] (already viewed by _dispatch)."""
    require()
    _check_placement(views, op.names)
    if impl is not None:
        raise NotSupportedError("the tilelang backend has one kernel per op; no variant %r" % impl)
    _validate(op, views, attrs)  # layouts and attributes, by the C library
    for v in views:
        if v.dtype not in _DTYPES:
            raise NotSupportedError("dtype code %d is not supported by the tilelang backend" % v.dtype)
    _check_data(op, views)  # pointers: NULL, alignment, partial overlap of out with an input
    tensors = [as_torch(v) for v in views]
    launcher = launchers().get(op.name)
    if launcher is None:
        raise NotSupportedError("%s has no TileLang kernel: its folder has no %s" % (op.name, LAUNCHER_GLOB))
    launcher.launch(op.name, tensors[0], tensors[1:], attrs)
    return out


# ------------------------------------------------------------------------------------------ launcher helpers
# The launchers (ops/<op>/tilelang/launcher.py) give their kernels dense buffers. What is dense already is
# passed as it is (no copy); what is not (a strided view, a broadcast operand the kernel has no mode for, a
# softmax axis that is not the last) is copied to a dense buffer by torch first, and a result whose out= is
# not dense is computed into a dense buffer and copied into out= afterwards. Those copies are part of the
# call (the benchmark times the whole call).

VECTOR_BYTES = 16
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}


def dtype_vector_widths():
    """(dtype, elements per load) of every kernel class a launcher compiles: each dtype with 16-byte vectors and
    with single elements (what vector_width picks between). The launchers' variants() are built on it."""
    for dtype in ITEMSIZE:
        for vec in sorted({VECTOR_BYTES // ITEMSIZE[dtype], 1}):
            yield dtype, vec


def vec_of(dtype) -> int:
    """Elements per 16-byte vector of a torch dtype."""
    return VECTOR_BYTES // dtype.itemsize


def dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def acc_name(dtype) -> str:
    """The accumulation / compute type: float64 for float64, float32 for the rest."""
    return "float64" if dtype_name(dtype) == "float64" else "float32"


def aligned(*tensors) -> bool:
    return all(t.data_ptr() % VECTOR_BYTES == 0 for t in tensors)


def same_dense_storage(tensors) -> bool:
    """Every tensor has the same shape and strides, non-overlapping and dense (a permutation of a
    contiguous layout): an elementwise op may run over their storage as flat vectors."""
    t0 = tensors[0]
    return all(t.shape == t0.shape and t.stride() == t0.stride() for t in tensors) and non_overlapping_and_dense(t0)


def non_overlapping_and_dense(t) -> bool:
    """t's elements fill its memory span exactly once (some permutation of a contiguous layout)."""
    step = 1
    dims = sorted(((s, n) for n, s in zip(t.shape, t.stride()) if n != 1))
    for s, n in dims:
        if s != step:
            return False
        step *= n
    return True


def flat(t):
    """The storage of a non-overlapping dense tensor as a 1-D tensor, in memory order."""
    return t.as_strided((t.numel(),), (1,), t.storage_offset())


def dense(t, shape=None):
    """t broadcast to `shape` (default: its own) as a contiguous tensor: t itself when it is one, else a copy."""
    if shape is not None and tuple(t.shape) != tuple(shape):
        t = t.expand(tuple(shape))
    return t if t.is_contiguous() else t.contiguous()


def output_buffer(out):
    """(a contiguous tensor to write, the out to copy it into afterwards or None)."""
    if out.is_contiguous():
        return out, None
    return _state["torch"].empty(out.shape, dtype=out.dtype, device=out.device), out


def unary_buffers(out, x):
    """(src, dst, after) of an elementwise op from x into out, as dense 1-D tensors: x and out of the same dense
    storage (in place included) run over it; otherwise x is made dense (broadcast to out's shape) and the kernel
    writes a dense buffer that finish(dst, after) copies into a strided out."""
    if same_dense_storage([out, x]):
        return flat(x), flat(out), None
    buffer, after = output_buffer(out)
    return dense(x, out.shape).reshape(-1), buffer.view(-1), after


def vector_width(n: int, *tensors) -> int:
    """Elements per load of a kernel over n elements of these tensors: a 16-byte vector when n is a multiple
    of it and every tensor is 16-byte aligned, else 1."""
    vec = vec_of(tensors[0].dtype)
    return vec if n % vec == 0 and aligned(*tensors) else 1


def finish(buffer, out_after) -> None:
    if out_after is not None:
        out_after.copy_(buffer.view(out_after.shape))


_sm_count = []


def sm_count() -> int:
    if not _sm_count:
        torch = _state["torch"]
        _sm_count.append(torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count)
    return _sm_count[0]
