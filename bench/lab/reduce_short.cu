// Lab reduce_short: the library's short-row sum kernels (ops/reduce_sum/nvidia/kernel.cuh) at other group
// widths, unrolls, loads and grids than its dispatch picks, for the rows of 128-512 columns where
// torch.compile leads (65536x128, 16384x256, 8192x512). reduce_short.py finds these explicit
// instantiations by their demangled names (build/reduce_short.names.json, written by reduce_short.py --names
// here from cuobjdump's symbol list).
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;

#define STREAMED(T, W, L) template __global__ void rs::sum_rows_streamed_by_group<T, W, L>(const T *, T *, int64_t, int64_t, int);
#define GROUP(T, U, W, L) \
  template __global__ void rs::sum_rows_by_group<T, T, U, 1, int, W, L>(const T *, T *, int64_t, int64_t, int);
#define SHORT_KERNELS(T)                                                              \
  STREAMED(T, 4, EvictFirstLoad) STREAMED(T, 8, EvictFirstLoad) STREAMED(T, 16, EvictFirstLoad) \
  STREAMED(T, 32, EvictFirstLoad) STREAMED(T, 8, PlainLoad) STREAMED(T, 16, PlainLoad)          \
  GROUP(T, 1, 16, EvictFirstLoad) GROUP(T, 1, 32, EvictFirstLoad) GROUP(T, 2, 16, EvictFirstLoad) \
  GROUP(T, 2, 32, EvictFirstLoad) GROUP(T, 4, 8, EvictFirstLoad) GROUP(T, 4, 16, EvictFirstLoad)  \
  GROUP(T, 1, 32, PlainLoad) GROUP(T, 2, 16, PlainLoad)
SHORT_KERNELS(__half)
SHORT_KERNELS(__nv_bfloat16)
SHORT_KERNELS(float)
