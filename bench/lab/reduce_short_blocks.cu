// Lab reduce_short_blocks: the library's streamed short-row kernel (sum_rows_streamed_by_group) in blocks of
// 32 to 256 threads, one row per group (torch.compile launches one- and two-warp blocks for these rows).
// reduce_short.py --blocks finds these explicit instantiations by their mangled names.
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;

#define STREAMED(T, W, N) \
  template __global__ void rs::sum_rows_streamed_by_group<T, W, EvictFirstLoad, N>(const T *, T *, int64_t, int64_t, int);
#define BLOCK_SIZES(T, W) STREAMED(T, W, 32) STREAMED(T, W, 64) STREAMED(T, W, 128)
BLOCK_SIZES(__half, 4) BLOCK_SIZES(__half, 8) BLOCK_SIZES(__half, 16)
BLOCK_SIZES(__nv_bfloat16, 4) BLOCK_SIZES(__nv_bfloat16, 8) BLOCK_SIZES(__nv_bfloat16, 16)
BLOCK_SIZES(float, 8) BLOCK_SIZES(float, 16) BLOCK_SIZES(float, 32)
