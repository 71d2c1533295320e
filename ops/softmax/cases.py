"""softmax and log_softmax cases: correctness (CASES, reference, tolerance) and benchmark shapes
(BENCH_CASES, bytes_moved), shared by test_softmax.py, tools/run_ops and the benchmark.
The attribute `log` picks log_softmax."""

import numpy as np

import operator_runtime as oprt
from operator_runtime import testing
from operator_runtime.testing import BenchCase, Case

NAME = "softmax"


def op(x, out=None, axis=-1, log=False):
    return (oprt.log_softmax if log else oprt.softmax)(x, axis=axis, out=out)


def _stats(x, axis):
    """(x - max, exp(x - max), sum(exp(x - max))) along axis, float64, torch's special values."""
    m = np.max(x, axis=axis, keepdims=True)  # NaN if the slice has a NaN
    shifted = x - m  # -inf - -inf (an all -inf slice) and inf - inf are NaN
    e = np.exp(shifted)
    return shifted, e, np.sum(e, axis=axis, keepdims=True)


def reference(x, axis=-1, log=False):
    """softmax = exp(x - max) / sum(exp(x - max)); log_softmax = x - max - log(sum(exp(x - max))).
    A 0-d x is a slice of one element (axis 0 or -1)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return reference(x.reshape(1), 0, log).reshape(())
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        shifted, e, s = _stats(x, axis)
        return shifted - np.log(s) if log else e / s


# The standard calls of the cross-operator tests (tests/test_contract.py, tests/test_c_api.py): the last axis.
CONTRACTS = [
    testing.Contract("softmax", op, reference, attrs={"axis": -1}, c_attrs=(-1,)),
    testing.Contract("log_softmax", op, reference, attrs={"axis": -1, "log": True}, c_attrs=(-1,)),
]


def torch_reference(x, axis=-1, log=False):
    import torch

    return (torch.log_softmax if log else torch.softmax)(x, dim=axis)


def tolerance(case, inputs, dtype):
    """Each output depends on a sum over its slice: rtol grows with sqrt(slice length). log_softmax
    subtracts two rounded terms, so its atol grows with |x - max| + |log(sum)| (the cancellation)."""
    x = np.asarray(inputs[0]).astype(np.float64)
    axis = case.kwargs.get("axis", -1)
    n = x.shape[axis] if x.ndim else 1
    if not case.kwargs.get("log") or x.size == 0:
        return {"reduce_len": n}
    xs = x.reshape(1) if x.ndim == 0 else x
    with np.errstate(all="ignore"):
        shifted, _, s = _stats(xs, axis if x.ndim else 0)
        magnitude = np.abs(shifted) + np.abs(np.log(s)) + 1.0
    magnitude = np.nan_to_num(magnitude, nan=0.0, posinf=0.0).reshape(x.shape)  # only at non-finite results
    return {"reduce_len": n, "magnitude": magnitude}


def _attrs(axis, log):
    return (("axis", axis), ("log", log))


SCALE = 3.0  # spread of the logits: some exp() terms are tiny
LOGS = (False, True)

# (shape, axes): every case runs as softmax and log_softmax in every applicable input layout.
AXES = [
    ((), [0, -1]),
    ((0,), [-1]),
    ((3, 0), [0, 1]),  # an empty slice / no slices
    ((7, 1), [-1, 0]),
    ((33, 65), [-1, 0]),
    ((5, 7, 9), [0, 1, 2, -1, -2, -3]),  # every axis of a 3-D tensor
    ((2, 3, 4, 5), [1, -1]),
    ((2, 1, 3, 1, 2, 2, 1, 2), [2, -1]),
] + [((n,), [-1]) for n in testing.SIZES] + [((3, n), [-1]) for n in (31, 1023, 1024, 1025, 4097)] + [
    ((5, n), [-1]) for n in (1032, 2056, 4088)  # rows of packs that do not fill the block-register tier's threads
]


def _axis_cases():
    out = []
    for shape, axes in AXES:
        for axis in axes:
            out += testing.shape_cases([shape], attrs_list=[_attrs(axis, log) for log in LOGS], scale=SCALE)
    return out


CASES = (
    _axis_cases()
    + [Case(shapes=((33, 65),), layouts=(lay,), out=o, attrs=_attrs(a, log), scale=SCALE)
       for lay in ("contiguous", "transposed") for o in testing.OUT_LAYOUTS for a in (-1, 0) for log in LOGS]
    + [Case(shapes=((33, 65),), out=0, attrs=_attrs(-1, log), scale=SCALE) for log in LOGS]
    + [Case(shapes=((33, 65),), layouts=("transposed",), out=0, attrs=_attrs(-1, log), scale=SCALE) for log in LOGS]
    + [Case(shapes=((5, 7, 9),), layouts=("sliced",), out=0, attrs=_attrs(1, log), scale=SCALE) for log in LOGS]
    + [Case(shapes=((64, 33),), layouts=(lay,), fill="specials", attrs=_attrs(a, log), scale=SCALE)
       for lay in ("contiguous", "transposed") for a in (-1, 0) for log in LOGS]
    + [Case(shapes=((40, n),), fill="specials", attrs=_attrs(-1, log), scale=SCALE) for n in (1024, 2048, 4096)
       for log in LOGS]
    + [  # long rows and big inputs
        Case(shapes=((2, 262144),), attrs=_attrs(-1, log), scale=SCALE) for log in LOGS
    ] + [
        Case(shapes=((1024, 4096),), attrs=_attrs(-1, False), scale=SCALE),
        Case(shapes=((4096, 1024),), attrs=_attrs(0, True), scale=SCALE, dtypes=("float32", "float16")),
        Case(shapes=((16, 262144),), attrs=_attrs(-1, False), scale=SCALE, device_only=True),
        Case(shapes=((16, 262144),), attrs=_attrs(-1, True), scale=SCALE, device_only=True),
        Case(shapes=((4, 1 << 20),), attrs=_attrs(-1, False), scale=SCALE, device_only=True, dtypes=("float32", "bfloat16")),
        Case(shapes=((8192, 8192),), attrs=_attrs(-1, False), scale=SCALE, device_only=True, dtypes=("float16",)),
    ] + [  # few long rows, with special values too. On NVIDIA (H200), f16/bf16/f32: the grid tier (parts of
        # 8192 in co-resident blocks) for 20x5000 and 40x4097 (a block per row), 3x300001 (odd: unpacked),
        # 1x1048576 and 16x262144 (f32; half types take 16-block clusters, below); the cluster tier (8 blocks per
        # row) for 128x131072 (whole parts) and
        # 40x122887 (unpacked, a short last part; too many parts for the grid tier's 528 resident blocks)
        Case(shapes=(s,), attrs=_attrs(-1, log), fill=fill, scale=SCALE, device_only=True)
        for s in ((20, 5000), (40, 4097), (3, 300001), (128, 131072)) for log in LOGS for fill in ("normal", "specials")
    ] + [
        Case(shapes=(s,), attrs=_attrs(-1, log), scale=SCALE, device_only=True, dtypes=dtypes)
        for s, dtypes in (((1, 1 << 20), testing.DTYPES), ((40, 122887), ("float32", "float16"))) for log in LOGS
    ] + [  # half rows of 9 to 16 parts of 16384: clusters of 16 blocks on NVIDIA (sm_90, where the device runs
        # them; f32 and f64 take the grid or split tier): full parts with special values (16x262144), a short
        # last part (12x250000), unpacked (9x200003: odd)
        Case(shapes=(s,), attrs=_attrs(-1, log), fill=fill, scale=SCALE, device_only=True)
        for s, fill in (((16, 262144), "specials"), ((12, 250000), "normal"), ((9, 200003), "normal")) for log in LOGS
    ] + [  # f64 in whole parts of the 8-block cluster tier (parts of 8192 doubles; too many for the grid tier)
        Case(shapes=((40, 65536),), attrs=_attrs(-1, log), scale=SCALE, device_only=True, dtypes=("float64",))
        for log in LOGS
    ] + [  # a non-last axis in 16-byte packs: the cluster column tier on NVIDIA (sm_90; clusters of 1, 2, 4
        # and 8 blocks on an H200: 40x25600 takes 1, 96x64 4), tiles past inner's end, narrow tiles (inner 16:
        # 2 or 4 lanes), outer > 1, special values (dim 96 and 64 leave some columns without a NaN), in place
        Case(shapes=(s,), attrs=_attrs(a, log), fill=fill, scale=SCALE)
        for s, a in (((96, 64), 0), ((3, 64, 40), 1), ((600, 72), 0), ((2, 1100, 64), 1), ((2, 300, 16), 1),
                     ((40, 25600), 0))
        for log in LOGS for fill in ("normal", "specials")
    ] + [Case(shapes=((600, 72),), out=0, attrs=_attrs(0, log), scale=SCALE) for log in LOGS] + [
        # the lab's 4096x4096 tiles: 8 blocks of 16 packs per thread (log_softmax: 4096x1024 above)
        Case(shapes=((4096, 512),), attrs=_attrs(0, False), scale=SCALE, dtypes=("float32", "float16", "bfloat16")),
    ] + [  # rows of 8-32 KiB that fill the SMs (133 > the H100's and H200's 132): on NVIDIA all in the
        # shared-memory tier by cp.async, 4104 half and 4100 f32 columns and half 8200 with a tail past the 128
        # threads (1026 and 1025 packs); on MACA 6144 columns and 4100 / 4104 in the shared-memory tier, f32
        # 8192 and half 8200 and 16384 in the block-register tier
        Case(shapes=(s,), attrs=_attrs(-1, log), fill=fill, scale=SCALE, device_only=True, dtypes=dtypes)
        for s, dtypes in (((133, 6144), ("float16", "bfloat16", "float32")), ((133, 8192), ("float32",)),
                          ((133, 4100), ("float32",)), ((133, 4104), ("float16", "bfloat16")),
                          ((133, 8200), ("float16", "bfloat16")), ((133, 16384), ("float16", "bfloat16")))
        for log, fill in ((False, "normal"), (True, "normal"), (False, "specials"))
    ] + [  # in place through the cp.async tier on NVIDIA (f32 16 KiB, half 8 KiB rows and past them)
        Case(shapes=((133, 4104),), out=0, attrs=_attrs(-1, log), scale=SCALE, device_only=True) for log in LOGS
    ]
)

# Benchmark shapes (softmax over the last axis). 4096x4096 in f16/bf16 (32 MB) fits the ~60 MB L2: the
# benchmark must flush L2 (or rotate buffers) between iterations for it.

# Many short rows (a block of the tile tier holds 2 to 128 rows, a group of the warp tier several): row counts
# that leave a tail in every tile and group size (37, 301) and none (256: full tiles, the tile tier's unmasked
# kernel where rows are a power of two packs), rows of 1 to 65 packs, in place, special values.
CASES += [Case(shapes=((r, n),), out=o, attrs=_attrs(-1, log), scale=SCALE)
          for n in (4, 8, 16, 128, 136, 512, 520) for r in (37, 256, 301) for o in (None, 0) for log in LOGS]
CASES += [Case(shapes=((r, n),), fill="specials", attrs=_attrs(-1, log), scale=SCALE)
          for r in (256, 301) for n in (128, 512) for log in LOGS]

BENCH_CASES = [BenchCase(shapes=(s,), dtype=d, attrs=(("axis", -1),))
               for s in ((4096, 4096), (8192, 8192), (32768, 1024), (128, 131072), (16, 262144))
               for d in ("float16", "bfloat16", "float32")] + [
    # softmax along a non-last axis (a strided reduction) and log_softmax: `run_ops --op log_softmax`,
    # `--cases axis=0` select them.
    BenchCase(shapes=(s,), dtype=d, attrs=(("axis", 0),))
    for s in ((4096, 4096), (1024, 32768)) for d in ("float16", "float32")] + [
    BenchCase(shapes=(s,), dtype=d, attrs=(("axis", -1), ("log", True)))
    for s in ((4096, 4096), (32768, 1024)) for d in ("float16", "float32")]


def bytes_moved(case: BenchCase) -> int:
    """x read once, y written once (what a single-pass kernel moves)."""
    return 2 * case.numel * testing.np_dtype(case.dtype).itemsize
