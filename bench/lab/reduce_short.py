"""Lab reduce_short: the library's short-row sum kernels (reduce_short.cu) at other group widths, unrolls, loads
and grids, on the rows of 128-512 columns (lab.time_us: CUPTI, L2 flushed), next to the library's time and the
best peer recorded in bench/results/h200-peers.json.

    python3 reduce_short.py          # on the GPU machine, after bench/lab/build.sh reduce_short.cu
    python3 reduce_short.py --blocks # the streamed kernel at the library's group width in blocks of 32-256
                                     # threads, one row per group (reduce_short_blocks.cu)
"""
import sys

import lab

T_NAME = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}
LOAD = {"evict_first": "14EvictFirstLoad", "plain": "9PlainLoad"}
CASES = [("65536x128 axis=-1", 65536, 128), ("16384x256 axis=-1", 16384, 256), ("8192x512 axis=-1", 8192, 512)]
THREADS = 256


def streamed_name(dt, width, load):
    t = T_NAME[dt]
    return "_ZN4oprt3gpu17reduce_sum_detail26sum_rows_streamed_by_groupI%sLi%dENS0_%sEEEvPKT_PS%d_lli" % (
        t, width, LOAD[load], 4 if t == "f" else 5)


def group_name(dt, unroll, width, load):
    t = T_NAME[dt]
    both = "ff" if t == "f" else t + "S3_"
    return "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_groupI%sLi%dELi1EiLi%dENS0_%sEEEvPKT_PT0_lli" % (
        both, unroll, width, LOAD[load])


STREAMED = [(4, "evict_first"), (8, "evict_first"), (16, "evict_first"), (32, "evict_first"), (8, "plain"), (16, "plain")]
GROUPS = [(1, 16, "evict_first"), (1, 32, "evict_first"), (2, 16, "evict_first"), (2, 32, "evict_first"),
          (4, 8, "evict_first"), (4, 16, "evict_first"), (1, 32, "plain"), (2, 16, "plain")]


def blocks_main():
    import torch

    module, blocks_module = lab.load("reduce_short"), lab.load("reduce_short_blocks")
    rows_out = []
    for label, rows, length in CASES:
        for dt in ["float16", "bfloat16", "float32"]:
            x = torch.randn(rows, length, device="cuda").to(getattr(torch, dt))
            expected = x.double().sum(-1)
            width = 1
            while width < -(-(length // PACK[dt]) // 4) and width < 32:
                width *= 2
            for threads in (32, 64, 128, 256):
                name = streamed_name(dt, width, "evict_first")
                if threads == 256:
                    kernel = module.kernel(name)
                else:
                    kernel = blocks_module.kernel(name.replace("EEEvPKT_", "ELi%dEEEvPKT_" % threads))
                per_block = threads // width
                blocks = -(-rows // per_block)
                full = rows // (blocks * per_block)

                def fn(y, k=kernel, b=blocks, n=threads, f=full):
                    k.launch(b, n, x, y, rows, length, f)

                y = torch.empty(rows, device="cuda", dtype=x.dtype)
                variant = "streamed w%d, %d-thread blocks x %d" % (width, threads, blocks)
                rows_out.append(lab.time_row_sum(label, dt, variant, fn, y, expected, length))
    lab.save("reduce_short_blocks", rows_out)


def main():
    import torch

    module = lab.load("reduce_short")
    rows_out = []
    for label, rows, length in CASES:
        for dt in ["float16", "bfloat16", "float32"]:
            x = torch.randn(rows, length, device="cuda").to(getattr(torch, dt))
            expected = x.double().sum(-1)
            packs = length // PACK[dt]
            variants = []
            for width, load in STREAMED:
                if width * 4 > 4 * packs:  # lanes with no pack at all
                    continue
                kernel = module.kernel(streamed_name(dt, width, load))
                per_block = THREADS // width
                tasks = -(-rows // per_block)
                for passes in (1, 2, 4):
                    blocks = -(-tasks // passes)
                    full = rows // (blocks * per_block)
                    variants.append(("streamed w%d %s, %d blocks (%d passes)" % (width, load, blocks, passes),
                                     lambda y, k=kernel, b=blocks, f=full: k.launch(b, THREADS, x, y, rows, length, f)))
            for unroll, width, load in GROUPS:
                if width * unroll > 2 * packs:
                    continue
                kernel = module.kernel(group_name(dt, unroll, width, load))
                blocks = -(-rows // (THREADS // width))
                variants.append(("group u%d w%d %s, %d blocks" % (unroll, width, load, blocks),
                                 lambda y, k=kernel, b=blocks, w=width: k.launch(b, THREADS, x, y, rows, length, w)))
            for name, fn in variants:
                y = torch.empty(rows, device="cuda", dtype=x.dtype)
                rows_out.append(lab.time_row_sum(label, dt, name, fn, y, expected, length))
    lab.save("reduce_short", rows_out)


if __name__ == "__main__":
    blocks_main() if "--blocks" in sys.argv else main()
