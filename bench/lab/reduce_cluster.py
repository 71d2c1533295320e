"""Lab reduce_cluster: the library's cluster row sum (sum_row_in_cluster) at 8 and 16 blocks per row and
128-512 threads per block, against the library's split rows (two kernels) in the same run, on the row sums
that take split rows or the cluster tier (lab.time_us: CUPTI, L2 flushed).

    python3 reduce_cluster.py          # on the GPU machine, after bench/lab/build.sh reduce_cluster.cu
"""
import lab

MANGLED = {"float16": "6__half", "bfloat16": "13__nv_bfloat16", "float32": "f"}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
PACK = {"float16": 8, "bfloat16": 8, "float32": 4}
CASES = [("16x262144 axis=-1", 16, 262144), ("128x131072 axis=-1", 128, 131072)]
CLUSTERS = [(8, 256), (16, 128), (16, 256), (16, 512)]
NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14  # CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (cuda.h)


def first_pass(dt):
    return "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_blockI%sfLi256ELb1ENS0_14EvictFirstLoadEEEvPKT_PT0_lll" % MANGLED[dt]


def second_pass(dt):
    return "_ZN4oprt3gpu17reduce_sum_detail17sum_rows_by_groupIf%sLi4ELi1EiLi0ENS0_9PlainLoadEEEvPKT_PT0_lli" % MANGLED[dt]


def main():
    import cupy
    import torch

    module = lab.load("reduce_cluster")
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []
    for label, rows, length in CASES:
        for dt in ["float16", "bfloat16", "float32"]:
            x = torch.randn(rows, length, device="cuda").to(getattr(torch, dt))
            expected = x.double().sum(-1)
            variants = []
            # The library's split rows at its choice of parts (row_splits: a wave of blocks over the rows).
            first, second = module.kernel(first_pass(dt)), module.kernel(second_pass(dt))
            wave = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(first.function.kernel.ptr, 256, 0) * sm_count
            packs = -(-length // PACK[dt])
            most = min(8192, length // 2048, (1 << 20) // rows, packs // 256)
            splits = max(1, min(most, wave // rows))
            partials = torch.empty(rows * splits, device="cuda", dtype=torch.float32)
            width = 1
            while width < -(-splits // 16) and width < 32:
                width *= 2

            def split_run(y, splits=splits, partials=partials, width=width, first=first, second=second):
                first.launch((splits, rows), 256, x, partials, rows, length, splits)
                second.launch(-(-rows // (256 // width)), 256, partials, y, rows, splits, width)

            variants.append(("split rows, %d parts" % splits, split_run))
            for blocks, threads in CLUSTERS:
                kernel = module.kernel("cl%d_t%d_%s" % (blocks, threads, SHORT[dt]))
                if blocks > 8:
                    cupy.cuda.driver.funcSetAttribute(kernel.function.kernel.ptr, NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
                chunk = -(-(-(-length // blocks)) // PACK[dt]) * PACK[dt]

                def cluster_run(y, kernel=kernel, blocks=blocks, threads=threads, chunk=chunk):
                    kernel.launch(rows * blocks, threads, x, y, length, chunk)

                variants.append(("cluster %d x %d threads" % (blocks, threads), cluster_run))
            for name, fn in variants:
                y = torch.empty(rows, device="cuda", dtype=x.dtype)
                try:
                    rows_out.append(lab.time_row_sum(label, dt, name, fn, y, expected, length))
                except Exception as e:  # noqa: BLE001
                    print("%s %s %s: %s" % (label, dt, name, e))
    lab.save("reduce_cluster", rows_out)


if __name__ == "__main__":
    main()
