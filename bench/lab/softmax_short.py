"""Lab softmax_short: softmax / log_softmax over the last axis of short rows (128, 256, 512, 1024 columns),
many rows, on the H200: our library's current kernels (reproduced) against new tile kernels.

    cd bench/lab && python3 softmax_short.py          # on the GPU machine (bench/lab/build/softmax_short.cubin)
    python3 softmax_short.py --dry                    # here: launch configurations and kernel names, no GPU

Candidates (softmax_short.cu says what each kernel does):
  LIB warp ...     the library's warp tier as it is (warp_rows.cuh; 256 threads, kRows rows per group, grid-stride
                   capped at 8 waves): the calibration against 'ours recorded'.
  LIB block ...    the library's block-register tier (1024 columns), and the same with fast math + nc/cs hints.
  tVvRrBb...       the tile kernel: t = lanes per row, v = 16-byte vectors per lane, r = rows per lane group,
                   b = CTA threads, o = __launch_bounds__ min CTAs per SM; suffixes: libmath (__expf, 1/s,
                   logf instead of ex2 / rcp / __logf), nc/cs (ld.global.nc.L1::no_allocate + st.global.cs),
                   L2pf/cs (the same plus .L2::256B), st.cs (only the store hint), persist (one wave of CTAs
                   striding over tiles, the next tile's loads issued before this tile's shuffles).
  bulk tVvRrBb... nN  the bulk tile kernel: the tile's N passes of rows come in by one cp.async.bulk (TMA) into
                   shared memory (size shown), then are processed as the tile kernel does.

Plan (128 timed calls; a time guard skips the rest past TIME_BUDGET_S):
  softmax f16 and f32, every shape: every candidate of that shape;
  log_softmax 65536x128 f16 / f32: LIB + the 3 fastest tile configs of the softmax run of that dtype;
  softmax bf16, every shape: LIB + the 3 fastest f16 configs (same bytes, same kernels but the conversion);
  log_softmax 32768x1024 f32 (3 fastest), log_softmax 65536x128 bf16 and 32768x1024 f16 (2 fastest).
"""

import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
NAME = "softmax_short"
DRY = "--dry" in sys.argv
T0 = time.time()
TIME_BUDGET_S = 50.0  # no new timing starts past this (the lab must end in under 60 s)

ROWS = {128: 65536, 256: 16384, 512: 8192, 1024: 32768}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}  # elements per 16-byte vector
ITEM = {"float16": 2, "bfloat16": 2, "float32": 4}
WARP = 32
LIB_THREADS = 256  # the library's kThreads


def ceil_div(a, b):
    return (a + b - 1) // b


# ---- The candidates ----


def parse_configs():
    """The X(COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERSIST) lines of softmax_short.cu's HALF_CONFIGS and
    F32_CONFIGS, and the Y(COLS, VEC, RPT, BLOCK, MINB, PASSES, ST) lines of BULK_HALF_CONFIGS and
    BULK_F32_CONFIGS: the kernels that were built."""
    text = (HERE / (NAME + ".cu")).read_text()
    out = {}
    for group, letter in (("HALF_CONFIGS", "X"), ("F32_CONFIGS", "X"), ("BULK_HALF_CONFIGS", "Y"),
                          ("BULK_F32_CONFIGS", "Y")):
        start = text.index("#define %s(%s)" % (group, letter))
        cfgs = []
        for line in text[start:].splitlines()[1:]:
            m = re.match(r"\s*%s\(([^)]*)\)\s*\\?\s*$" % letter, line)
            if not m:
                break
            cfgs.append(tuple(int(v) for v in m.group(1).split(",")))
        out[group] = cfgs
    return out


class Tile:
    """The tile kernel sm_/ls_<dt>_c<COLS>_v<VEC>_r<RPT>_b<BLOCK>_o<MINB>_l<LD>_s<ST>_f<FAST>_p<PERSIST>."""

    lib = False

    def __init__(self, cfg, dtype):
        self.cols, self.vec, self.rpt, self.block, self.minb, self.ld, self.st, self.fast, self.persist = cfg
        self.pack = PACK[dtype]
        self.tpr = self.cols // (self.vec * self.pack)
        assert self.tpr * self.vec * self.pack == self.cols, cfg
        assert 1 <= self.tpr <= WARP and self.tpr & (self.tpr - 1) == 0, cfg
        assert self.block % WARP == 0 and self.block % self.tpr == 0, cfg
        self.rows_per_cta = self.block // self.tpr * self.rpt
        hint = {(0, 0): "", (1, 1): " nc/cs", (3, 1): " L2pf/cs", (0, 1): " st.cs", (2, 0): " ld.cs",
                (2, 1): " ld.cs/st.cs",
                (4, 0): " ld.L2ef", (4, 1): " ld.L2ef/st.cs"}[(self.ld, self.st)]
        self.key = "t%dv%dr%db%do%d%s%s%s" % (self.tpr, self.vec, self.rpt, self.block, self.minb,
                                               "" if self.fast else " libmath", hint,
                                               " persist" if self.persist else "")
        self.variant = self.key

    def kernel_name(self, dtype, op):
        return "%s_%s_c%d_v%d_r%d_b%d_o%d_l%d_s%d_f%d_p%d" % (
            "ls" if op == "log_softmax" else "sm", SHORT[dtype], self.cols, self.vec, self.rpt, self.block,
            self.minb, self.ld, self.st, self.fast, self.persist)

    def launch(self, rows, cols, occupancy, sms, log):
        """(grid, block, extra args after x, y), and a note."""
        assert cols == self.cols
        tiles = ceil_div(rows, self.rows_per_cta)
        grid = min(tiles, occupancy * sms) if self.persist else tiles
        return grid, self.block, (rows,), 0, "%d rows/CTA, %d tiles" % (self.rows_per_cta, tiles)


class Bulk:
    """The bulk-copy tile kernel bsm_/bls_<dt>_c<COLS>_v<VEC>_r<RPT>_b<BLOCK>_o<MINB>_n<PASSES>_s<ST>: one CTA per
    tile of PASSES * rows_per_pass rows, loaded by one cp.async.bulk into dynamic shared memory."""

    lib = False

    def __init__(self, cfg, dtype):
        self.cols, self.vec, self.rpt, self.block, self.minb, self.passes, self.st = cfg
        self.pack = PACK[dtype]
        self.tpr = self.cols // (self.vec * self.pack)
        assert self.tpr * self.vec * self.pack == self.cols, cfg
        assert 1 <= self.tpr <= WARP and self.tpr & (self.tpr - 1) == 0, cfg
        assert self.block % WARP == 0 and self.block % self.tpr == 0, cfg
        self.rows_per_cta = self.block // self.tpr * self.rpt * self.passes
        self.shared = self.rows_per_cta * self.cols * ITEM[dtype]
        assert self.shared <= 48 * 1024, cfg  # no opt-in needed
        self.key = "bulk t%dv%dr%db%do%d n%d %dKB%s" % (self.tpr, self.vec, self.rpt, self.block, self.minb,
                                                        self.passes, self.shared // 1024,
                                                        " st.cs" if self.st else "")
        self.variant = self.key

    def kernel_name(self, dtype, op):
        return "%s_%s_c%d_v%d_r%d_b%d_o%d_n%d_s%d" % (
            "bls" if op == "log_softmax" else "bsm", SHORT[dtype], self.cols, self.vec, self.rpt, self.block,
            self.minb, self.passes, self.st)

    def launch(self, rows, cols, occupancy, sms, log):
        assert cols == self.cols
        tiles = ceil_div(rows, self.rows_per_cta)
        return tiles, self.block, (rows,), self.shared, "%d rows/CTA, %d B shared" % (self.rows_per_cta,
                                                                                      self.shared)


class LibWarp:
    """The library's warp tier (warp_rows.cuh), launched as kernel.cuh's launch_rows_in_registers does."""

    lib = True

    def __init__(self, cols, dtype, fast=0):
        packs = cols // PACK[dtype]
        if packs <= WARP:
            self.width, self.kpacks = 1, 1
            while self.width < packs and self.width < WARP:
                self.width *= 2
        else:
            self.width, self.kpacks = WARP, ceil_div(packs, WARP)
        self.krows = {1: 4, 2: 2}.get(self.kpacks, 1)  # rows_per_group (kGroupRowsOfOnePack / OfTwoPacks)
        self.fast = fast
        self.key = "LIB warp w%d k%d r%d%s" % (self.width, self.kpacks, self.krows, " fast" if fast else "")
        self.variant = self.key

    def kernel_name(self, dtype, op):
        return "lib_warp_%s_k%d_r%d_f%d" % (SHORT[dtype], self.kpacks, self.krows, self.fast)

    def launch(self, rows, cols, occupancy, sms, log):
        tasks = ceil_div(rows, self.krows * (LIB_THREADS // self.width))
        grid = min(tasks, 8 * occupancy * sms)  # grid_for(tasks, full_wave_blocks)
        return grid, LIB_THREADS, (rows, cols, np.int32(self.width), np.int32(1 if log else 0)), 0, \
            "%d tasks" % tasks


class LibBlock:
    """The library's block-register tier (block_register_rows.cuh), launched as launch_rows_in_block_registers:
    the fewest threads (a power of two >= 64) holding the row in 2 packs each; grid = min(rows, 8 waves)."""

    lib = True

    def __init__(self, cols, dtype, ld=0, st=0, fast=0):
        packs = cols // PACK[dtype]
        threads = 64
        while threads * 2 * PACK[dtype] * ITEM[dtype] < 8192 and ceil_div(packs, 2) > threads:
            threads *= 2
        self.threads, self.ld, self.st, self.fast = threads, ld, st, fast
        self.key = "LIB block t%d%s" % (threads, " fast nc/cs" if fast else "")
        self.variant = self.key

    def kernel_name(self, dtype, op):
        return "lib_block_%s_t%d_l%d_s%d_f%d" % (SHORT[dtype], self.threads, self.ld, self.st, self.fast)

    def launch(self, rows, cols, occupancy, sms, log):
        grid = min(rows, 8 * occupancy * sms)
        return grid, self.threads, (rows, cols, np.int32(1 if log else 0)), 0, "grid-stride"


class LibTile:
    """The library's tile tier (tile_rows.cuh, softmax_rows_of_tile) at tile_shape's shape for the row length:
    lib_tile_<dt>_c<COLS>, softmax only; the grid covers the tiles exactly, as launch_rows_in_tiles does."""

    lib = True
    SHAPES = {(128, 8): (8, 2, 128), (256, 8): (16, 2, 128), (512, 8): (32, 2, 64), (512, 4): (32, 4, 64)}

    def __init__(self, cols, dtype, whole=False, block=None):
        self.cols, self.whole = cols, whole
        self.lanes, self.packs, self.block = self.SHAPES[(cols, PACK[dtype])]
        self.other_block = block is not None and block != self.block  # session 16's lib_tilew128_*
        self.block = block or self.block
        self.key = "LIB tile t%dv%db%d%s" % (self.lanes, self.packs, self.block, " whole" if whole else "")
        self.variant = self.key

    def kernel_name(self, dtype, op):
        assert op == "softmax"
        if self.other_block:
            return "lib_tilew%d_%s_c%d" % (self.block, SHORT[dtype], self.cols)
        return "lib_tile%s_%s_c%d" % ("w" if self.whole else "", SHORT[dtype], self.cols)

    def launch(self, rows, cols, occupancy, sms, log):
        tiles = ceil_div(rows, self.block // self.lanes)
        return tiles, self.block, (rows, cols), 0, "%d tiles" % tiles


def block_of(c):
    return c.threads if isinstance(c, LibBlock) else (LIB_THREADS if isinstance(c, LibWarp) else c.block)


def candidates(configs, dtype, cols):
    """Every candidate of a shape: the library's kernel(s) first, then the tile configs built for it."""
    group = "F32_CONFIGS" if dtype == "float32" else "HALF_CONFIGS"
    out = []
    if cols >= 1024:  # the dispatcher sends 1024 columns (f16/bf16/f32, <= 8 KiB) to the block-register tier
        out.append(LibBlock(cols, dtype))
        out.append(LibBlock(cols, dtype, ld=1, st=1, fast=1))
    else:
        out.append(LibWarp(cols, dtype))
    out += [Tile(cfg, dtype) for cfg in configs[group] if cfg[0] == cols]
    out += [Bulk(cfg, dtype) for cfg in configs["BULK_" + group] if cfg[0] == cols]
    return out


# (op, dtype, shapes by columns, which candidates): "all", or ("top", dtype whose softmax ranking picks, n).
PLAN = [
    ("softmax", "float16", [128, 256, 512, 1024], "all"),
    ("softmax", "float32", [128, 256, 512, 1024], "all"),
    ("log_softmax", "float16", [128], ("top", "float16", 3)),
    ("log_softmax", "float32", [128], ("top", "float32", 3)),
    ("softmax", "bfloat16", [128, 256, 512, 1024], ("top", "float16", 3)),
    ("log_softmax", "float32", [1024], ("top", "float32", 3)),
    ("log_softmax", "bfloat16", [128], ("top", "float16", 2)),
    ("log_softmax", "float16", [1024], ("top", "float16", 2)),
]


# Session 12 (--session12): the library's tile kernel against the lab's tile kernel of the same shape, with the
# lab's math (ex2 of one FFMA, rcp) and with the library's (__expf(x - max), 1 / s: "libmath").
SESSION12 = [("softmax", dt, [128, 256, 512], "tile") for dt in ("float16", "bfloat16")] + [
    ("softmax", "float32", [512], "tile")]
if "--session12" in sys.argv:
    PLAN = SESSION12
# Session 15 (--session15): the library's tile kernel masked (as launched before) and unmasked (kWhole: full tiles
# of whole rows), three rounds in turn.
SESSION15 = [("softmax", dt, [128, 256, 512], "whole") for dt in ("float16", "bfloat16")] + [
    ("softmax", "float32", [512], "whole")]
if "--session15" in sys.argv:
    PLAN = SESSION15
# Session 16 (--session16): half rows of 512, the unmasked tile in blocks of 64 (as launched) and 128, four rounds.
SESSION16 = [("softmax", dt, [512], "block128") for dt in ("float16", "bfloat16")]
if "--session16" in sys.argv:
    PLAN = SESSION16
# Session 20 (--session20): half rows of 512 (QuACK 1-2% ahead in run_ops) with cache hints on the library's shape
# and math: the lab's tile 32 lanes x 2 packs, 64 threads, libmath, loads plain / .cs / the reductions' L2
# evict-first policy, stores plain / .cs, beside the library's kernel, three rounds.
SESSION20 = [("softmax", dt, [512], "hints") for dt in ("float16", "bfloat16")]
# --session20b: plain against L2 evict-first loads on every tile shape the library launches (tile_shape), libmath.
LIB_TILE_SHAPES = {("half", 128): (128, 2, 1, 128, 16), ("half", 256): (256, 2, 1, 128, 16),
                   ("half", 512): (512, 2, 1, 64, 32), ("f32", 128): (128, 4, 1, 128, 8),
                   ("f32", 256): (256, 4, 1, 128, 8), ("f32", 512): (512, 4, 1, 64, 16),
                   ("f32", 1024): (1024, 8, 1, 64, 8)}
SESSION20B = [("softmax", dt, [128, 256, 512], "l2ef") for dt in ("float16", "bfloat16")] + [
    ("softmax", "float32", [128, 256, 512, 1024], "l2ef")]
if "--session20" in sys.argv:
    PLAN = SESSION20
if "--session20b" in sys.argv:
    PLAN = SESSION20B


def pick(configs, dtype, cols, how, ranking):
    """The candidates of one plan entry for `dtype`: all, or the library's plus the n fastest tile configs of
    the softmax run of `how[1]` (same columns), rebuilt for `dtype` (same config, so the same tile); "tile":
    the library's tile kernel and the lab's tile configs of its shape (one row per lane group, no hints)."""
    if how == "whole":
        return [LibTile(cols, dtype), LibTile(cols, dtype, whole=True)] * 3
    if how == "hints":
        group = "F32_CONFIGS" if dtype == "float32" else "HALF_CONFIGS"
        hinted = [Tile(cfg, dtype) for cfg in configs[group]
                  if cfg[:5] == (cols, 2, 1, 64, 32) and cfg[7:] == (0, 0)]
        return ([LibTile(cols, dtype, whole=True)] + hinted) * 3
    if how == "l2ef":
        shape = LIB_TILE_SHAPES[("f32" if dtype == "float32" else "half", cols)]
        pair = [Tile(shape + (ld, 0, 0, 0), dtype) for ld in (0, 4)]
        lib = [LibTile(cols, dtype, whole=True)] if (cols, PACK[dtype]) in LibTile.SHAPES else []
        return (lib + pair) * 3
    if how == "block128":
        return [LibTile(cols, dtype, whole=True), LibTile(cols, dtype, whole=True, block=128)] * 4
    if how == "tile":
        lib = LibTile(cols, dtype)
        group = "F32_CONFIGS" if dtype == "float32" else "HALF_CONFIGS"
        same = [Tile(cfg, dtype) for cfg in configs[group] if cfg[0] == cols]
        same = [t for t in same if (t.tpr, t.vec, t.rpt, t.block, t.ld, t.st, t.persist) ==
                (lib.lanes, lib.packs, 1, lib.block, 0, 0, 0)]
        return [lib] + same
    cands = candidates(configs, dtype, cols)
    if how == "all":
        return cands
    _, source, n = how
    lib = [c for c in cands if c.lib]
    order = ranking.get((source, cols), [])
    by_key = {c.key: c for c in cands if not c.lib}
    top = [by_key[k] for k in order if k in by_key][:n]
    if not top:  # no ranking (dry run, or every candidate failed): the first n configs
        top = [c for c in cands if not c.lib][:n]
    return lib[:1] + top if cols < 1024 else lib + top


# ---- Dry run (no GPU, no torch): launch configurations and kernel names ----


def cubin_symbols():
    cubin = HERE / "build" / (NAME + ".cubin")
    if not cubin.exists():
        return None
    for tool, args in (("cuobjdump", ["-symbols"]), ("readelf", ["-sW"])):
        path = shutil.which(tool)
        if path:
            text = subprocess.run([path] + args + [str(cubin)], capture_output=True, text=True).stdout
            return set(re.findall(r"\b((?:sm|ls|bsm|bls|lib_warp|lib_block|lib_tilew?\d*)_\w+)", text))
    return None


def dry(configs):
    symbols = cubin_symbols()
    sms = 132
    missing, calls = [], 0
    ranking = {}
    for op, dtype, cols_list, how in PLAN:
        for cols in cols_list:
            rows = ROWS[cols]
            for c in pick(configs, dtype, cols, how, ranking):
                name = c.kernel_name(dtype, op)
                # Occupancy for the dry run: the thread limit alone (the GPU run asks the driver).
                occupancy = min(32, 2048 // block_of(c))
                grid, block, args, shared, note = c.launch(rows, cols, occupancy, sms, op == "log_softmax")
                if isinstance(c, (Tile, Bulk)):
                    persist = getattr(c, "persist", 0)
                    covered = (grid if not persist else ceil_div(rows, c.rows_per_cta)) * c.rows_per_cta
                    assert covered >= rows and (grid - 1) * c.rows_per_cta < rows, (name, grid)
                    assert grid <= 2**31 - 1
                if isinstance(c, LibBlock):
                    assert c.threads * 2 * PACK[dtype] >= cols, name
                if isinstance(c, LibWarp):
                    assert c.width * c.kpacks * PACK[dtype] >= cols, name
                ok = symbols is None or name in symbols
                if not ok:
                    missing.append(name)
                calls += 1
                print("%-12s %-9s %5dx%-5d %-34s %-46s grid %6d block %4d shared %5d  %s%s" % (
                    op, dtype, rows, cols, c.variant, name, grid, block, shared, note, "" if ok else "  MISSING"))
    print("%d timed calls planned; cubin %s; %d kernel names missing" % (
        calls, "checked" if symbols is not None else "not found (names unchecked)", len(missing)))
    return 1 if missing else 0


# ---- The GPU run ----


def main():
    configs = parse_configs()
    if DRY:
        return dry(configs)
    import cupy
    import torch

    sys.path.insert(0, str(HERE))
    import lab

    module = lab.load(NAME)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    kernels, info = {}, {}

    def kernel(name, block, shared):
        if name not in kernels:
            k = module.kernel(name)
            # RawModule.get_function gives a RawKernel (its .kernel is the loaded Function, .ptr its
            # CUfunction): loading it here also fails early, inside the candidate's try, on a missing name.
            function = k.function.kernel if hasattr(k.function, "kernel") else k.function
            try:
                if shared:  # the bulk kernels: all of the SM's unified memory as shared memory
                    k.function.preferred_shared_memory_carveout = 100
            except Exception as e:  # noqa: BLE001
                print("setting the shared memory carveout of %s failed: %s" % (name, e))
            try:
                occupancy = int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function.ptr, block,
                                                                                            shared))
            except Exception as e:  # noqa: BLE001
                print("occupancy query failed for %s (%s): assuming the thread limit" % (name, e))
                occupancy = min(32, 2048 // block)
            try:
                regs = int(cupy.cuda.driver.funcGetAttribute(4, function.ptr))  # CU_FUNC_ATTRIBUTE_NUM_REGS
            except Exception:  # noqa: BLE001
                regs = None
            kernels[name] = k
            info[name] = {"occupancy": max(1, occupancy), "regs": regs}
        return kernels[name], info[name]

    rows_out, ranking = [], {}
    tdtype = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    for op, dtype, cols_list, how in PLAN:
        for cols in cols_list:
            rows = ROWS[cols]
            label = "%dx%d" % (rows, cols)
            torch.manual_seed(cols)
            x = torch.randn(rows, cols, device="cuda", dtype=torch.float32).to(tdtype[dtype])
            y = torch.empty_like(x)
            ref = (torch.log_softmax if op == "log_softmax" else torch.softmax)(x.double(), dim=-1)
            peer = lab.best_peer(op, label, dtype)
            ours = lab.recorded_ours(op, label, dtype)
            log = op == "log_softmax"
            timed = []
            for c in pick(configs, dtype, cols, how, ranking):
                name = c.kernel_name(dtype, op)
                row = {"op": op, "shape": ("log " if log else "") + label, "dtype": dtype, "variant": c.variant,
                       "kernel": name, "p20": float("nan"), "p50": float("nan"), "p80": float("nan"),
                       "best_peer": peer, "recorded_ours": ours, "status": "ok"}
                if time.time() - T0 > TIME_BUDGET_S:
                    row["status"] = "skipped: past the lab's time budget"
                    rows_out.append(row)
                    print("skipped (time budget): %s %s %s" % (op, label, c.variant), flush=True)
                    continue
                try:
                    k, meta = kernel(name, block_of(c), getattr(c, "shared", 0))
                    grid, block, args, shared, note = c.launch(rows, cols, meta["occupancy"], sms, log)
                    row.update({"grid": grid, "block": block, "shared": shared, "regs": meta["regs"],
                                "ctas_per_sm": meta["occupancy"], "note": note})
                    fn = lambda k=k, grid=grid, block=block, args=args, shared=shared, x=x, y=y: k.launch(  # noqa: E731
                        grid, block, x, y, *args, shared=shared)
                    y.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    lab.check("%s %s %s %s" % (op, label, dtype, c.variant), y, ref, dtype)
                    t = lab.time_us(fn)
                    row.update({"p20": t["p20"], "p50": t["p50"], "p80": t["p80"]})
                    if not c.lib:
                        timed.append((t["p50"], c.key))
                except Exception as e:  # noqa: BLE001
                    row["status"] = "%s: %s" % (type(e).__name__, str(e)[:300])
                    print("FAILED %s %s %s %s: %s" % (op, label, dtype, c.variant, row["status"]), flush=True)
                rows_out.append(row)
                lab.print_row(row)
            if how == "all" and op == "softmax":
                ranking[(dtype, cols)] = [key for _, key in sorted(timed)]
            del x, y, ref
            torch.cuda.empty_cache()
    # The winner of each (op, shape, dtype) against its peer.
    print("\nbest per row (p50 us): ours-lab / LIB-lab / recorded ours / best peer")
    seen = {}
    for r in rows_out:
        if r["status"] != "ok":
            continue
        k = (r["op"], r["shape"], r["dtype"])
        s = seen.setdefault(k, {"best": None, "lib": None, "peer": r["best_peer"], "ours": r["recorded_ours"]})
        if r["variant"].startswith("LIB") and (s["lib"] is None or r["p50"] < s["lib"][0]):
            s["lib"] = (r["p50"], r["variant"])
        if not r["variant"].startswith("LIB") and (s["best"] is None or r["p50"] < s["best"][0]):
            s["best"] = (r["p50"], r["variant"])
    for k, s in seen.items():
        print("%-12s %-18s %-9s best %-8s %-34s LIB %-8s recorded %-7s peer %s" % (
            k[0], k[1], k[2], "%.2f" % s["best"][0] if s["best"] else "-", s["best"][1] if s["best"] else "",
            "%.2f" % s["lib"][0] if s["lib"] else "-", s["ours"], s["peer"]))
    suffix = {id(SESSION12): "-session12", id(SESSION15): "-session15", id(SESSION16): "-session16",
              id(SESSION20): "-session20",
              id(SESSION20B): "-session20b"}.get(id(PLAN), "")
    lab.save(NAME + suffix, rows_out, {"elapsed_s": time.time() - T0, "sm_count": sms})
    print("elapsed %.1f s" % (time.time() - T0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
