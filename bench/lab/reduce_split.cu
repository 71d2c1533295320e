// Lab reduce_split: the library's split-row sums (ops/reduce_sum/nvidia/kernel.cuh) as they are, at other
// numbers of parts per row than the library's choice (row_splits): the first pass sum_rows_by_block<...,
// true> over a (splits, rows) grid, then the second pass sum_rows_by_group over the partials, timed together.
// bench/lab/reduce_split.py finds these explicit instantiations by their mangled names.
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;

#define SPLIT_KERNELS(T)                                                                                        \
  template __global__ void rs::sum_rows_by_block<T, float, 256, true, EvictFirstLoad>(const T *, float *,      \
                                                                                       int64_t, int64_t, int64_t); \
  template __global__ void rs::sum_rows_by_group<float, T, 4, 1, int, 0, PlainLoad>(const float *, T *, int64_t, \
                                                                                     int64_t, int);
SPLIT_KERNELS(__half)
SPLIT_KERNELS(__nv_bfloat16)
SPLIT_KERNELS(float)
