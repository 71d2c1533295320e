"""One benchmark row of ours under Nsight Compute: the ncu evidence bench/results/ncu/ keeps for rows under
85% of the copy peak. Runs the row's op twice to warm up, then once more with the profiler on (ncu's
--profile-from-start off plus cudaProfilerStart/Stop around the third call), so only that call's kernels
are profiled.

  ncu --profile-from-start off --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \\
      --section Occupancy --section LaunchStats --section WarpStateStats \\
      python3 bench/ncu_rows.py softmax 4096x4096 float16 [axis=-1]
"""
import sys

import torch

import operator_runtime as oprt


def main(op, shape, dtype, *attrs):
    dims = tuple(int(d) for d in shape.split("x"))
    kwargs = {}
    for attr in attrs:
        key, value = attr.split("=")
        kwargs[key] = None if value == "None" else int(value)
    inputs = [torch.randn(dims, device="cuda", dtype=getattr(torch, dtype)) for _ in range(2 if op == "vector_add" else 1)]
    fn = getattr(oprt, op)
    for _ in range(2):
        fn(*inputs, **kwargs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    fn(*inputs, **kwargs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main(*sys.argv[1:])
