// Lab load_policy: do the evict-first loads still pay for the kernels that now use them? Session 7 chose them
// (EvictFirstLoad up to kEvictFirstMaxBytes = 256 MiB; reduce-sum notes, "Evict-first loads") for the kernels of
// then, by up to 20%; the 256M sums (512 MiB and up), loaded plainly since, run at 100-105% of the copy peak where
// the 64M half sums, with evict-first loads, run at 90.5-92% and the 8192 x 8192 half row sums trail
// torch.compile by 1-1.5%. Here the library's own kernels, instantiated with either policy:
//   sum_slices<T, Load> + sum_row_at_once (the 64M whole sums, as launch_whole_row launches them)
//   sum_rows_streamed_by_block<T, T, Load> (row sums of 8192 x 8192 and 4096 x 4096 f32)
//   sum_rows_in_tiles<T, Lanes, Load> is not templated on the policy and stays out.
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;

#define POLICY_KERNELS(T, Load)                                                                                  \
  template __global__ void rs::sum_slices<T, Load>(const T *, oprt::ComputeType<T> *, int64_t);          \
  template __global__ void rs::sum_rows_streamed_by_block<T, T, Load>(const T *, T *, int64_t, int64_t, int64_t);
POLICY_KERNELS(__half, EvictFirstLoad)
POLICY_KERNELS(__half, PlainLoad)
POLICY_KERNELS(__nv_bfloat16, EvictFirstLoad)
POLICY_KERNELS(__nv_bfloat16, PlainLoad)
POLICY_KERNELS(float, EvictFirstLoad)
POLICY_KERNELS(float, PlainLoad)
// The second pass as launch_partials_sum picks it: 4096 half partials in 256 threads, 8192 f32 ones in 512.
template __global__ void rs::sum_row_at_once<float, __half, 256, 4, PlainLoad>(const float *, __half *, int);
template __global__ void rs::sum_row_at_once<float, __nv_bfloat16, 256, 4, PlainLoad>(const float *,
                                                                                       __nv_bfloat16 *, int);
template __global__ void rs::sum_row_at_once<float, float, 512, 4, PlainLoad>(const float *, float *, int);
