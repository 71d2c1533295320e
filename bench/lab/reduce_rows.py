#!/usr/bin/env python3
"""Lab reduce_rows: reduce_sum over the last axis and to a scalar on the H200, f16 / bf16 / f32.

    cd bench/lab && python3 reduce_rows.py            # on the GPU machine (needs build/reduce_rows.cubin)
    python3 reduce_rows.py --dry                      # here: every launch configuration, plus a host
                                                      # emulation of the stream kernels' coverage
    options: --shapes SUBSTR[,SUBSTR] --dtypes float16,float32 --variants SUBSTR[,SUBSTR]

Candidates (reduce_rows.cu has the kernels):
  cur                 the library's dispatch and kernels as they are (calibrates against recorded_ours)
  cur+evict_first     the same kernels and grids, loads with Triton's evict_first (L1::evict_first +
                      L2 createpolicy evict_first): tests whether L2 policy (the dirty lines the L2 flush
                      leaves) is what Inductor's red kernels gain
  cur+ld.cs / cur+nc  the same with ld.global.cs / ld.global.nc.L1::no_allocate (8192x8192, 64M; f16)
  grp U<u> [k/SM]     stream kernel, a group of W <= 32 lanes per row (U packs per lane per chunk), loads
                      of the next chunk / next row in flight while the current one is summed; grid
                      balanced over min(k, occupancy) blocks per SM (persistent when rows exceed it)
  warp U4             the same with W = 32 (a warp per row, chunks streamed) for long rows
  blk<B> U4 persist   stream kernel, a block of B per row, rows grid-strided over a balanced wave, the
                      next row's loads issued before the current row's block reduction (1 sync per row)
  blk256 U4 1row/blk  the same kernel, a block per row (no persistence): separates the two effects
  tk B256 U<u>        split rows, ONE kernel: each part a block (chunks interleaved across parts), the
                      last part of a row to finish (__threadfence + atomic ticket) sums the row's
                      partials in a fixed order and resets the ticket
  sp B256 U4 + fin    the same split writing partials, then the library's second kernel (2 kernels):
                      separates "one kernel" from "stream split"
"""
import argparse
import math
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

NAME = "reduce_rows"
HERE = pathlib.Path(__file__).resolve().parent
CUBIN = HERE / "build" / (NAME + ".cubin")
THREADS = 256  # the library's kThreads

DTYPES = {"float16": ("f16", 2), "bfloat16": ("bf16", 2), "float32": ("f32", 4)}

# (label in bench/results/h200-peers.json, rows, length, class)
SHAPES = [
    ("8192x8192 axis=-1", 8192, 8192, "long"),
    ("4096x4096 axis=-1", 4096, 4096, "long"),
    ("128x131072 axis=-1", 128, 131072, "few"),
    ("16x262144 axis=-1", 16, 262144, "few"),
    ("65536x128 axis=-1", 65536, 128, "short"),
    ("16384x256 axis=-1", 16384, 256, "short"),
    ("8192x512 axis=-1", 8192, 512, "short"),
    ("32768x1024 axis=-1", 32768, 1024, "short"),
    ("67108864 ->scalar", 1, 67108864, "few"),
    ("268435456 ->scalar", 1, 268435456, "few"),
]


def cdiv(a, b):
    return (a + b - 1) // b


def group_width(n):
    w = 1
    while w < n and w < 32:
        w *= 2
    return w


class I32:
    """An int kernel argument passed as int32 (the library's `int width`)."""

    def __init__(self, v):
        self.v = int(v)

    def __repr__(self):
        return "i32(%d)" % self.v


class Launch:
    def __init__(self, kernel, grid, block, args):
        self.kernel, self.grid, self.block, self.args = kernel, int(grid), int(block), args

    def __repr__(self):
        return "%s<<<%d, %d>>>(%s)" % (self.kernel, self.grid, self.block, ", ".join(map(str, self.args)))


class Plan:
    """Launches of one candidate; `partials` / `counters`: float32 / int32 workspace elements it needs;
    `emulate`: (mode, params) for the host coverage check of a stream kernel."""

    def __init__(self, launches, partials=0, counters=0, emulate=None):
        self.launches, self.partials, self.counters, self.emulate = launches, partials, counters, emulate


# ---- occupancy ----

BUILD_REGS = {  # (registers, static shared bytes) per kernel, from cuobjdump -res-usage of the nvcc 13.0 build
    "cur_block128_bf16_p0": (72, 1040), "cur_block128_bf16_p1": (72, 1040), "cur_block128_bf16_p2": (72, 1040),
    "cur_block128_bf16_p3": (72, 1040), "cur_block128_f16_p0": (72, 1040), "cur_block128_f16_p1": (72, 1040),
    "cur_block128_f16_p2": (72, 1040), "cur_block128_f16_p3": (72, 1040), "cur_block128_f32_p0": (72, 1040),
    "cur_block128_f32_p1": (71, 1040), "cur_block128_f32_p2": (71, 1040), "cur_block128_f32_p3": (71, 1040),
    "cur_block256_bf16_p0": (68, 1056), "cur_block256_bf16_p1": (68, 1056), "cur_block256_bf16_p2": (68, 1056),
    "cur_block256_bf16_p3": (68, 1056), "cur_block256_f16_p0": (68, 1056), "cur_block256_f16_p1": (68, 1056),
    "cur_block256_f16_p2": (68, 1056), "cur_block256_f16_p3": (68, 1056), "cur_block256_f32_p0": (71, 1056),
    "cur_block256_f32_p1": (71, 1056), "cur_block256_f32_p2": (71, 1056), "cur_block256_f32_p3": (71, 1056),
    "cur_block64_bf16_p0": (72, 1032), "cur_block64_bf16_p2": (72, 1032), "cur_block64_f16_p0": (72, 1032),
    "cur_block64_f16_p2": (72, 1032), "cur_block64_f32_p0": (72, 1032), "cur_block64_f32_p2": (71, 1032),
    "cur_fin_bf16": (48, 0), "cur_fin_f16": (48, 0), "cur_fin_f32": (48, 0), "cur_short_bf16_p0": (51, 0),
    "cur_short_bf16_p1": (48, 0), "cur_short_bf16_p2": (48, 0), "cur_short_bf16_p3": (48, 0),
    "cur_short_f16_p0": (51, 0), "cur_short_f16_p1": (48, 0), "cur_short_f16_p2": (48, 0),
    "cur_short_f16_p3": (48, 0), "cur_short_f32_p0": (48, 0), "cur_short_f32_p1": (48, 0),
    "cur_short_f32_p2": (48, 0), "cur_short_f32_p3": (48, 0), "cur_split_bf16_p0": (80, 1056),
    "cur_split_bf16_p1": (79, 1056), "cur_split_bf16_p2": (79, 1056), "cur_split_bf16_p3": (79, 1056),
    "cur_split_f16_p0": (80, 1056), "cur_split_f16_p1": (79, 1056), "cur_split_f16_p2": (79, 1056),
    "cur_split_f16_p3": (79, 1056), "cur_split_f32_p0": (71, 1056), "cur_split_f32_p1": (80, 1056),
    "cur_split_f32_p2": (80, 1056), "cur_split_f32_p3": (80, 1056), "cur_warp_bf16_p0": (76, 0),
    "cur_warp_bf16_p1": (76, 0), "cur_warp_bf16_p2": (76, 0), "cur_warp_bf16_p3": (76, 0), "cur_warp_f16_p0": (76, 0),
    "cur_warp_f16_p1": (76, 0), "cur_warp_f16_p2": (76, 0), "cur_warp_f16_p3": (76, 0), "cur_warp_f32_p0": (79, 0),
    "cur_warp_f32_p1": (79, 0), "cur_warp_f32_p2": (79, 0), "cur_warp_f32_p3": (79, 0),
    "st_blk_b128_u4_p2_bf16": (59, 1056), "st_blk_b128_u4_p2_f16": (59, 1056), "st_blk_b128_u4_p2_f32": (64, 1056),
    "st_blk_b256_u4_p2_bf16": (59, 1088), "st_blk_b256_u4_p2_f16": (59, 1088), "st_blk_b256_u4_p2_f32": (61, 1088),
    "st_grp_w16_u2_p2_bf16": (44, 0), "st_grp_w16_u2_p2_f16": (43, 0), "st_grp_w16_u2_p2_f32": (44, 0),
    "st_grp_w16_u4_p2_bf16": (63, 0), "st_grp_w16_u4_p2_f16": (63, 0), "st_grp_w16_u4_p2_f32": (60, 0),
    "st_grp_w16_u8_p2_bf16": (120, 0), "st_grp_w16_u8_p2_f16": (120, 0), "st_grp_w16_u8_p2_f32": (94, 0),
    "st_grp_w2_u8_p2_bf16": (120, 0), "st_grp_w2_u8_p2_f16": (120, 0), "st_grp_w2_u8_p2_f32": (95, 0),
    "st_grp_w32_u2_p2_bf16": (44, 0), "st_grp_w32_u2_p2_f16": (43, 0), "st_grp_w32_u2_p2_f32": (44, 0),
    "st_grp_w32_u4_p2_bf16": (63, 0), "st_grp_w32_u4_p2_f16": (63, 0), "st_grp_w32_u4_p2_f32": (60, 0),
    "st_grp_w4_u4_p2_bf16": (63, 0), "st_grp_w4_u4_p2_f16": (63, 0), "st_grp_w4_u4_p2_f32": (60, 0),
    "st_grp_w4_u8_p2_bf16": (120, 0), "st_grp_w4_u8_p2_f16": (120, 0), "st_grp_w4_u8_p2_f32": (94, 0),
    "st_grp_w8_u2_p2_bf16": (44, 0), "st_grp_w8_u2_p2_f16": (43, 0), "st_grp_w8_u2_p2_f32": (44, 0),
    "st_grp_w8_u4_p2_bf16": (63, 0), "st_grp_w8_u4_p2_f16": (63, 0), "st_grp_w8_u4_p2_f32": (60, 0),
    "st_grp_w8_u8_p2_bf16": (120, 0), "st_grp_w8_u8_p2_f16": (120, 0), "st_grp_w8_u8_p2_f32": (95, 0),
    "st_sp_b256_u4_p2_bf16": (58, 1088), "st_sp_b256_u4_p2_f16": (58, 1088), "st_sp_b256_u4_p2_f32": (56, 1088),
    "st_tk_b256_u4_p0_bf16": (64, 1124), "st_tk_b256_u4_p0_f16": (64, 1124), "st_tk_b256_u4_p0_f32": (64, 1124),
    "st_tk_b256_u4_p2_bf16": (64, 1124), "st_tk_b256_u4_p2_f16": (64, 1124), "st_tk_b256_u4_p2_f32": (64, 1124),
    "st_tk_b256_u8_p2_bf16": (107, 1124), "st_tk_b256_u8_p2_f16": (107, 1124), "st_tk_b256_u8_p2_f32": (120, 1124),
}


def occupancy_from_regs(regs, block, smem=0):
    """Resident blocks per SM on sm_90 (the occupancy calculator's rules)."""
    warps = cdiv(block, 32)
    regs_per_warp = cdiv(max(regs, 1) * 32, 256) * 256
    by_regs = (65536 // regs_per_warp) // warps
    by_threads = 2048 // block
    by_smem = (228 * 1024) // (smem + 1024)
    return max(0, min(32, by_regs, by_threads, by_smem))


class Occupancy:
    def __init__(self, query):
        self.query, self.cache = query, {}

    def __call__(self, kernel, block):
        key = (kernel, block)
        if key not in self.cache:
            self.cache[key] = max(1, self.query(kernel, block))
        return self.cache[key]


# ---- the library's dispatch (ops/reduce_sum/nvidia/kernel.cuh: sum_rows, row_splits, launch_rows) ----

K_SPLIT_WAVES, K_SPLIT_MIN_PACKS = 1, 1
K_UNSPLIT_ROW_MAX, K_MIN_ROW_SPLIT, K_MAX_ROW_SPLITS, K_MAX_PARTIALS = 2048, 2048, 8192, 1 << 20


def max_row_splits(rows, length):
    if rows == 0 or length <= K_UNSPLIT_ROW_MAX:
        return 1
    most = K_MAX_PARTIALS if rows == 1 else K_MAX_ROW_SPLITS  # a whole sum: a piece per slice
    return max(1, min(most, length // K_MIN_ROW_SPLIT, K_MAX_PARTIALS // rows))


def row_block_threads(packs):
    t = 64
    while t < 256 and t * 8 < packs:
        t *= 2
    return t


def cur_launch_rows(x, y, rows, length, pack, dt, pol, occ, sms, fin=False):
    """launch_rows(x, y, rows, length, splits=1): the kernel tier and grid the library picks."""
    packs = cdiv(length, pack)
    if packs < 32 * 8:
        width = group_width(cdiv(length, pack * 4))
        k = "cur_fin_%s" % dt if fin else "cur_short_%s_p%d" % (dt, pol)
        wave = sms * occ(k, THREADS)
        return [Launch(k, min(cdiv(rows, THREADS // width), 8 * wave), THREADS, [x, y, rows, length, I32(width)])]
    assert not fin, "second pass over more than 1024 partials: not in this lab"
    if packs <= 32 * 8:
        k = "cur_warp_%s_p%d" % (dt, pol)
        wave = sms * occ(k, THREADS)
        if 2 * rows >= wave * 8:
            return [Launch(k, min(cdiv(rows, 8), 8 * wave), THREADS, [x, y, rows, length, I32(32)])]
    threads = row_block_threads(packs)
    k = "cur_block%d_%s_p%d" % (threads, dt, pol)
    wave = sms * occ(k, threads)
    return [Launch(k, min(rows, 8 * wave), threads, [x, y, rows, length, 1])]


def plan_cur(rows, length, dtype, pol, occ, sms):
    dt, size = DTYPES[dtype]
    pack = 16 // size
    split_k = "cur_split_%s_p%d" % (dt, pol)
    wave = sms * occ(split_k, THREADS)
    most = min(max_row_splits(rows, length), cdiv(length, pack) // (THREADS * K_SPLIT_MIN_PACKS))
    splits = 1 if (most <= 1 or rows * 2 > wave) else max(1, min(most, K_SPLIT_WAVES * wave // rows))
    if splits == 1:
        return Plan(cur_launch_rows("x", "y", rows, length, pack, dt, pol, occ, sms))
    first = Launch(split_k, min(rows * splits, 8 * wave), THREADS, ["x", "partials", rows, length, splits])
    second = cur_launch_rows("partials", "y", rows, splits, 4, dt, 0, occ, sms, fin=True)
    return Plan([first] + second, partials=rows * splits)


# ---- stream kernels ----

def balanced_grid(needed, wave):
    """Blocks for `needed` block-sized tasks over at most `wave` resident blocks, every block running the
    same number of tasks (the last ones at most one fewer)."""
    if needed <= wave:
        return needed
    per = cdiv(needed, wave)
    return cdiv(needed, per)


def plan_grp(rows, length, dtype, U, k, occ, sms):
    dt, size = DTYPES[dtype]
    pack = 16 // size
    packs = length // pack
    W = group_width(cdiv(packs, U))
    name = "st_grp_w%d_u%d_p2_%s" % (W, U, dt)
    b = occ(name, THREADS)
    if k:
        b = min(b, k)
    grid = balanced_grid(cdiv(rows, THREADS // W), sms * b)
    return Plan([Launch(name, grid, THREADS, ["x", "y", "partials", "counters", rows, length, 1])],
                emulate=("grp", dict(B=THREADS, W=W, U=U, grid=grid, rows=rows, packs=packs, S=1)))


def plan_blk(rows, length, dtype, B, U, persistent, occ, sms):
    dt, size = DTYPES[dtype]
    packs = length // (16 // size)
    name = "st_blk_b%d_u%d_p2_%s" % (B, U, dt)
    grid = balanced_grid(rows, sms * occ(name, B)) if persistent else rows
    return Plan([Launch(name, grid, B, ["x", "y", "partials", "counters", rows, length, 1])],
                emulate=("blk", dict(B=B, W=B, U=U, grid=grid, rows=rows, packs=packs, S=1)))


def split_parts(rows, packs, B, U, wave):
    """Parts per row: about a wave of blocks, every part the same number of chunks (B * U packs)."""
    total_chunks = cdiv(packs, B * U)
    s0 = max(1, wave // rows)
    cpt = cdiv(total_chunks, s0)
    return cdiv(total_chunks, cpt)


def plan_split(rows, length, dtype, B, U, pol, mode, occ, sms):
    dt, size = DTYPES[dtype]
    pack = 16 // size
    packs = length // pack
    name = "st_%s_b%d_u%d_p%d_%s" % (mode, B, U, pol, dt)
    S = split_parts(rows, packs, B, U, sms * occ(name, B))
    emulate = ("split", dict(B=B, W=B, U=U, grid=rows * S, rows=rows, packs=packs, S=S))
    if mode == "tk":
        return Plan([Launch(name, rows * S, B, ["x", "y", "partials", "counters", rows, length, S])],
                    partials=rows * S, counters=rows, emulate=emulate)
    first = Launch(name, rows * S, B, ["x", "partials", "partials", "counters", rows, length, S])
    second = cur_launch_rows("partials", "y", rows, S, 4, dt, 0, occ, sms, fin=True)
    return Plan([first] + second, partials=rows * S, counters=rows, emulate=emulate)


# ---- candidates per row ----

def candidates(label, rows, length, klass, dtype, occ, sms):
    """[(variant, plan)]: f16 and f32 get the full set, bf16 the library's design and the best guesses."""
    full = dtype != "bfloat16"
    c = [("cur", plan_cur(rows, length, dtype, 0, occ, sms))]
    if full:
        c.append(("cur+evict_first", plan_cur(rows, length, dtype, 2, occ, sms)))
        if dtype == "float16" and label.split()[0] in ("8192x8192", "67108864"):
            c.append(("cur+ld.cs", plan_cur(rows, length, dtype, 3, occ, sms)))
            c.append(("cur+nc.no_allocate", plan_cur(rows, length, dtype, 1, occ, sms)))
    if klass == "short":
        c.append(("grp U4 ef", plan_grp(rows, length, dtype, 4, None, occ, sms)))
        c.append(("grp U4 2/SM ef", plan_grp(rows, length, dtype, 4, 2, occ, sms)))
        if full:
            c.append(("grp U2 ef", plan_grp(rows, length, dtype, 2, None, occ, sms)))
        if dtype == "float16":
            c.append(("grp U8 ef", plan_grp(rows, length, dtype, 8, None, occ, sms)))
    elif klass == "long":
        c.append(("blk256 U4 persist ef", plan_blk(rows, length, dtype, 256, 4, True, occ, sms)))
        c.append(("warp U4 ef", plan_grp(rows, length, dtype, 4, None, occ, sms)))
        if full:
            c.append(("blk256 U4 1row/blk ef", plan_blk(rows, length, dtype, 256, 4, False, occ, sms)))
            c.append(("blk128 U4 persist ef", plan_blk(rows, length, dtype, 128, 4, True, occ, sms)))
    else:
        c.append(("tk B256 U4 ef", plan_split(rows, length, dtype, 256, 4, 2, "tk", occ, sms)))
        if full:
            c.append(("tk B256 U4 plain", plan_split(rows, length, dtype, 256, 4, 0, "tk", occ, sms)))
            c.append(("tk B256 U8 ef", plan_split(rows, length, dtype, 256, 8, 2, "tk", occ, sms)))
            c.append(("sp B256 U4 ef + fin", plan_split(rows, length, dtype, 256, 4, 2, "sp", occ, sms)))
    return c


# ---- host emulation of stream_rows' task / chunk walk (the --dry check) ----

def emulate_coverage(mode, p):
    """Replays stream_rows's integer logic for every unit of the grid: every (row, chunk) of the input
    must be visited exactly once, every unit's item count must be what the loop runs, and a group must
    only write rows < rows. Returns the number of items visited."""
    B, W, U, grid, rows, packs, S = (p[k] for k in ("B", "W", "U", "grid", "rows", "packs", "S"))
    chunk_packs = W * U
    total_chunks = cdiv(packs, chunk_packs)
    seen = np.zeros((rows, total_chunks), dtype=np.int32)
    items = 0
    if mode == "grp":
        per_warp = 32 // W
        warps = grid * B // 32
        step = warps * per_warp
        for warp in range(warps):
            warp_first = warp * per_warp
            count = cdiv(rows - warp_first, step) if warp_first < rows else 0
            for g in range(per_warp):
                for k in range(count):
                    task = warp_first + g + k * step
                    if task < rows:
                        seen[task, :] += 1
                        items += total_chunks
    else:
        parts = S if mode == "split" else 1
        ntasks = rows * parts
        cpt = cdiv(total_chunks, parts)
        for first in range(grid):
            count = cdiv(ntasks - first, grid) if first < ntasks else 0
            for k in range(count):
                task = first + k * grid
                row, part = divmod(task, parts)
                for j in range(cpt):
                    chunk = part + j * parts if mode == "split" else j
                    if chunk < total_chunks:
                        seen[row, chunk] += 1
                    items += 1
        assert (rows * parts) <= grid * cdiv(ntasks, grid)
    bad = np.argwhere(seen != 1)
    assert bad.size == 0, "%s: (row, chunk) %s visited %d times" % (mode, bad[0].tolist(), seen[tuple(bad[0])])
    return items


# ---- running ----

def cubin_symbols():
    data = CUBIN.read_bytes()
    return data


def make_input(torch, rows, length, dtype, seed):
    """0.25 * (randn + 6 / sqrt(length)): rows sum to about 1.5 sqrt(length) +- 0.25 sqrt(length), six
    standard deviations from zero, so the f32 check's 1e-5 relative tolerance is about summation order
    only; f16 sums stay below 65504 even for 256M elements."""
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    x = torch.randn((rows, length), generator=g, device="cuda", dtype=torch.float32)
    x.add_(6.0 / math.sqrt(length)).mul_(0.25)
    return x.to(getattr(torch, dtype))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dry", action="store_true", help="print launches and check coverage; no GPU")
    ap.add_argument("--shapes", default="", help="comma-separated substrings of shape labels")
    ap.add_argument("--dtypes", default="float16,bfloat16,float32")
    ap.add_argument("--variants", default="", help="comma-separated substrings of variant names")
    ap.add_argument("--sms", type=int, default=132, help="SM count for --dry")
    args = ap.parse_args()
    shapes = [s for s in SHAPES if not args.shapes or any(t in s[0] for t in args.shapes.split(","))]
    dtypes = [d for d in args.dtypes.split(",") if d]
    vfilter = [t for t in args.variants.split(",") if t]
    if args.dry:
        return dry(shapes, dtypes, vfilter, args.sms)
    return run(shapes, dtypes, vfilter)


def dry_regs():
    """Registers per kernel from cuobjdump -res-usage where a cuobjdump is found (else 64 for all)."""
    regs = {}
    tools = [os.environ.get("CUOBJDUMP", ""), "/usr/local/cuda/bin/cuobjdump", "cuobjdump"]
    for tool in tools:
        if not tool:
            continue
        try:
            out = subprocess.run([tool, "-res-usage", str(CUBIN)], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        name = None
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("Function "):
                name = line[len("Function "):].rstrip(":")
            elif name and line.startswith("REG:"):
                fields = dict(f.split(":") for f in line.split() if ":" in f)
                regs[name] = (int(fields["REG"]), int(fields.get("SHARED", 0)))
                name = None
        if regs:
            break
    return regs


def dry(shapes, dtypes, vfilter, sms):
    data = cubin_symbols() if CUBIN.exists() else None
    if data is None:
        print("note: %s not built; kernel names unchecked" % CUBIN)
    regs = dry_regs()
    print("registers: %s" % ("cuobjdump of the cubin (%d kernels)" % len(regs) if regs else
                             "BUILD_REGS (no cuobjdump found; set CUOBJDUMP)"))
    if not regs:
        regs = BUILD_REGS
    else:
        changed = sorted(k for k in regs if k in BUILD_REGS and regs[k] != BUILD_REGS[k])
        if changed:
            print("note: registers differ from BUILD_REGS for %d kernels, e.g. %s" % (len(changed), changed[:4]))
    def query(kernel, block):
        r, smem = regs.get(kernel, (64, 0))
        return occupancy_from_regs(r, block, smem)

    occ = Occupancy(query)
    missing, count = set(), 0
    for label, rows, length, klass in shapes:
        for dtype in dtypes:
            pack = 16 // DTYPES[dtype][1]
            assert length % pack == 0
            for variant, plan in candidates(label, rows, length, klass, dtype, occ, sms):
                if vfilter and not any(t in variant for t in vfilter):
                    continue
                count += 1
                for l in plan.launches:
                    if data is not None and (b"\0" + l.kernel.encode() + b"\0") not in data:
                        missing.add(l.kernel)
                    assert 1 <= l.grid < 2 ** 31 and l.block in (64, 128, 256, 512), l
                note = ""
                if plan.emulate:
                    items = emulate_coverage(*plan.emulate)
                    note = "  [coverage ok, %d items]" % items
                print("%-20s %-9s %-24s %s  ws: %d f32 partials, %d counters%s" % (
                    label, dtype, variant, " ; ".join(
                        "%s (occ %d/SM)" % (l, occ(l.kernel, l.block)) for l in plan.launches),
                    plan.partials, plan.counters, note))
    print("%d candidate x row launches planned" % count)
    if missing:
        print("MISSING from the cubin:", sorted(missing))
        return 1
    print("every kernel name is in the cubin" if data is not None else "")
    return 0


def run(shapes, dtypes, vfilter):
    import torch

    sys.path.insert(0, str(HERE))
    import lab

    t0 = time.time()
    module = lab.load(NAME)
    kernels = {}

    def kernel(name):
        if name not in kernels:
            kernels[name] = module.kernel(name)
        return kernels[name]

    def query(name, block):
        """The driver's occupancy for the loaded kernel; else from its register count; else BUILD_REGS."""
        f = kernel(name).function
        try:
            from cupy.cuda import driver

            n = driver.occupancyMaxActiveBlocksPerMultiprocessor(f.ptr, block, 0)
            if n > 0:
                return n
        except Exception as e:
            print("occupancy query failed for %s (%s); using its register count" % (name, e))
        try:
            return occupancy_from_regs(int(f.num_regs), block, int(f.shared_size_bytes))
        except Exception as e:
            print("register count unavailable for %s (%s); using BUILD_REGS" % (name, e))
        r, smem = BUILD_REGS.get(name, (64, 0))
        return occupancy_from_regs(r, block, smem)

    def query_logged(name, block):
        n = query(name, block)
        expected = None
        if name in BUILD_REGS:
            expected = occupancy_from_regs(BUILD_REGS[name][0], block, BUILD_REGS[name][1])
        if expected is not None and n != expected:
            print("note: %s at %d threads: %d blocks/SM (the build's registers say %d)" % (name, block, n, expected))
        return n

    occ = Occupancy(query_logged)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print("device %s, %d SMs, torch %s" % (torch.cuda.get_device_name(), sms, torch.__version__), flush=True)
    rows_out = []
    for si, (label, rows, length, klass) in enumerate(shapes):
        for dtype in dtypes:
            tdtype = getattr(torch, dtype)
            x = make_input(torch, rows, length, dtype, seed=1234 + si)
            expected = x.sum(dim=-1, dtype=torch.float64)
            assert x.data_ptr() % 16 == 0 and length % (16 // DTYPES[dtype][1]) == 0
            peer = lab.best_peer("reduce_sum", label, dtype)
            ours = lab.recorded_ours("reduce_sum", label, dtype)
            try:
                planned = candidates(label, rows, length, klass, dtype, occ, sms)
            except Exception as e:  # e.g. a kernel missing from a stale cubin
                print("  FAILED to plan %s %s: %s" % (label, dtype, e), flush=True)
                planned = []
            for variant, plan in planned:
                if vfilter and not any(t in variant for t in vfilter):
                    continue
                row = {"shape": label, "dtype": dtype, "variant": variant, "p20": float("nan"),
                       "p50": float("nan"), "p80": float("nan"), "best_peer": peer, "recorded_ours": ours,
                       "launches": [repr(l) for l in plan.launches],
                       "occupancy": [occ(l.kernel, l.block) for l in plan.launches]}
                try:
                    y = torch.full((rows,), float("nan"), dtype=tdtype, device="cuda")
                    partials = torch.zeros(max(plan.partials, 4), dtype=torch.float32, device="cuda")
                    counters = torch.zeros(max(plan.counters, 1), dtype=torch.int32, device="cuda")
                    tensors = {"x": x, "y": y, "partials": partials, "counters": counters}
                    calls = []
                    for l in plan.launches:
                        a = tuple(tensors[v] if isinstance(v, str) else (np.int32(v.v) if isinstance(v, I32) else v)
                                  for v in l.args)
                        calls.append((kernel(l.kernel), l.grid, l.block, a))

                    def fn(calls=calls):
                        for k, grid, block, a in calls:
                            k.launch(grid, block, *a)

                    fn()
                    torch.cuda.synchronize()
                    lab.check("%s %s %s" % (label, dtype, variant), y, expected, dtype)
                    first = y.clone()
                    y.fill_(float("nan"))  # the second run must write every row again
                    fn()
                    torch.cuda.synchronize()
                    if not torch.equal(first.view(torch.int16 if dtype != "float32" else torch.int32),
                                       y.view(torch.int16 if dtype != "float32" else torch.int32)):
                        raise AssertionError("second run differs bit-wise (not deterministic)")
                    if plan.counters and int(counters.abs().sum()) != 0:
                        raise AssertionError("ticket counters not reset to 0")
                    stats = lab.time_us(fn)
                    row.update(p20=stats["p20"], p50=stats["p50"], p80=stats["p80"], kernels=stats["kernels"],
                               status="ok")
                except Exception as e:  # one bad candidate must not end the run
                    row["status"] = "error: %s" % (str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
                    print("  FAILED %s %s %s: %s" % (label, dtype, variant, row["status"]), flush=True)
                    try:
                        torch.cuda.synchronize()
                    except Exception as e2:
                        print("  the CUDA context is broken (%s); stopping" % e2, flush=True)
                        rows_out.append(row)
                        lab.save(NAME, rows_out, {"aborted": True})
                        return 1
                lab.print_row(row)
                rows_out.append(row)
            del x, expected
            torch.cuda.empty_cache()
    print("total %.1f s" % (time.time() - t0))
    summarize(rows_out)
    lab.save(NAME, rows_out)
    return 0


def summarize(rows):
    """Per shape x dtype: the fastest ok variant against cur and the best peer."""
    print("\nbest per row (p50 us): variant | cur | best peer")
    keys = []
    for r in rows:
        if (r["shape"], r["dtype"]) not in keys:
            keys.append((r["shape"], r["dtype"]))
    for key in keys:
        group = [r for r in rows if (r["shape"], r["dtype"]) == key and r.get("status") == "ok"]
        if not group:
            print("%-20s %-9s no ok variant" % key)
            continue
        best = min(group, key=lambda r: r["p50"])
        cur = [r["p50"] for r in group if r["variant"] == "cur"]
        peer = group[0].get("best_peer")
        print("%-20s %-9s %-24s %7.2f | cur %s | peer %s" % (
            key[0], key[1], best["variant"], best["p50"], "%.2f" % cur[0] if cur else "-",
            "%.2f" % peer[1] if peer else "-"))


if __name__ == "__main__":
    sys.exit(main())
