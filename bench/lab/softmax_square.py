"""Lab softmax_square: softmax over the last axis of 4096x4096 and 8192x8192 (f16, bf16, f32) on the H200.

    cd bench/lab && python3 softmax_square.py         # on the GPU machine (cubin from build.sh softmax_square.cu)
    python3 softmax_square.py --dry                   # anywhere: launch configurations, kernel names vs the cubin

Per shape x dtype: the library's current design (lib_reg / lib_shm, and the same with .cs stores), then the
whole-row-in-register candidates of softmax_square.cu (see its header for the name scheme):
sq_<dt>_t<threads>_p<packs per thread>_b<min blocks>_r<0: two barriers | 1: one barrier, online warp pairs>
_l<load hint>_s<store hint>_f<1: persistent with next-row prefetch>.
Each candidate is checked against torch (float32 softmax for half types, float64 for f32; row 0 has its
first half -inf, so whole warps see only -inf), run twice for bitwise repeatability, then timed.
"""

import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np

NAME = "softmax_square"
SHAPES = [(4096, 4096), (8192, 8192)]
DTYPES = ["float16", "bfloat16", "float32"]
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
ITEM = {"float16": 2, "bfloat16": 2, "float32": 4}
H200_SMS = 132

LOADS = {0: "ld", 1: "ld.nc", 2: "ld.nc.noL1", 3: "ld.cs", 4: "ld.nc.noL1.L2pf256", 5: "ld.ca"}
STORES = {0: "st", 1: "st.cs"}

# (threads, packs per thread, min blocks, red, load, store, persistent), as instantiated in softmax_square.cu.
CANDIDATES = {
    ("half", 4096): [
        (256, 2, 8, 0, 0, 1, 0),  # Liger's shape: 8 warps, 2 packs, .cs stores, two barriers
        (256, 2, 8, 0, 0, 0, 0),
        (256, 2, 8, 1, 0, 1, 0),  # one barrier
        (256, 2, 8, 1, 1, 1, 0),
        (256, 2, 8, 1, 2, 1, 0),
        (256, 2, 8, 1, 3, 1, 0),
        (256, 2, 8, 1, 4, 1, 0),
        (256, 2, 8, 1, 0, 0, 0),
        (512, 1, 4, 1, 0, 1, 0),
        (512, 1, 4, 0, 0, 1, 0),
        (128, 4, 10, 1, 0, 1, 0),
        (256, 2, 6, 1, 0, 1, 1),
        (256, 2, 8, 0, 5, 1, 0),  # Liger's loads too (.ca), session 8
        (256, 2, 8, 0, 5, 0, 0),
    ],
    ("half", 8192): [
        (512, 2, 4, 0, 0, 1, 0),  # Liger's shape: 16 warps, 2 packs
        (512, 2, 4, 0, 0, 0, 0),
        (512, 2, 4, 1, 0, 1, 0),
        (512, 2, 4, 1, 1, 1, 0),
        (512, 2, 4, 1, 2, 1, 0),
        (512, 2, 4, 1, 3, 1, 0),
        (512, 2, 4, 1, 4, 1, 0),
        (512, 2, 4, 1, 0, 0, 0),
        (1024, 1, 2, 1, 0, 1, 0),
        (256, 4, 5, 1, 0, 1, 0),
        (1024, 1, 2, 0, 0, 1, 0),
        (512, 2, 3, 1, 0, 1, 1),
    ],
    ("f32", 4096): [
        (256, 4, 8, 0, 0, 1, 0),  # Liger's shape: 8 warps, 4 packs
        (256, 4, 8, 0, 0, 0, 0),
        (256, 4, 8, 1, 0, 1, 0),
        (256, 4, 8, 1, 1, 1, 0),
        (256, 4, 8, 1, 2, 1, 0),
        (256, 4, 8, 1, 3, 1, 0),
        (256, 4, 8, 1, 4, 1, 0),
        (256, 4, 8, 1, 0, 0, 0),
        (512, 2, 4, 1, 0, 1, 0),
        (1024, 1, 2, 1, 0, 1, 0),
        (128, 8, 8, 1, 0, 1, 0),
        (256, 4, 4, 1, 0, 1, 1),
        (256, 4, 8, 0, 5, 1, 0),  # Liger's loads too (.ca), session 8
        (256, 4, 8, 0, 5, 0, 0),
    ],
    ("f32", 8192): [
        (512, 4, 4, 0, 0, 1, 0),  # Liger's shape: 16 warps, 4 packs
        (512, 4, 4, 0, 0, 0, 0),
        (512, 4, 4, 1, 0, 1, 0),
        (512, 4, 4, 1, 1, 1, 0),
        (512, 4, 4, 1, 2, 1, 0),
        (512, 4, 4, 1, 3, 1, 0),
        (512, 4, 4, 1, 4, 1, 0),
        (512, 4, 4, 1, 0, 0, 0),
        (1024, 2, 2, 1, 0, 1, 0),
        (256, 8, 4, 1, 0, 1, 0),
        (512, 4, 2, 1, 0, 1, 1),
    ],
}


def occupancy(kernel, block, shared, fallback):
    """Resident blocks per SM of a kernel (driver occupancy query), or `fallback` (dry run / no query)."""
    if kernel is None:
        return fallback
    try:
        import cupy

        return int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.function.ptr, block, shared))
    except Exception as e:  # noqa: BLE001
        print("  (occupancy query failed for %s: %s; assuming %d)" % (kernel.name, e, fallback))
        return fallback


def launches(rows, cols, dtype, sms, get=None):
    """[(variant, kernel name, grid, block, shared, note)] for one shape x dtype. get(name) -> lab Kernel or
    None (dry run); it serves only the occupancy queries of the grid-stride / persistent launches."""
    dt, item = SHORT[dtype], ITEM[dtype]
    pack = 16 // item
    assert cols % pack == 0
    packs = cols // pack
    row_bytes = cols * item
    out = []
    kget = get or (lambda name: None)
    if dtype != "float32" and row_bytes <= 8 * 1024:
        # block_register_rows.cuh: 256 threads, grid_for(rows, wave) = min(rows, 8 * SMs * blocks per SM).
        for variant, name in (("lib_reg (current)", "lib_reg_" + dt), ("lib_reg + st.cs", "lib_reg_cs_" + dt)):
            occ = occupancy(kget(name), 256, 0, 8)
            out.append((variant, name, min(rows, 8 * sms * occ), 256, 0, "grid-stride, %d blocks/SM" % occ))
    else:
        # block_shared_rows.cuh: 256 threads, min(rows, SMs * 64) blocks, the row in dynamic shared memory.
        for variant, name in (("lib_shm (current)", "lib_shm_" + dt), ("lib_shm + st.cs", "lib_shm_cs_" + dt)):
            out.append((variant, name, min(rows, sms * 64), 256, row_bytes, "row cached in shared"))
    group = ("f32" if dtype == "float32" else "half", cols)
    for threads, ppt, minb, red, ld, st, persist in CANDIDATES[group]:
        assert packs <= threads * ppt, (group, threads, ppt)
        name = "sq_%s_t%d_p%d_b%d_r%d_l%d_s%d_f%d" % (dt, threads, ppt, minb, red, ld, st, persist)
        variant = "t%d x%d b%d %s %s %s%s" % (threads, ppt, minb, "1bar" if red else "2bar", LOADS[ld], STORES[st],
                                              " persist" if persist else "")
        if persist:
            occ = occupancy(kget(name), threads, 0, minb)
            grid, note = min(rows, sms * occ), "persistent, %d blocks/SM" % occ
        else:
            grid, note = rows, "a block per row"
        out.append((variant, name, grid, threads, 0, note))
    return out


def cubin_symbols():
    """The cubin's function names: from cuobjdump where there is one, else from the ELF string table (names
    between NUL bytes; exact, so a name is never taken for a prefix of a longer one). None: no cubin."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build", NAME + ".cubin")
    if not os.path.exists(path):
        return None
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if os.path.exists(tool):
        text = subprocess.run([tool, "-symbols", path], capture_output=True, text=True).stdout
        return {line.split()[-1] for line in text.splitlines() if "STT_FUNC" in line}
    with open(path, "rb") as f:
        data = f.read()
    return {s.decode("ascii", "replace") for s in data.split(b"\x00") if s.startswith((b"lib_", b"sq_"))}


def dry():
    symbols = cubin_symbols()
    missing, count = [], 0
    for rows, cols in SHAPES:
        for dtype in DTYPES:
            print("%dx%d %s" % (rows, cols, dtype))
            for variant, name, grid, block, shared, note in launches(rows, cols, dtype, H200_SMS):
                count += 1
                assert 1 <= grid <= 2**31 - 1 and block in (128, 256, 512, 1024) and shared <= 47 * 1024
                print("  %-40s %-34s grid %5d block %4d shared %6d  %s" % (variant, name, grid, block, shared, note))
                if symbols is not None and name not in symbols:
                    missing.append(name)
    print("%d launches (timed once each)" % count)
    if symbols is None:
        print("cubin or cuobjdump not found: kernel names not checked")
    elif missing:
        print("MISSING from the cubin:", missing)
        sys.exit(1)
    else:
        print("all %d kernel names are in the cubin (%d symbols)" % (count, len(symbols)))


def main():
    import torch

    import lab

    start = time.perf_counter()
    deadline_s = float(os.environ.get("LAB_DEADLINE_S", "52"))  # timings stop past this, the run stays < 60 s
    module = lab.load(NAME)
    kernels = {}

    def get(name):
        if name not in kernels:
            kernels[name] = module.kernel(name)
        return kernels[name]

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    torch_dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    rows_out = []
    for rows, cols in SHAPES:
        label = "%dx%d" % (rows, cols)
        for dtype in DTYPES:
            gen = torch.Generator(device="cuda").manual_seed(1234 + rows + ITEM[dtype])
            x = (torch.randn(rows, cols, device="cuda", generator=gen) * 3.0).to(torch_dtype[dtype])
            x[0, : cols // 2] = float("-inf")  # whole warps of -inf (the one-barrier kernels' guard)
            expected = torch.softmax(x.double() if dtype == "float32" else x.float(), dim=-1)
            y = torch.empty_like(x)
            y2 = torch.empty_like(x)
            peer = lab.best_peer("softmax", label, dtype)
            ours = lab.recorded_ours("softmax", label, dtype)
            for variant, name, grid, block, shared, note in launches(rows, cols, dtype, sms, get):
                row = {"shape": label, "dtype": dtype, "variant": variant, "kernel": name, "grid": grid,
                       "block": block, "shared": shared, "note": note, "best_peer": peer, "recorded_ours": ours,
                       "p20": float("nan"), "p50": float("nan"), "p80": float("nan")}
                try:
                    kernel = get(name)
                    row["regs"] = getattr(kernel.function, "num_regs", None)
                    row["local_bytes"] = getattr(kernel.function, "local_size_bytes", None)
                    call = lambda out, kernel=kernel, grid=grid, block=block, shared=shared: kernel.launch(
                        grid, block, x, out, rows, cols, shared=shared)
                    y.fill_(float("nan"))
                    call(y)
                    torch.cuda.synchronize()
                    lab.check("%s %s %s" % (label, dtype, name), y, expected, dtype)
                    call(y2)
                    torch.cuda.synchronize()
                    repeat = bool(torch.equal(y.view(torch.int16 if ITEM[dtype] == 2 else torch.int32),
                                              y2.view(torch.int16 if ITEM[dtype] == 2 else torch.int32)))
                    if time.perf_counter() - start > deadline_s:
                        raise TimeoutError("skipped: past the lab's %.0f s time budget (checked, not timed)" % deadline_s)
                    stats = lab.time_us(lambda: call(y))
                    row.update({k: stats[k] for k in ("p20", "p50", "p80")})
                    row["device_kernels"] = stats.get("kernels")
                    row["status"] = "ok" if repeat else "ok, NOT bitwise repeatable"
                except TimeoutError as e:
                    row["status"] = str(e)
                except Exception as e:  # noqa: BLE001
                    row["status"] = "error: %s" % (str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
                    print("  FAILED %s %s %s: %s" % (label, dtype, name, row["status"]), flush=True)
                lab.print_row(row)
                if row["status"] != "ok":
                    print("    status:", row["status"], flush=True)
                rows_out.append(row)
            del x, expected, y, y2
            torch.cuda.empty_cache()
            print("  (%.1f s elapsed)" % (time.perf_counter() - start), flush=True)

    # Summary: per shape x dtype, the current design, the best candidate, the peer.
    print("\nsummary (p50 device us; copy-peak floor = 2 * bytes / 4237 GB/s)")
    for rows, cols in SHAPES:
        label = "%dx%d" % (rows, cols)
        for dtype in DTYPES:
            group = [r for r in rows_out if r["shape"] == label and r["dtype"] == dtype and r["status"].startswith("ok")]
            if not group:
                print("%-10s %-9s no successful variant" % (label, dtype))
                continue
            best = min(group, key=lambda r: r["p50"])
            lib = next((r for r in group if "(current)" in r["variant"]), None)
            peer = group[0]["best_peer"]
            floor = 2.0 * rows * cols * ITEM[dtype] / 4237e3
            print("%-10s %-9s floor %6.1f  lib %s  best %-40s %6.2f  peer %s" % (
                label, dtype, floor, "%6.2f" % lib["p50"] if lib else "   -  ", best["variant"], best["p50"],
                "%s %.2f" % tuple(peer) if peer else "-"))
    lab.save(NAME, rows_out)


if __name__ == "__main__":
    if "--dry" in sys.argv:
        dry()
    else:
        main()
