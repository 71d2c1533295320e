#!/usr/bin/env python3
"""Lab softmax_long: softmax over the last axis of few, very long rows (128x131072, 16x262144, 1x1048576;
log_softmax 128x131072) on the H200, where QuACK leads. The candidates are described at the top of
softmax_long.cu; this script launches each on each row and dtype, checks it against torch (float64), checks
that a second launch gives the same bits, times it (lab.time_us: CUPTI device time, L2 flushed) and
prints it next to the best peer and our recorded number.

    cd bench/lab && python3 softmax_long.py            # on the GPU machine (cubin built by build.sh)
    python3 softmax_long.py --dry                      # anywhere: launch configurations and their arithmetic
    python3 softmax_long.py --only tma,lib             # candidates whose name contains one of these

lib_* reproduce the library's current kernels (calibration against recorded_ours): 128x131072 runs
lib_cluster8 today, 16x262144 and 1x1048576 run lib_split (16 rows x 8 blocks < 132 SMs, so the
dispatcher skips the cluster tier there; lib_cluster8 is timed on 16x262144 for information).
"""

import ctypes
import os
import pathlib
import sys
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

NAME = "softmax_long"
NAME_SUFFIX = ""
DRY = "--dry" in sys.argv
ONLY = None
if "--only" in sys.argv:
    ONLY = sys.argv[sys.argv.index("--only") + 1].split(",")

ITEM = {"float16": 2, "bfloat16": 2, "float32": 4}
SFX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
DTYPES = ["float16", "bfloat16", "float32"]
SMEM_OPTIN = 232448          # cudaDevAttrMaxSharedMemoryPerBlockOptin on the H100/H200
SMEM_PER_SM = 233472         # 228 KiB, 1 KiB of it reserved per block
STATIC_SMEM_MAX = 6 * 1024   # every kernel's static shared memory is below this (cuobjdump -res-usage: <= 5248)
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14  # cuda.h (CUDA 13)


def ceil_div(a, b):
    return -(-a // b)


class I32(int):
    pass


class I64(int):
    pass


class Launch:
    """One kernel launch: args are buffer names ('x', 'y', 'err', 'ws', 'counters', 'stats') or I32/I64."""

    def __init__(self, kernel, grid, block, shared=0, args=(), cluster=1, coop=False, min_blocks=1, ex=False):
        self.kernel, self.grid, self.block, self.shared, self.args = kernel, grid, block, shared, args
        self.cluster, self.coop, self.min_blocks = cluster, coop, min_blocks
        self.ex = ex  # cuLaunchKernelEx with a cluster-dimension attribute (the library's way), not __cluster_dims__

    def describe(self):
        return "%s grid=%d block=%d cluster=%d shared=%d%s" % (
            self.kernel, self.grid, self.block, self.cluster, self.shared, " cooperative" if self.coop else "")


class Plan:
    def __init__(self, launches, buffers=None, note=""):
        self.launches, self.buffers, self.note = launches, buffers or {}, note


class Skip(Exception):
    pass


# ---- the candidates: (rows, cols, dtype, log, env) -> Plan ----

def lib_cluster8(rows, cols, dt, log, env):
    """cluster_rows.cuh as launched by kernel.cuh: 8 blocks of 256 per row, the part in shared memory."""
    p = 16 // ITEM[dt]
    chunk = ceil_div(ceil_div(cols, 8), p) * p
    shared = chunk * ITEM[dt]
    return Plan([Launch("lib_cluster8_" + SFX[dt], rows * 8, 256, shared,
                        ("x", "y", I64(cols), I64(chunk), I32(int(log))), cluster=8)],
                note="chunk %d" % chunk)


def lib_split(rows, cols, dt, log, env):
    """split_rows.cuh as launched by kernel.cuh (launch_rows_in_parts): choose_splits over a full wave."""
    p = 16 // ITEM[dt]
    stats_kernel = "lib_split_stats_" + SFX[dt]
    wave = env.sm_count * env.occupancy(stats_kernel, 256, 0, assumed=6)
    max_splits = max(1, cols // 2048)
    splits = 1 if (max_splits <= 1 or rows * 2 > wave) else min(max_splits, wave // rows)
    chunk = ceil_div(ceil_div(cols, splits), p) * p
    blocks = min(rows * splits, 8 * wave)
    stats = ("float32", rows * splits * 2)
    return Plan([Launch(stats_kernel, blocks, 256, 0, ("x", "stats", I64(rows), I64(cols), I64(splits), I64(chunk))),
                 Launch("lib_split_output_" + SFX[dt], blocks, 256, 0,
                        ("x", "y", "stats", I64(rows), I64(cols), I64(splits), I64(chunk), I32(int(log))))],
                buffers={"stats": stats}, note="wave %d, splits %d, chunk %d" % (wave, splits, chunk))


def creg(cl, threads, ept, base, min_blocks):
    def plan(rows, cols, dt, log, env):
        chunk = threads * ept
        if cols != cl * chunk:
            raise Skip("needs cols == %d * %d" % (cl, chunk))
        return Plan([Launch("%s_%s" % (base, SFX[dt]), rows * cl, threads, 0, ("x", "y", I64(cols), "err"),
                            cluster=cl, min_blocks=min_blocks)],
                    note="part %d, %d blocks" % (chunk, rows * cl))
    return plan


def tma(cl, threads, ept, stages16, stages32, base, per_sm):
    def plan(rows, cols, dt, log, env):
        chunk = threads * ept
        if cols != cl * chunk:
            raise Skip("needs cols == %d * %d" % (cl, chunk))
        stages = stages16 if ITEM[dt] == 2 else stages32
        shared = stages * chunk * ITEM[dt]
        name = "%s_%s" % (base, SFX[dt])
        fallback = env.sm_count * per_sm // 8 * 8 // cl  # clusters if the query is unavailable (16 for cl 8)
        active = env.max_active_clusters(name, cl, threads, shared, assumed=fallback)
        clusters = min(rows, max(1, active))
        clusters = ceil_div(rows, ceil_div(rows, clusters))  # same makespan, rows spread evenly
        return Plan([Launch(name, clusters * cl, threads, shared, ("x", "y", I64(rows), I64(cols), "err"),
                            cluster=cl, min_blocks=per_sm)],
                    note="part %d, %d stages, %d clusters (%d active), %d rows each" % (
                        chunk, stages, clusters, active, ceil_div(rows, clusters)))
    return plan


def gx(threads, ept, parts, base, min_blocks):
    def plan(rows, cols, dt, log, env):
        p = 16 // ITEM[dt]
        chunk = ceil_div(ceil_div(cols, parts), p) * p
        if chunk > threads * ept:
            raise Skip("part %d > %d" % (chunk, threads * ept))
        g = ceil_div(cols, chunk)  # no empty blocks
        name = "%s_%s" % (base, SFX[dt])
        capacity = env.sm_count * env.occupancy(name, threads, 0, assumed=min_blocks)
        if rows * g > capacity:
            raise Skip("%d blocks > %d co-resident" % (rows * g, capacity))
        return Plan([Launch(name, rows * g, threads, 0,
                            ("x", "y", I64(cols), I32(g), I64(chunk), "ws", "counters", "err"),
                            coop=True, min_blocks=min_blocks)],
                    buffers={"ws": ("float32", rows * g * 2), "counters": ("int32", rows * 32)},
                    note="G %d, part %d, %d blocks of %d co-resident" % (g, chunk, rows * g, capacity))
    return plan


def cpa(cl, threads, ept, base, min_blocks):
    """creg with QuACK's loads (cp.async into shared memory, then registers): the part in dynamic shared memory."""
    def plan(rows, cols, dt, log, env):
        chunk = threads * ept
        if cols != cl * chunk:
            raise Skip("needs cols == %d * %d" % (cl, chunk))
        return Plan([Launch("%s_%s" % (base, SFX[dt]), rows * cl, threads, chunk * ITEM[dt], ("x", "y", I64(cols), "err"),
                            cluster=cl, min_blocks=min_blocks)],
                    note="part %d, %d blocks" % (chunk, rows * cl))
    return plan


def libc(cl, threads, values, base, min_blocks):
    """The library's cluster tier (cluster_rows.cuh, softmax_part_in_cluster) at a cluster / block shape."""
    def plan(rows, cols, dt, log, env):
        p = 16 // ITEM[dt]
        chunk = ceil_div(ceil_div(cols, cl), p) * p
        if chunk > threads * values:
            raise Skip("part %d > %d" % (chunk, threads * values))
        return Plan([Launch("%s_%s" % (base, SFX[dt]), rows * cl, threads, 0, ("x", "y", I64(cols), I64(chunk)),
                            cluster=cl, min_blocks=min_blocks)],
                    note="part %d, %d blocks" % (chunk, rows * cl))
    return plan


def libx(cl, threads, values, base, min_blocks):
    """libc without __cluster_dims__, launched as the library does: cuLaunchKernelEx, cluster attribute."""
    def plan(rows, cols, dt, log, env):
        p = libc(cl, threads, values, base, min_blocks)(rows, cols, dt, log, env)
        p.launches[0].ex = True
        return p
    return plan


SESSION6_128 = [
    ("creg8_t512", creg(8, 512, 32, "creg8_t512", 2)),
    ("creg8_t256", creg(8, 256, 64, "creg8_t256", 2)),
    ("cpa8_t256", cpa(8, 256, 64, "cpa8_t256", 2)),
    ("cpa8_t512", cpa(8, 512, 32, "cpa8_t512", 2)),
    ("libc8_t512", libc(8, 512, 32, "libc8_t512", 2)),
    ("libc8_t256", libc(8, 256, 64, "libc8_t256", 2)),
    ("libc8_t1024", libc(8, 1024, 16, "libc8_t1024", 1)),
    ("libx8_t512", libx(8, 512, 32, "libx8_t512", 2)),
]
SESSION6_LOG_128 = [
    ("creg8_t512", creg(8, 512, 32, "creg8_t512_log", 2)),
    ("libc8_t512", libc(8, 512, 32, "libc8_t512_log", 2)),
]
SESSION6_16 = [
    ("gx32_t256", gx(256, 32, 32, "gx_t256e32", 4)),
    ("creg16_t256", creg(16, 256, 64, "creg16_t256", 2)),
    ("cpa16_t256", cpa(16, 256, 64, "cpa16_t256", 2)),
    ("libc16_t256", libc(16, 256, 64, "libc16_t256", 2)),
    ("libc16_t512", libc(16, 512, 32, "libc16_t512", 2)),
    ("libx16_t512", libx(16, 512, 32, "libx16_t512", 2)),
]

SOFTMAX_128 = [
    ("lib_cluster8", lib_cluster8),
    ("creg8_t512", creg(8, 512, 32, "creg8_t512", 2)),
    ("tma8_t512", tma(8, 512, 32, 6, 3, "tma8_t512", 1)),
    ("tma8_t512_ns3", tma(8, 512, 32, 3, 2, "tma8_t512_ns3", 1)),
    ("tma8x2_t512", tma(8, 512, 32, 3, 1, "tma8x2_t512", 2)),
    ("tma16_t512", tma(16, 512, 16, 12, 6, "tma16_t512", 1)),
]
LOG_128 = [
    ("lib_cluster8", lib_cluster8),
    ("creg8_t512", creg(8, 512, 32, "creg8_t512_log", 2)),
    ("tma8_t512", tma(8, 512, 32, 6, 3, "tma8_t512_log", 1)),
    ("tma8x2_t512", tma(8, 512, 32, 3, 1, "tma8x2_t512_log", 2)),
]
SOFTMAX_16 = [
    ("lib_split", lib_split),
    ("lib_cluster8 (not dispatched)", lib_cluster8),
    ("creg8_t1024", creg(8, 1024, 32, "creg8_t1024", 1)),
    ("creg16_t512", creg(16, 512, 32, "creg16_t512", 2)),
    ("tma8_t1024", tma(8, 1024, 32, 1, 1, "tma8_t1024", 1)),
    ("gx8_t1024", gx(1024, 32, 8, "gx_t1024e32", 1)),
    ("gx16_t512", gx(512, 32, 16, "gx_t512e32", 2)),
    ("gx32_t256", gx(256, 32, 32, "gx_t256e32", 4)),
    ("gx33_t256", gx(256, 32, 33, "gx_t256e32", 4)),
]
SOFTMAX_1 = [
    ("lib_split", lib_split),
    ("gx64_t512", gx(512, 32, 64, "gx_t512e32", 2)),
    ("gx128_t256", gx(256, 32, 128, "gx_t256e32", 4)),
    ("gx132_t256", gx(256, 32, 132, "gx_t256e32", 4)),
    ("gx256_t256e16", gx(256, 16, 256, "gx_t256e16", 4)),
    ("gx264_t256e16", gx(256, 16, 264, "gx_t256e16", 4)),
]
# (op, label shown (h200-peers.json's label is the part before " log=True"), rows, cols, log, candidates)
ROWS = [
    ("softmax", "128x131072", 128, 131072, False, SOFTMAX_128),
    ("log_softmax", "128x131072 log=True", 128, 131072, True, LOG_128),
    ("softmax", "16x262144", 16, 262144, False, SOFTMAX_16),
    ("softmax", "1x1048576", 1, 1048576, False, SOFTMAX_1),
]
SESSION8_128 = [  # 3 blocks of 256 per SM (QuACK's occupancy) against the library's 2; half types only
    ("libc8_t256", libc(8, 256, 64, "libc8_t256", 2)),
    ("libc8_t256_b3", libc(8, 256, 64, "libc8_t256_b3", 3)),
    ("creg8_t256", creg(8, 256, 64, "creg8_t256", 2)),
    ("creg8_t256_b3", creg(8, 256, 64, "creg8_t256_b3", 3)),
    ("cpa8_t256", cpa(8, 256, 64, "cpa8_t256", 2)),
    ("cpa8_t256_b3", cpa(8, 256, 64, "cpa8_t256_b3", 3)),
]
if "--session8" in sys.argv:  # bench/results/lab/lab-softmax_long-session8.*
    NAME_SUFFIX = "-session8"
    DTYPES = ["float16", "bfloat16"]
    ROWS = [("softmax", "128x131072", 128, 131072, False, SESSION8_128)]


def for_dtypes(dtypes, plan):
    """A candidate compiled for `dtypes` only (the SESSION9 kernels: half types, or f32)."""
    def planned(rows, cols, dt, log, env):
        if dt not in dtypes:
            raise Skip("%s only" % " and ".join(dtypes))
        return plan(rows, cols, dt, log, env)
    return planned


def half_only(plan):
    return for_dtypes(("float16", "bfloat16"), plan)


SESSION9_16 = [  # 16-block clusters at QuACK's shape (3 blocks of 256 per SM; f32 the library's 512 x 32)
    ("gx32_t256", gx(256, 32, 32, "gx_t256e32", 4)),
    ("libc16_t256", half_only(libc(16, 256, 64, "libc16_t256", 2))),
    ("libc16_t256_b3", half_only(libc(16, 256, 64, "libc16_t256_b3", 3))),
    ("creg16_t256_b3", half_only(creg(16, 256, 64, "creg16_t256_b3", 3))),
    ("cpa16_t256_b3", half_only(cpa(16, 256, 64, "cpa16_t256_b3", 3))),
    ("libw16_t256_b3", half_only(libc(16, 256, 64, "libw16_t256_b3", 3))),
    ("libc16_t512", for_dtypes(("float32",), libc(16, 512, 32, "libc16_t512", 2))),
]
SESSION9_128 = [  # the library's kernel (libw: kWhole, no masks; the shapes here have whole parts) against libc
    ("libc8_t256_b3", libc(8, 256, 64, "libc8_t256_b3", 3)),
    ("libw8_t256_b3", libc(8, 256, 64, "libw8_t256_b3", 3)),  # whole parts here
    ("creg8_t256_b3", creg(8, 256, 64, "creg8_t256_b3", 3)),
]
if "--session9" in sys.argv:  # bench/results/lab/lab-softmax_long-session9.*
    NAME_SUFFIX = "-session9"
    DTYPES = ["float16", "bfloat16", "float32"]
    ROWS = [("softmax", "16x262144", 16, 262144, False, SESSION9_16),
            ("softmax", "128x131072", 128, 131072, False, [(n, half_only(c)) for n, c in SESSION9_128]),
            ("log_softmax", "16x262144 log=True", 16, 262144, True,
             [("libc16_t256_b3", half_only(libc(16, 256, 64, "libc16_t256_b3_log", 3)))])]
SESSION12_128 = [  # the library's kernel with base-2 stats for f16 (libw) and without (libn), against the lab's creg
    ("libw8_t256_b3", libc(8, 256, 64, "libw8_t256_b3", 3)),
    ("libn8_t256_b3", for_dtypes(("float16",), libc(8, 256, 64, "libn8_t256_b3", 3))),
    ("creg8_t256_b3", creg(8, 256, 64, "creg8_t256_b3", 3)),
]
SESSION12_16 = [
    ("libw16_t256_b3", libc(16, 256, 64, "libw16_t256_b3", 3)),
    ("libn16_t256_b3", for_dtypes(("float16",), libc(16, 256, 64, "libn16_t256_b3", 3))),
    ("creg16_t256_b3", creg(16, 256, 64, "creg16_t256_b3", 3)),
]
if "--session12" in sys.argv:  # bench/results/lab/lab-softmax_long-session12.*: each row's candidates twice, in turn
    NAME_SUFFIX = "-session12"
    DTYPES = ["float16", "bfloat16"]
    ROWS = [("softmax", "128x131072", 128, 131072, False, SESSION12_128 * 2),
            ("softmax", "16x262144", 16, 262144, False, SESSION12_16 * 2)]
SESSION13_128 = [  # creo: each pack (or group of 2 or 4) exponentiated as it lands; crep: the part held packed,
    # exponentiated twice; against creg and the library's kernel
    ("libw8_t256_b3", libc(8, 256, 64, "libw8_t256_b3", 3)),
    ("creg8_t256_b3", creg(8, 256, 64, "creg8_t256_b3", 3)),
    ("creo8_t256_b3", creg(8, 256, 64, "creo8_t256_b3", 3)),
    ("creo8g2_t256_b3", creg(8, 256, 64, "creo8g2_t256_b3", 3)),
    ("creo8g4_t256_b3", creg(8, 256, 64, "creo8g4_t256_b3", 3)),
    ("crep8_t256_b3", creg(8, 256, 64, "crep8_t256_b3", 3)),
    ("crep8_t256_b4", creg(8, 256, 64, "crep8_t256_b4", 4)),
]
SESSION13_16 = [
    ("libw16_t256_b3", libc(16, 256, 64, "libw16_t256_b3", 3)),
    ("creg16_t256_b3", creg(16, 256, 64, "creg16_t256_b3", 3)),
    ("creo16_t256_b3", creg(16, 256, 64, "creo16_t256_b3", 3)),
    ("creo16g2_t256_b3", creg(16, 256, 64, "creo16g2_t256_b3", 3)),
    ("crep16_t256_b4", creg(16, 256, 64, "crep16_t256_b4", 4)),
]
if "--session13" in sys.argv:  # bench/results/lab/lab-softmax_long-session13.*: each row's candidates twice, in turn
    NAME_SUFFIX = "-session13"
    DTYPES = ["float16", "bfloat16"]
    ROWS = [("softmax", "128x131072", 128, 131072, False, SESSION13_128 * 2),
            ("softmax", "16x262144", 16, 262144, False, SESSION13_16 * 2)]
if "--session13b" in sys.argv:  # crep at 4 blocks per SM with f16's max taken on packed halves (no spills), and
    # the library's port of it (libp: PackedPart)
    NAME_SUFFIX = "-session13b"
    DTYPES = ["float16", "bfloat16"]
    ROWS = [("softmax", "128x131072", 128, 131072, False,
             ([c for c in SESSION13_128 if c[0] in ("libw8_t256_b3", "creg8_t256_b3", "crep8_t256_b4")]
              + [("libp8_t256_b4", libc(8, 256, 64, "libp8_t256_b4", 4))]) * 3)]


def packed(name):
    """A 128x131072 candidate in clusters of 8 blocks of 256 threads, 64 values a thread, 4 blocks per SM: the lab's
    kernel (crep...) or the library's part (lib...)."""
    return (name, (creg if name.startswith("c") else libc)(8, 256, 64, name, 4))


def f16_long_row(*names):
    """Sessions 14 and 15: one 128x131072 row (f16; bf16 for --session15c), RegisterPart (libw) and the named packed candidates, three
    rounds in turn."""
    libw = [c for c in SESSION13_128 if c[0] == "libw8_t256_b3"]
    return [("softmax", "128x131072", 128, 131072, False, (libw + [packed(n) for n in names]) * 3)]


if "--session14" in sys.argv:  # f16 PackedPart: base-2 stats (libp) and natural ones (libpn, bf16's form), each
    # also with its mailbox opened after the loads (libpo, libpno), against RegisterPart (libw), the lab's crep and crep
    # with the library's evict-first loads (crepcs)
    NAME_SUFFIX = "-session14"
    DTYPES = ["float16"]
    ROWS = f16_long_row("crep8_t256_b4", "libp8_t256_b4", "libpn8_t256_b4", "crepcs8_t256_b4", "libpo8_t256_b4",
                        "libpno8_t256_b4")
if "--session14b" in sys.argv:  # bisecting crepcs against PackedPart: the library's part with the lab's exchange
    # (libpx, libpnx), and also with crep's store pass (libpxs)
    NAME_SUFFIX = "-session14b"
    DTYPES = ["float16"]
    ROWS = f16_long_row("crepcs8_t256_b4", "libp8_t256_b4", "libpx8_t256_b4", "libpn8_t256_b4", "libpnx8_t256_b4",
                        "libpxs8_t256_b4")
if "--session15" in sys.argv:  # the port's candidate: crepcs with the library's NaN rules (crepn: no spill either)
    NAME_SUFFIX = "-session15"
    DTYPES = ["float16"]
    ROWS = f16_long_row("crepcs8_t256_b4", "crepn8_t256_b4")
if "--session15b" in sys.argv:  # the library's PackedPart with its NaN in the sum (branch-free combine) and its
    # store addresses from element offsets (no spill) against crepcs, crepm (crepcs, NaN in the sum) and RegisterPart
    NAME_SUFFIX = "-session15b"
    DTYPES = ["float16"]
    ROWS = f16_long_row("crepcs8_t256_b4", "crepm8_t256_b4", "libp8_t256_b4")
if "--session15c" in sys.argv:  # the same PackedPart for bf16 (the library's bf16 kernel) against RegisterPart
    NAME_SUFFIX = "-session15c"
    DTYPES = ["bfloat16"]
    ROWS = f16_long_row("libp8_t256_b4")
if "--session15d" in sys.argv:  # 16x262144 half rows: the library's whole 16-block kernel (libw16) beside creg16;
    # run once per build (LAB_CUBIN=<name>: build/<name>.cubin), to compare two builds of the library
    NAME_SUFFIX = "-session15d"
    DTYPES = ["float16", "bfloat16"]
    ROWS = [("softmax", "16x262144", 16, 262144, False,
             [c for c in SESSION13_16 if c[0] in ("libw16_t256_b3", "creg16_t256_b3")] * 3)]
if "--session6" in sys.argv:  # the sixth session's candidates only (bench/results/lab/lab-softmax_long-session6.*)
    NAME_SUFFIX = "-session6"
    ROWS = [
        ("softmax", "128x131072", 128, 131072, False, SESSION6_128),
        ("log_softmax", "128x131072 log=True", 128, 131072, True, SESSION6_LOG_128),
        ("softmax", "16x262144", 16, 262144, False, SESSION6_16),
    ]


# ---- environment: the device (or the H200's numbers for --dry) ----

class DryEnv:
    sm_count = 132

    def occupancy(self, kernel, threads, shared, assumed):
        return assumed

    def max_active_clusters(self, kernel, cl, threads, shared, assumed):
        return assumed


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                ("numAttrs", ctypes.c_uint)]


class GpuEnv:
    def __init__(self, lab, torch, cupy):
        self.lab, self.torch, self.cupy = lab, torch, cupy
        self.module = lab.load(os.environ.get("LAB_CUBIN", NAME))  # another build of this lab, to compare
        self.kernels = {}
        self.sm_count = torch.cuda.get_device_properties(0).multi_processor_count
        try:
            self.libcuda = ctypes.CDLL("libcuda.so.1")
        except OSError:
            self.libcuda = None
        self.info = {}

    def kernel(self, name):
        if name not in self.kernels:
            self.kernels[name] = self.module.kernel(name)
        return self.kernels[name]

    @staticmethod
    def fptr(kernel):
        return kernel.function.kernel.ptr

    def prepare(self, kernel, launch):
        """Attributes a launch needs: the opt-in shared memory, non-portable cluster sizes."""
        if launch.shared > 0:
            kernel.set_max_dynamic_shared(launch.shared)
        if launch.cluster > 8:
            self.cupy.cuda.driver.funcSetAttribute(self.fptr(kernel), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)

    def occupancy(self, name, threads, shared, assumed):
        try:
            k = self.kernel(name)
            if shared > 0:
                k.set_max_dynamic_shared(shared)
            n = self.cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(self.fptr(k), threads, shared)
            self.info["occupancy %s/%d/%d" % (name, threads, shared)] = n
            return n
        except Exception as e:  # noqa: BLE001
            print("  occupancy query failed for %s (%s); assuming %d" % (name, e, assumed))
            return assumed

    def max_active_clusters(self, name, cl, threads, shared, assumed):
        if self.libcuda is None:
            return assumed
        try:
            k = self.kernel(name)
            self.prepare(k, Launch(name, cl, threads, shared, cluster=cl))
            config = CUlaunchConfig(cl * self.sm_count, 1, 1, threads, 1, 1, shared, None, None, 0)
            n = ctypes.c_int(0)
            rc = self.libcuda.cuOccupancyMaxActiveClusters(ctypes.byref(n), ctypes.c_void_p(self.fptr(k)),
                                                           ctypes.byref(config))
            if rc != 0 or n.value <= 0:
                print("  cuOccupancyMaxActiveClusters(%s) rc=%d n=%d; assuming %d" % (name, rc, n.value, assumed))
                return assumed
            self.info["max active clusters %s" % name] = n.value
            return n.value
        except Exception as e:  # noqa: BLE001
            print("  max active clusters query failed for %s (%s); assuming %d" % (name, e, assumed))
            return assumed

    def ex_launch(self, kernel, launch, values, stream):
        """cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4): how the library launches its cluster tier."""
        holders = [ctypes.c_uint64(v.data_ptr()) if isinstance(v, self.torch.Tensor) else
                   (ctypes.c_int32(int(v)) if isinstance(v, np.int32) else ctypes.c_int64(int(v))) for v in values]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])

        class Attribute(ctypes.Structure):
            _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("x", ctypes.c_uint), ("y", ctypes.c_uint),
                        ("z", ctypes.c_uint), ("rest", ctypes.c_char * 52)]
        attribute = Attribute(4, 0, launch.cluster, 1, 1)
        config = CUlaunchConfig(launch.grid, 1, 1, launch.block, 1, 1, launch.shared, ctypes.c_void_p(stream),
                                ctypes.cast(ctypes.pointer(attribute), ctypes.c_void_p), 1)
        rc = self.libcuda.cuLaunchKernelEx(ctypes.byref(config), ctypes.c_void_p(self.fptr(kernel)), params, None)
        if rc != 0:
            raise RuntimeError("cuLaunchKernelEx failed: CUresult %d" % rc)

    def coop_launch(self, kernel, launch, values, stream):
        holders = []
        for v in values:
            if isinstance(v, self.torch.Tensor):
                holders.append(ctypes.c_uint64(v.data_ptr()))
            elif isinstance(v, np.int32):
                holders.append(ctypes.c_int32(int(v)))
            elif isinstance(v, np.int64):
                holders.append(ctypes.c_int64(int(v)))
            else:
                raise TypeError("unexpected argument %r" % (v,))
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        driver = self.cupy.cuda.driver
        if hasattr(driver, "launchCooperativeKernel"):
            driver.launchCooperativeKernel(self.fptr(kernel), launch.grid, 1, 1, launch.block, 1, 1, launch.shared,
                                           stream, ctypes.addressof(params))
            return
        if self.libcuda is None:
            raise RuntimeError("no cooperative launch available (cupy driver nor libcuda)")
        u = ctypes.c_uint
        rc = self.libcuda.cuLaunchCooperativeKernel(ctypes.c_void_p(self.fptr(kernel)), u(launch.grid), u(1), u(1),
                                                    u(launch.block), u(1), u(1), u(launch.shared),
                                                    ctypes.c_void_p(stream), params)
        if rc != 0:
            raise RuntimeError("cuLaunchCooperativeKernel failed: CUresult %d" % rc)

    def runner(self, plan, buffers):
        """A function that makes the plan's launches on torch's current stream."""
        torch = self.torch
        calls = []
        for launch in plan.launches:
            kernel = self.kernel(launch.kernel)
            self.prepare(kernel, launch)
            values = []
            for a in launch.args:
                if isinstance(a, I32):
                    values.append(np.int32(a))
                elif isinstance(a, I64):
                    values.append(np.int64(a))
                else:
                    values.append(buffers[a])
            calls.append((kernel, launch, values))

        def run():
            stream = torch.cuda.current_stream().cuda_stream
            for kernel, launch, values in calls:
                if launch.ex:
                    self.ex_launch(kernel, launch, values, stream)
                elif launch.coop:
                    self.coop_launch(kernel, launch, values, stream)
                else:
                    kernel.launch(launch.grid, launch.block, *values, shared=launch.shared)
        return run


# ---- the run ----

def dry_run():
    cubin = HERE / "build" / (NAME + ".cubin")
    data = cubin.read_bytes() if cubin.exists() else None
    if data is None:
        print("(no %s: run bench/lab/build.sh %s.cu to check kernel names)" % (cubin, NAME))
    env, problems, count = DryEnv(), [], 0
    for op, label, rows, cols, log, candidates in ROWS:
        for dt in DTYPES:
            for variant, make in candidates:
                if ONLY and not any(o in variant for o in ONLY):
                    continue
                try:
                    plan = make(rows, cols, dt, log, env)
                except Skip as s:
                    print("%-22s %-9s %-30s SKIP %s" % (label, dt, variant, s))
                    continue
                count += 1
                print("%-22s %-9s %-30s %s" % (label, dt, variant, plan.note))
                for launch in plan.launches:
                    print("    " + launch.describe())
                    if launch.grid % launch.cluster:
                        problems.append("%s: grid %% cluster" % launch.kernel)
                    if launch.shared + STATIC_SMEM_MAX > SMEM_OPTIN:
                        problems.append("%s: shared %d too large" % (launch.kernel, launch.shared))
                    if launch.min_blocks * (launch.shared + STATIC_SMEM_MAX + 1024) > SMEM_PER_SM:
                        problems.append("%s: %d blocks per SM do not fit shared memory" % (launch.kernel, launch.min_blocks))
                    if launch.block > 1024 or launch.block % 32:
                        problems.append("%s: block %d" % (launch.kernel, launch.block))
                    if data is not None and (launch.kernel.encode() + b"\0") not in data:
                        problems.append("%s: not in the cubin" % launch.kernel)
                for name, (kind, n) in plan.buffers.items():
                    print("    buffer %s: %s x %d" % (name, kind, n))
    print("%d timed candidates" % count)
    if problems:
        print("PROBLEMS:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print("dry run: all launch configurations consistent")


def run_row(env, lab, torch, err, op, label, rows, cols, log, candidates, dt, results):
    tdtype = getattr(torch, dt)
    gen = torch.Generator(device="cuda").manual_seed(1234 + rows)
    x = (torch.randn(rows, cols, device="cuda", generator=gen) * 2.0).to(tdtype)
    ref = x.double()
    expected = (torch.log_softmax(ref, -1) if log else torch.softmax(ref, -1)).float()
    del ref
    y = torch.empty_like(x)
    bits = torch.int16 if ITEM[dt] == 2 else torch.int32
    key = label.replace(" log=True", "")  # the label in h200-peers.json (its op tells log_softmax apart)
    peer = lab.best_peer(op, key, dt)
    ours = lab.recorded_ours(op, key, dt)
    for variant, make in candidates:
        if ONLY and not any(o in variant for o in ONLY):
            continue
        row = {"op": op, "shape": label, "dtype": dt, "variant": variant, "p20": float("nan"), "p50": float("nan"),
               "p80": float("nan"), "best_peer": peer, "recorded_ours": ours, "status": "?"}
        note = ""
        try:
            plan = make(rows, cols, dt, log, env)
            note = plan.note
            row["config"] = note
            row["launches"] = [launch.describe() for launch in plan.launches]
            buffers = {"x": x, "y": y, "err": err}
            for name, (kind, n) in plan.buffers.items():
                buffers[name] = torch.zeros(n, dtype=getattr(torch, kind), device="cuda")
            run = env.runner(plan, buffers)
            err.zero_()
            y.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            if int(err.item()):
                raise RuntimeError("kernel reported error %d (1: mbarrier timeout, 2: bad shape, "
                                   "3: exchange timeout)" % int(err.item()))
            lab.check("%s %s %s" % (label, dt, variant), y, expected, dt)
            first = y.clone()
            y.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            if not torch.equal(first.view(bits), y.view(bits)):
                raise RuntimeError("a second launch gave different bits")
            del first
            stats = lab.time_us(run)
            torch.cuda.synchronize()
            if int(err.item()):
                raise RuntimeError("kernel reported error %d while timed" % int(err.item()))
            row.update({k: stats[k] for k in ("p20", "p50", "p80")})
            row["kernels"] = stats.get("kernels")
            row["status"] = "ok"
        except Skip as s:
            row["status"] = "skip: %s" % s
        except Exception as e:  # noqa: BLE001 -- one bad candidate must not end the run
            text = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            row["status"] = "error: %s" % text
            traceback.print_exc(limit=2)
        results.append(row)
        if row["status"] == "ok":
            lab.print_row(row)
            extra = [note]
            if peer:
                extra.append("%.2fx the best peer" % (peer[1] / row["p50"]))
            if ours:
                extra.append("%.2fx recorded ours" % (ours / row["p50"]))
            print("    -> " + ", ".join(extra), flush=True)
        else:
            print("%-28s %-10s %-34s %s" % (label, dt, variant, row["status"]), flush=True)


def summary(results):
    print("\nsummary (fastest correct candidate per row; speedup = best peer p50 / ours):")
    for op, label, rows, cols, log, candidates in ROWS:
        for dt in DTYPES:
            ok = [r for r in results if r["shape"] == label and r["dtype"] == dt and r["status"] == "ok"]
            if not ok:
                continue
            best = min(ok, key=lambda r: r["p50"])
            peer = best["best_peer"]
            print("  %-22s %-9s %-30s p50 %7.2f us   best peer %-22s %s  ours recorded %s" % (
                label, dt, best["variant"], best["p50"], "%s %.2f" % tuple(peer) if peer else "-",
                "(%.2fx)" % (peer[1] / best["p50"]) if peer else "",
                "%.2f" % best["recorded_ours"] if best["recorded_ours"] else "-"))


def main():
    import cupy
    import torch

    import lab

    env = GpuEnv(lab, torch, cupy)
    print("device: %s, %d SMs" % (torch.cuda.get_device_name(), env.sm_count), flush=True)
    err = torch.zeros(1, dtype=torch.int32, device="cuda")
    results = []
    try:
        for op, label, rows, cols, log, candidates in ROWS:
            for dt in DTYPES:
                run_row(env, lab, torch, err, op, label, rows, cols, log, candidates, dt, results)
                torch.cuda.empty_cache()
    finally:
        summary(results)
        print("device queries:", env.info)
        try:
            lab.save(NAME + NAME_SUFFIX, results, {"env": env.info})
        except Exception:  # noqa: BLE001 -- e.g. a dead context: still keep the rows
            import json
            import os
            out = pathlib.Path(os.environ.get("OUT", str(HERE))) / ("lab-%s.json" % NAME)
            out.write_text(json.dumps({"lab": NAME, "rows": results, "env": env.info}, indent=1, default=str))
            print("wrote", out)


if __name__ == "__main__":
    if DRY:
        dry_run()
    else:
        main()
