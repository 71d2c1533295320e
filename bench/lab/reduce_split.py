"""Lab reduce_split: how many parts a split row sum should have. The library's own kernels (reduce_split.cu:
sum_rows_by_block<In, float, 256, true> over a (splits, rows) grid, then sum_rows_by_group over the
partials, as ops/reduce_sum/nvidia/kernel.cuh launches them), timed together (lab.time_us: CUPTI, L2 flushed)
at a sweep of parts per row, next to the library's choice (row_splits) and the best peer recorded.

    python3 reduce_split.py          # on the GPU machine, after bench/lab/build.sh reduce_split.cu
"""
import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}
CASES = [  # (label in h200-peers.json, rows, length, parts to try)
    ("16x262144 axis=-1", 16, 262144, [8, 16, 24, 33, 48, 66, 96, 132]),
    ("128x131072 axis=-1", 128, 131072, [2, 4, 6, 8, 12, 16]),
    ("67108864 ->scalar", 1, 67108864, [264, 528, 792, 1056, 1584, 2112, 4224]),
]


def first_pass(dt):
    return "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_blockI%sfLi256ELb1ENS0_14EvictFirstLoadEEEvPKT_PT0_lll" % MANGLED[dt]


def second_pass(dt):
    return "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_groupIf%sLi4ELi1EiLi0ENS0_9PlainLoadEEEvPKT_PT0_lli" % MANGLED[dt]


def group_width(n):
    width = 1
    while width < n and width < 32:
        width *= 2
    return width


def main():
    import cupy
    import torch

    module = lab.load("reduce_split")
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []
    for label, rows, length, sweep in CASES:
        for dt in ["float16", "bfloat16", "float32"]:
            first, second = module.kernel(first_pass(dt)), module.kernel(second_pass(dt))
            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(first.function.kernel.ptr, 256, 0)
            wave = per_sm * sm_count
            packs = -(-length // PACK[dt])
            most = min(8192, length // 2048, (1 << 20) // rows, packs // 256)
            library = 1 if most <= 1 or rows * 2 > wave else max(1, min(most, wave // rows))
            x = torch.randn(rows, length, device="cuda").to(getattr(torch, dt))
            expected = x.double().sum(-1)
            for splits in sorted(set(sweep + [library])):
                partials = torch.empty(rows * splits, device="cuda", dtype=torch.float32)
                y = torch.empty(rows, device="cuda", dtype=x.dtype)
                width = group_width(-(-splits // 16))
                blocks = -(-rows // (256 // width))

                def run(y, splits=splits, partials=partials, width=width, blocks=blocks):
                    first.launch((splits, rows), 256, x, partials, rows, length, splits)
                    second.launch(blocks, 256, partials, y, rows, splits, width)

                variant = "splits %d%s" % (splits, " (library)" if splits == library else "")
                row = lab.time_row_sum(label, dt, variant, run, y, expected, length)
                row["wave"] = wave
                rows_out.append(row)
    lab.save("reduce_split", rows_out)


if __name__ == "__main__":
    main()
