"""Lab reduce_rows8k: rows of 8 KB (half 4096 x 4096, f32 4096 x 2048) in the library's own kernels
(reduce_rows8k.cu), timed interleaved with torch.compile as run_ops times a row (lab.time_interleaved: each round
one DeviceTimer.measure_many, a flush before every call), with each candidate's paired ratio to torch.compile.

    python3 reduce_rows8k.py [rounds]      # on the GPU machine, after bench/lab/build.sh reduce_rows8k.cu

Candidates: "row block B" is sum_rows_by_block in B threads a row (today's path: B = 64, evict-first loads);
"slice B x N, M/SM" is sum_slices with a row a slice of B threads x N 16-byte loads, M blocks asked per SM.
"""
import sys

import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
OUT_MANGLED = {"float16": "S3_", "bfloat16": "S3_", "float32": "f"}
LOADS = {"evict-first": "14EvictFirstLoad", "plain": "9PlainLoad"}
ROW_BLOCKS = [64, 128]
SLICES = [(512, 1, 4), (256, 2, 8), (256, 2, 4), (128, 4, 16), (128, 4, 8), (64, 8, 16), (64, 8, 8)]
SHAPES = [(4096, 4096, "float16"), (4096, 4096, "bfloat16"), (4096, 2048, "float32")]


def candidates(module, dt, x, y, rows, cols):
    out = {}
    for load, mangled_load in LOADS.items():
        for b in ROW_BLOCKS:
            k = module.kernel("_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_blockI%s%sLi%dELb0ENS0_%sEEEvPKT_PT0_lll"
                              % (MANGLED[dt], OUT_MANGLED[dt], b, mangled_load))
            out["row block %d, %s" % (b, load)] = lambda k=k, b=b, y=y[(load, "rb", b)]: k.launch(
                rows, b, x, y, rows, cols, 1)
        for b, n, m in SLICES:
            k = module.kernel("_ZN4oprt3gpu17reduce_sum_detail10sum_slicesI%sNS0_%sELi%dELi%dELi%dE%sEEvPKT_PT4_l"
                              % (MANGLED[dt], mangled_load, b, n, m, OUT_MANGLED[dt]))
            out["slice %d x %d, %d/SM, %s" % (b, n, m, load)] = lambda k=k, b=b, y=y[(load, b, n, m)]: k.launch(
                rows, b, x, y, rows * cols)
    return out


def main(rounds=3):
    import torch

    module = lab.load("reduce_rows8k")
    rows_out = []
    for rows, cols, dt in SHAPES:
        label = "%dx%d axis=-1" % (rows, cols)
        x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dt))
        expected = x.double().sum(-1)
        keys = [(load, "rb", b) for load in LOADS for b in ROW_BLOCKS] + [
            (load, b, n, m) for load in LOADS for b, n, m in SLICES]
        ys = {key: torch.empty(rows, device="cuda", dtype=x.dtype) for key in keys}
        runs = candidates(module, dt, x, ys, rows, cols)
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
        runs["torch.compile"] = lambda: compiled(x)
        for name, run in runs.items():  # every candidate's sums checked before any is timed
            got = run()
            torch.cuda.synchronize()
            got = got if name == "torch.compile" else ys[next(k for k in keys if runs_key(name, k))]
            err = float(((got.double() - expected).abs() / (expected.abs() + cols ** 0.5)).max())
            assert err < 1e-2, (label, dt, name, err)
        base = {"shape": label, "dtype": dt}
        rows_out += lab.time_interleaved(runs, rounds, base, x.numel() * x.element_size() + rows * x.element_size(),
                                         "%s %s" % (label, dt))
        lab.save("reduce_rows8k", rows_out)


def runs_key(name, key):
    """Whether candidate `name` writes into ys[key] (the names and keys candidates() pairs)."""
    load = key[0]
    if key[1] == "rb":
        return name == "row block %d, %s" % (key[2], load)
    return name == "slice %d x %d, %d/SM, %s" % (key[1], key[2], key[3], load)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
