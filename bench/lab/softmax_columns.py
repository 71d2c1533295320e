#!/usr/bin/env python3
"""Lab: softmax over axis 0 of a C-contiguous x[dim, inner] on the H200 (kernels in softmax_columns.cu).

Rows: 4096x4096 axis=0 and 1024x32768 axis=0, float16 / bfloat16 / float32. Per row: `base` (a copy of
the library's columns.cuh, launched as kernel.cuh's launch_columns launches it, to calibrate against
recorded_ours), then the candidates (see the .cu's header): reg_* and smem_* read x once and write y
once (a column tile cut along dim over a thread-block cluster, held in registers / shared memory, the
cluster combining its (max, sum) stats through DSMEM); split2_* the same tiles without a cluster, two
kernels through a workspace. At the end the base and the best candidate of each row are timed again.

    cd bench/lab && python3 softmax_columns.py          # on the GPU machine (cubin from build.sh)
    python3 softmax_columns.py --dry                    # here: launch configurations and kernel names only
    python3 softmax_columns.py --dry --names            # just the kernel names (to diff with the cubin)
"""

import math
import pathlib
import sys

import numpy as np

DRY = "--dry" in sys.argv
NAME = "softmax_columns"
OP = "softmax"
HERE = pathlib.Path(__file__).resolve().parent
SHAPES = [("4096x4096 axis=0", 4096, 4096), ("1024x32768 axis=0", 1024, 32768)]
DTYPES = [("float16", "f16", 2), ("bfloat16", "bf16", 2), ("float32", "f32", 4)]
SCALE = 2.0  # x = SCALE * randn: logits of a realistic spread
COPY_PEAK_GBPS = 4237.0

# ---- the library's dispatch for columns (ops/softmax/nvidia/kernel.cuh, tuning.cuh) ----
K_THREADS, K_SEGMENT_BYTES, K_SPLIT_MIN_GAIN = 256, 128, 0.1
K_MIN_PART_ROWS, K_MAX_SPLITS, K_MAX_SPLIT_BLOCKS = 512, 32, 4096


def ceil_div(a, b):
    return (a + b - 1) // b


def group_width(n):
    w = 1
    while w < n and w < 32:
        w *= 2
    return w


def max_column_splits(dim, inner, size, outer=1):
    tiles = outer * ceil_div(inner, K_SEGMENT_BYTES // size)
    return max(1, min(K_MAX_SPLITS, dim // K_MIN_PART_ROWS, K_MAX_SPLIT_BLOCKS // max(1, tiles)))


def choose_column_splits(tiles, wave, max_splits):
    def fill(s):
        blocks = tiles * s
        return blocks / (ceil_div(blocks, wave) * wave)

    best = 1
    for s in range(2, max_splits + 1):
        if fill(s) > fill(best) + K_SPLIT_MIN_GAIN:
            best = s
    return best


def base_plan(dim, inner, size, wave_stats, wave_columns, wave_output, outer=1):
    """launch_columns<T, 16 / size>: width, tiles, splits, chunk and grids."""
    v = 16 // size
    lanes = max(1, K_SEGMENT_BYTES // (v * size))
    width = min(group_width(ceil_div(inner, v)), group_width(lanes))
    while width < 32 and width * v < inner and K_THREADS // width > dim:
        width *= 2
    tiles = outer * ceil_div(inner, width * v)
    splits = choose_column_splits(tiles, wave_stats, max_column_splits(dim, inner, size, outer))
    if splits <= 1:
        return dict(width=width, tiles=tiles, splits=1, chunk=dim, grid=min(tiles, 8 * wave_columns))
    chunk = ceil_div(dim, splits)
    splits = ceil_div(dim, chunk)
    return dict(width=width, tiles=tiles, splits=splits, chunk=chunk, grid=min(tiles * splits, 8 * wave_stats),
                grid_output=min(tiles * splits, 8 * wave_output))


# ---- candidates ----
def reg(dt, pb, l, th, r, cs, e, lp, note):
    return dict(kind="reg", pb=pb, l=l, th=th, r=r, cs=cs, e=e, lp=lp, note=note,
                kernel="reg_%s_p%d_l%d_t%d_r%d_c%d_e%d_lp%d" % (dt, pb, l, th, r, cs, e, lp))


def smem(dt, l, th, r, cs, e, note):
    return dict(kind="smem", pb=16, l=l, th=th, r=r, cs=cs, e=e, note=note,
                kernel="smem_%s_l%d_t%d_r%d_c%d_e%d" % (dt, l, th, r, cs, e))


def split2(dt, pb, l, th, r, cs, lp, note):
    return dict(kind="split2", pb=pb, l=l, th=th, r=r, cs=cs, note=note,
                kernel="split2_stats_%s_p%d_l%d_t%d_r%d_c%d_lp%d" % (dt, pb, l, th, r, cs, lp),
                kernel_output="split2_output_%s_p%d_l%d_t%d_r%d_c%d" % (dt, pb, l, th, r, cs))


def variants(label, dt, size):
    out = [dict(kind="base", note="library columns.cuh as dispatched")]
    if label.startswith("4096x4096"):
        out += [
            reg(dt, 16, 8, 256, 16, 8, 0, 0, "128B tile, cluster 8 x 512 rows, x in regs (2 ex2/elt)"),
            reg(dt, 16, 8, 256, 16, 8, 1, 0, "128B tile, cluster 8, exp kept in regs (1 ex2/elt)"),
            reg(dt, 16, 8, 256, 16, 8, 1, 1, "... + L2 evict_first policy on x"),
            reg(dt, 16, 8, 256, 16, 8, 1, 2, "... + L2::256B prefetch on x"),
            reg(dt, 16, 4, 256, 8, 8, 1, 0, "64B tile, cluster 8, 8 packs/thread"),
        ]
        if size == 2:
            out.append(reg(dt, 8, 16, 256, 32, 8, 1, 0, "8-byte packs (4 halves/thread), 128B tile, cluster 8"))
        out += [
            smem(dt, 8, 256, 16, 8, 1, "128B tile, cluster 8, 64 KB smem/CTA via cp.async"),
            smem(dt, 4, 256, 8, 8, 1, "64B tile, cluster 8, 32 KB smem/CTA via cp.async"),
            split2(dt, 16, 8, 256, 16, 8, 0, "128B tile, 8 parts, stats->workspace, 2nd kernel re-reads x"),
        ]
    else:
        out += [
            reg(dt, 16, 8, 256, 16, 2, 0, 0, "128B tile, cluster 2 x 512 rows, x in regs (2 ex2/elt)"),
            reg(dt, 16, 8, 256, 16, 2, 1, 0, "128B tile, cluster 2, exp kept in regs"),
            reg(dt, 16, 8, 256, 16, 2, 1, 1, "... + L2 evict_first policy on x"),
            reg(dt, 16, 8, 256, 8, 4, 1, 0, "128B tile, cluster 4 x 256 rows, 8 packs/thread"),
            reg(dt, 16, 4, 256, 16, 1, 1, 0, "64B tile, no cluster: 1024 rows in one CTA's regs"),
        ]
        if size == 2:
            out.append(reg(dt, 8, 16, 256, 32, 2, 1, 0, "8-byte packs, 128B tile, cluster 2"))
        out += [
            smem(dt, 4, 256, 16, 1, 1, "64B x 1024 rows = 64 KB smem, no cluster"),
            smem(dt, 8, 256, 16, 2, 1, "128B tile, cluster 2, 64 KB smem/CTA"),
        ]
    for v in out:
        v["variant"] = v.get("kernel", "base_%s" % dt)
    return out


def geometry(v, dim, inner, size):
    """Grid / block / shared of a reg, smem or split2 candidate; raises when the shape does not fit it."""
    nw = v["pb"] // 4
    per_word = 4 // size
    cols = nw * per_word  # V
    tc = v["l"] * cols
    h = v["th"] // v["l"]
    rows = h * v["r"]
    assert 32 % v["l"] == 0 and tc <= v["th"], v
    assert inner % tc == 0, "inner %d not a multiple of the tile's %d columns" % (inner, tc)
    assert rows * v["cs"] >= dim, "%d rows per CTA x %d CTAs < dim %d" % (rows, v["cs"], dim)
    assert rows * (v["cs"] - 1) < dim, "a CTA of the cluster would hold no rows"
    grid = (inner // tc) * v["cs"]
    assert grid < 2 ** 31
    shared = v["r"] * v["th"] * 16 if v["kind"] == "smem" else 0
    assert shared + 6 * 1024 <= 227 * 1024
    return dict(grid=grid, block=v["th"], shared=shared, tile_cols=tc, rows_per_cta=rows,
                tile_bytes_per_cta=rows * v["pb"] * v["l"])


def cubin_names():
    path = HERE / "build" / (NAME + ".cubin")
    return path.read_bytes() if path.exists() else None


def all_kernel_names():
    names = []
    for label, dim, inner in SHAPES:
        for _, dt, size in DTYPES:
            for v in variants(label, dt, size):
                if v["kind"] == "base":
                    names += ["base_columns_" + dt, "base_stats_" + dt, "base_output_" + dt]
                else:
                    names.append(v["kernel"])
                    if v["kind"] == "split2":
                        names.append(v["kernel_output"])
    return list(dict.fromkeys(names))


def dry_run():
    if "--names" in sys.argv:
        for n in sorted(all_kernel_names()):
            print(n)
        return
    cubin = cubin_names()
    missing = [n for n in all_kernel_names() if cubin is not None and (b"\0" + n.encode() + b"\0") not in cubin]
    wave = 132 * 3
    count = 0
    for label, dim, inner in SHAPES:
        for dname, dt, size in DTYPES:
            print("== %s %s: x %.0f MB" % (label, dname, dim * inner * size / 2 ** 20))
            for v in variants(label, dt, size):
                count += 1
                if v["kind"] == "base":
                    p = base_plan(dim, inner, size, wave, wave, wave)
                    if p["splits"] == 1:
                        print("  %-44s base_columns_%s grid %d block 256 width %d tiles %d (unsplit)" % (
                            v["variant"], dt, p["grid"], p["width"], p["tiles"]))
                    else:
                        print("  %-44s base_stats/output_%s grid %d/%d block 256 width %d tiles %d splits %d "
                              "chunk %d ws %d floats" % (v["variant"], dt, p["grid"], p["grid_output"], p["width"],
                                                         p["tiles"], p["splits"], p["chunk"], p["splits"] * inner * 2))
                    continue
                g = geometry(v, dim, inner, size)
                extra, group = "", "cluster"
                if v["kind"] == "split2":
                    extra, group = " + %s, ws %d floats" % (v["kernel_output"], inner * v["cs"] * 2), "parts  "
                print(("  %-44s grid %5d block %d shared %6d " + group + " %d rows/CTA %d tile %d cols, %d KB/CTA%s") % (
                    v["variant"], g["grid"], g["block"], g["shared"], v["cs"], g["rows_per_cta"], g["tile_cols"],
                    g["tile_bytes_per_cta"] // 1024, extra))
    print("%d timed rows (+ %d repeats); kernels missing from the cubin: %s" % (
        count, 2 * len(SHAPES) * len(DTYPES), missing if cubin is not None else "(no cubin built)"))


def main():
    import torch

    import lab

    assert torch.cuda.is_available()
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    module = lab.load(NAME)
    missing = [n for n in all_kernel_names() if (b"\0" + n.encode() + b"\0") not in cubin_names()]
    if missing:
        print("WARNING: kernels missing from the cubin:", missing)

    kernels = {}

    def kernel(name):
        if name not in kernels:
            kernels[name] = module.kernel(name)
        return kernels[name]

    def regs(name):
        try:
            return int(kernel(name).function.num_regs)
        except Exception:
            return None

    def occupancy(name, threads, shared=0):
        try:
            import cupy

            return int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                kernel(name).function.ptr, threads, shared))
        except Exception:
            return None

    rows = []
    best = {}

    def finish(row):
        rows.append(row)
        lab.print_row(row)

    def context_alive():
        try:
            torch.cuda.synchronize()
            return True
        except Exception as e:  # a sticky error (illegal address): nothing after this can run
            print("CUDA context broken:", e)
            return False

    def make_call(v, x, y, dim, inner, size, dt):
        """(callable, info) for a variant on x -> y."""
        if v["kind"] == "base":
            waves = {}
            for k in ("stats", "columns", "output"):
                occ = occupancy("base_%s_%s" % (k, dt), K_THREADS)
                waves[k] = sms * (occ if occ else 3)
            p = base_plan(dim, inner, size, waves["stats"], waves["columns"], waves["output"])
            if p["splits"] == 1:
                kc = kernel("base_columns_" + dt)
                grid = p["grid"]
                call = lambda: kc.launch(grid, K_THREADS, x, y, 1, dim, inner, np.int32(p["width"]), np.int32(0))
                info = dict(grid=grid, block=K_THREADS, shared=0, splits=1, width=p["width"],
                            regs=regs("base_columns_" + dt), waves=waves)
            else:
                ks, ko = kernel("base_stats_" + dt), kernel("base_output_" + dt)
                ws = torch.empty(p["splits"] * inner * 2, dtype=torch.float32, device="cuda")

                def call(p=p, ws=ws):
                    ks.launch(p["grid"], K_THREADS, x, ws, 1, dim, inner, np.int32(p["width"]), p["splits"], p["chunk"])
                    ko.launch(p["grid_output"], K_THREADS, x, y, ws, 1, dim, inner, np.int32(p["width"]), p["splits"],
                              p["chunk"], np.int32(0))

                info = dict(grid=[p["grid"], p["grid_output"]], block=K_THREADS, shared=0, splits=p["splits"],
                            chunk=p["chunk"], width=p["width"], regs=[regs("base_stats_" + dt), regs("base_output_" + dt)],
                            waves=waves)
            return call, info
        g = geometry(v, dim, inner, size)
        k = kernel(v["kernel"])
        if v["kind"] == "smem":
            k.set_max_dynamic_shared(g["shared"])
        info = dict(grid=g["grid"], block=g["block"], shared=g["shared"], cluster=v["cs"], regs=regs(v["kernel"]),
                    blocks_per_sm=occupancy(v["kernel"], g["block"], g["shared"]), note=v["note"])
        if v["kind"] == "split2":
            ko = kernel(v["kernel_output"])
            ws = torch.empty(inner * v["cs"] * 2, dtype=torch.float32, device="cuda")
            info["regs"] = [info["regs"], regs(v["kernel_output"])]

            def call(ws=ws):
                k.launch(g["grid"], g["block"], x, ws, dim, inner)
                ko.launch(g["grid"], g["block"], x, y, ws, dim, inner)

            return call, info
        return (lambda: k.launch(g["grid"], g["block"], x, y, dim, inner, shared=g["shared"])), info

    def run_variant(v, x, y, expected, label, dname, dim, inner, size, dt, repeat=False):
        row = dict(shape=label, dtype=dname, variant=v["variant"] + (" (again)" if repeat else ""),
                   p20=float("nan"), p50=float("nan"), p80=float("nan"),
                   best_peer=lab.best_peer(OP, label, dname), recorded_ours=lab.recorded_ours(OP, label, dname),
                   status="ok", note=v.get("note", ""))
        try:
            call, info = make_call(v, x, y, dim, inner, size, dt)
            row.update(info)
        except Exception as e:
            row["status"] = "setup failed: %s" % e
            finish(row)
            return context_alive()
        try:
            y.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
        except Exception as e:
            row["status"] = "launch failed: %s" % e
            finish(row)
            return context_alive()
        try:
            lab.check("%s %s %s" % (label, dname, v["variant"]), y, expected, dname)
        except Exception as e:
            row["status"] = "wrong: %s" % e
            print("  ", row["status"])
        try:
            t = lab.time_us(call)
            row.update(p20=t["p20"], p50=t["p50"], p80=t["p80"], kernels=t["kernels"])
            row["GBps"] = 2 * dim * inner * size / (t["p50"] * 1e3)
            row["pct_copy_peak"] = 100 * row["GBps"] / COPY_PEAK_GBPS
        except Exception as e:
            row["status"] = (row["status"] + "; " if row["status"] != "ok" else "") + "timing failed: %s" % e
        finish(row)
        if row["status"] == "ok" and v["kind"] != "base" and not repeat:
            key = (label, dname)
            if key not in best or row["p50"] < best[key][1]["p50"]:
                best[key] = (v, row)
        return context_alive()

    alive = True
    gen = torch.Generator(device="cuda")
    try:
        for label, dim, inner in SHAPES:
            for dname, dt, size in DTYPES:
                if not alive:
                    break
                gen.manual_seed(1234 + dim + size)
                x32 = torch.randn((dim, inner), generator=gen, device="cuda", dtype=torch.float32) * SCALE
                x = x32.to(getattr(torch, dname)).contiguous()
                del x32
                expected = torch.softmax(x.double(), dim=0)
                y = torch.empty_like(x)
                print("== %s %s (x %.0f MB)" % (label, dname, x.numel() * size / 2 ** 20), flush=True)
                for v in variants(label, dt, size):
                    alive = run_variant(v, x, y, expected, label, dname, dim, inner, size, dt)
                    if not alive:
                        break
                if alive:  # again: the base and this row's best candidate, for the noise
                    vs = [variants(label, dt, size)[0]] + ([best[(label, dname)][0]] if (label, dname) in best else [])
                    for v in vs:
                        alive = run_variant(v, x, y, expected, label, dname, dim, inner, size, dt, repeat=True)
                        if not alive:
                            break
                del x, y, expected
                torch.cuda.empty_cache()
    finally:
        print("\n== summary (p50 device us; best candidate vs best peer and vs our recorded)")
        for (label, dname), (v, row) in best.items():
            peer = row.get("best_peer")
            base = [r for r in rows if r["shape"] == label and r["dtype"] == dname and r["variant"].startswith("base")]
            print("%-20s %-9s best %-42s %8.2f | base %s | peer %s | recorded ours %s" % (
                label, dname, v["variant"], row["p50"], ", ".join("%.2f" % r["p50"] for r in base),
                "%s %.2f" % tuple(peer) if peer else "-", row.get("recorded_ours")))
        lab.save(NAME, rows, {"sm_count": sms, "scale": SCALE})


if __name__ == "__main__":
    if DRY:
        dry_run()
    else:
        main()
