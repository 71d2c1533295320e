// Lab reduce_cluster: the library's cluster row sum (ops/reduce_sum/nvidia/kernel.cuh, sum_row_in_cluster)
// at other cluster and block sizes than the library's (kClusterBlocks = 8, kClusterThreads = 256), for the
// few-row shapes that still take split rows (16 x 262144): 16 blocks per row is a non-portable cluster
// size (reduce_cluster.py sets the attribute). The library's two split kernels are here too, to time
// that path in the same run. cl<B>_t<N>_<dt>(x, y, length, chunk): grid rows * B, block N.
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;

#define CLUSTER_KERNEL(B, N, DT, T)                                                                         \
  extern "C" __global__ void __cluster_dims__(B, 1, 1) __launch_bounds__(N)                                \
      cl##B##_t##N##_##DT(const T *x, T *y, long long length, long long chunk) {                            \
    rs::sum_row_in_cluster<T, EvictFirstLoad, B, N>(x, y, length, chunk);                                   \
  }
#define CLUSTER_KERNELS(DT, T)      \
  CLUSTER_KERNEL(8, 256, DT, T)     \
  CLUSTER_KERNEL(16, 128, DT, T)    \
  CLUSTER_KERNEL(16, 256, DT, T)    \
  CLUSTER_KERNEL(16, 512, DT, T)    \
  template __global__ void rs::sum_rows_by_block<T, float, 256, true, EvictFirstLoad>(const T *, float *,      \
                                                                                       int64_t, int64_t, int64_t); \
  template __global__ void rs::sum_rows_by_group<float, T, 4, 1, int, 0, PlainLoad>(const float *, T *, int64_t, \
                                                                                     int64_t, int);
CLUSTER_KERNELS(f16, __half)
CLUSTER_KERNELS(bf16, __nv_bfloat16)
CLUSTER_KERNELS(f32, float)
