// The elementwise framework on the device: launch_elementwise(plan, functor, out, inputs, stream)
// runs a functor shared with the CPU reference (OPRT_HOST_DEVICE, kArity 1 or 2, computed in f32 for
// half types) over an ElementwisePlan, choosing one of two kernels:
//   - contiguous: every operand is one dense range. Each thread moves kUnroll 128-bit packs per loop
//     trip, so enough loads are in flight to saturate HBM; the n % pack elements left over are done
//     one by one. A pointer that is not 16-byte aligned makes the whole call use 1-element packs.
//   - strided: the plan's coalesced loop nest (<= 8 dims, strides in elements, 0 for broadcast
//     inputs). Each element's linear index is split into per-dim coordinates; that division runs in
//     32 bits when the tensor allows it, as 64-bit division is several times slower.
// Both are grid-stride loops over one full wave of blocks, with 64-bit indices where a tensor can
// exceed 2^31 elements.
#ifndef OPS_COMMON_NVIDIA_ELEMENTWISE_CUH_
#define OPS_COMMON_NVIDIA_ELEMENTWISE_CUH_

#include <algorithm>
#include <cstdint>

#include "ops/common/elementwise.h"
#include "ops/common/nvidia/dtype.cuh"
#include "ops/common/nvidia/runtime_api.h"

namespace oprt::gpu {
namespace elementwise_detail {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // packs (or strided elements) each thread loads before it stores any

// Functor applied in the compute type; `b` is ignored by unary functors.
template <class Functor, class T>
__device__ __forceinline__ T apply(const Functor &functor, T a, T b) {
  using C = ComputeType<T>;
  if constexpr (Functor::kArity == 1) {
    return convert<T>(functor(convert<C>(a)));
  } else {
    return convert<T>(functor(convert<C>(a), convert<C>(b)));
  }
}

template <class T, class Functor, int P>
__global__ void __launch_bounds__(kThreads)
    contiguous_kernel(int64_t n, Functor functor, T *out, const T *a, const T *b) {
  using Vec = Pack<T, P>;
  constexpr bool kBinary = Functor::kArity == 2;
  const int64_t packs = n / P;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads * kUnroll;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads * kUnroll + threadIdx.x; first < packs;
       first += step) {
    Vec va[kUnroll];
    [[maybe_unused]] Vec vb[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t i = first + u * kThreads;
      if (i < packs) {
        va[u] = reinterpret_cast<const Vec *>(a)[i];
        if constexpr (kBinary) vb[u] = reinterpret_cast<const Vec *>(b)[i];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t i = first + u * kThreads;
      if (i < packs) {
        Vec result;
#pragma unroll
        for (int j = 0; j < P; ++j) result.v[j] = apply(functor, va[u].v[j], kBinary ? vb[u].v[j] : va[u].v[j]);
        reinterpret_cast<Vec *>(out)[i] = result;
      }
    }
  }
  // The n % P trailing elements that do not fill a pack (none when P == 1).
  const int64_t i = packs * P + threadIdx.x;
  if (blockIdx.x == 0 && i < n) out[i] = apply(functor, a[i], kBinary ? b[i] : a[i]);
}

// The plan's loop nest, passed by value as a kernel parameter.
struct StridedNest {
  int32_t ndim;
  int64_t shape[OPRT_MAX_NDIM];
  int64_t strides[1 + kMaxElementwiseInputs][OPRT_MAX_NDIM];  // output, then the inputs
};

// Element offsets of each operand for the row-major linear index `linear` of the nest.
template <int kOperands, class Index>
__device__ __forceinline__ void nest_offsets(const StridedNest &nest, Index linear, int64_t (&offset)[kOperands]) {
  int64_t coordinate = 0;
#pragma unroll
  for (int k = 0; k < kOperands; ++k) offset[k] = 0;
  for (int d = nest.ndim - 1; d >= 0; --d) {
    if (d > 0) {
      const Index extent = static_cast<Index>(nest.shape[d]);
      const Index quotient = linear / extent;
      coordinate = static_cast<int64_t>(linear - quotient * extent);
      linear = quotient;
    } else {
      coordinate = static_cast<int64_t>(linear);
    }
#pragma unroll
    for (int k = 0; k < kOperands; ++k) offset[k] += coordinate * nest.strides[k][d];
  }
}

template <class T, class Functor, class Index>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(Index n, StridedNest nest, Functor functor, T *out, const T *a, const T *b) {
  constexpr bool kBinary = Functor::kArity == 2;
  constexpr int kOperands = 1 + Functor::kArity;
  const Index step = static_cast<Index>(gridDim.x) * kThreads * kUnroll;
  for (Index first = static_cast<Index>(blockIdx.x) * kThreads * kUnroll + threadIdx.x; first < n; first += step) {
    int64_t offset[kUnroll][kOperands];
    T va[kUnroll];
    [[maybe_unused]] T vb[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const Index i = first + u * kThreads;
      if (i < n) {
        nest_offsets(nest, i, offset[u]);
        va[u] = a[offset[u][1]];
        if constexpr (kBinary) vb[u] = b[offset[u][2]];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * kThreads < n) out[offset[u][0]] = apply(functor, va[u], kBinary ? vb[u] : va[u]);
    }
  }
}

// Grid of a grid-stride kernel: one full wave, fewer blocks if the work is smaller.
template <auto kKernel>
oprt_status_t grid_size(int64_t work_items, int64_t *blocks) {
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR(full_wave_blocks<kKernel, kThreads>(&wave));
  const int64_t needed = (work_items + kThreads * kUnroll - 1) / (kThreads * kUnroll);
  *blocks = std::max<int64_t>(1, std::min(wave, needed));
  return OPRT_STATUS_SUCCESS;
}

template <class T, class Functor, int P>
oprt_status_t launch_contiguous(int64_t n, const Functor &functor, T *out, const T *a, const T *b,
                                oprt_stream_t stream) {
  constexpr auto kernel = contiguous_kernel<T, Functor, P>;
  int64_t blocks = 0;
  OPRT_RETURN_IF_ERROR(grid_size<kernel>(n / P, &blocks));
  kernel<<<static_cast<unsigned>(blocks), kThreads, 0, to_stream(stream)>>>(n, functor, out, a, b);
  return check_launch("launching the contiguous elementwise kernel");
}

template <class T, class Functor, class Index>
oprt_status_t launch_strided(const ElementwisePlan &plan, const Functor &functor, T *out, const T *a, const T *b,
                             oprt_stream_t stream) {
  constexpr auto kernel = strided_kernel<T, Functor, Index>;
  StridedNest nest = {};
  nest.ndim = plan.ndim;
  for (int32_t d = 0; d < plan.ndim; ++d) {
    nest.shape[d] = plan.shape[d];
    for (int k = 0; k <= Functor::kArity; ++k) nest.strides[k][d] = plan.strides[k][d];
  }
  int64_t blocks = 0;
  OPRT_RETURN_IF_ERROR(grid_size<kernel>(plan.numel, &blocks));
  kernel<<<static_cast<unsigned>(blocks), kThreads, 0, to_stream(stream)>>>(static_cast<Index>(plan.numel), nest,
                                                                            functor, out, a, b);
  return check_launch("launching the strided elementwise kernel");
}

}  // namespace elementwise_detail

// out = functor(inputs...) elementwise over `plan` (numel > 0, pointers checked by the entry point).
template <class Functor>
oprt_status_t launch_elementwise(const ElementwisePlan &plan, const Functor &functor, void *out,
                                 const void *const *inputs, oprt_stream_t stream) {
  namespace detail = elementwise_detail;
  return dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *y = static_cast<T *>(out);
    const T *a = static_cast<const T *>(inputs[0]);
    const T *b = Functor::kArity == 2 ? static_cast<const T *>(inputs[1]) : nullptr;
    if (plan.contiguous) {
      const bool aligned = is_aligned(y, kVectorBytes) && is_aligned(a, kVectorBytes) &&
                           (Functor::kArity == 1 || is_aligned(b, kVectorBytes));
      return aligned ? detail::launch_contiguous<T, Functor, kPackSize<T>>(plan.numel, functor, y, a, b, stream)
                     : detail::launch_contiguous<T, Functor, 1>(plan.numel, functor, y, a, b, stream);
    }
    // 32-bit index arithmetic while every index plus one grid stride stays below 2^32.
    return plan.numel < (int64_t{1} << 31) ? detail::launch_strided<T, Functor, uint32_t>(plan, functor, y, a, b, stream)
                                          : detail::launch_strided<T, Functor, uint64_t>(plan, functor, y, a, b, stream);
  });
}

}  // namespace oprt::gpu

#endif  // OPS_COMMON_NVIDIA_ELEMENTWISE_CUH_
