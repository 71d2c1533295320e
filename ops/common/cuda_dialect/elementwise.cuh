// The elementwise framework on the device: launch_elementwise(plan, functor, out, inputs, stream)
// runs a functor shared with the CPU reference (OPRT_HOST_DEVICE, kArity 1 or 2, computed in f32 for
// half types) over an ElementwisePlan, choosing one of two kernels:
//   - contiguous: every operand is one dense range, moved in 128-bit packs; the n % pack elements
//     left over are done one by one. A pointer that is not 16-byte aligned makes the whole call use
//     1-element packs.
//   - strided: the plan's coalesced loop nest (<= 8 dims, strides in elements, 0 for broadcast
//     inputs). Each element's linear index is split into per-dim coordinates; that division runs in
//     32 bits when the tensor allows it, as 64-bit division is several times slower.
// Each thread handles one pack (or element) and the grid covers the whole range: on an H200 that
// copied f32 at 4.26 TB/s for 256M elements, as fast as cudaMemcpy, where grid-stride loops over one
// to four waves of blocks with 1-8 packs per thread reached 3.8-4.0 TB/s. A functor whose math sets
// its speed (kMathBound: gelu) keeps loads in flight while it computes instead: two packs a thread,
// both loaded before the first result, in 16-bit types, and 128-thread blocks in f32; a bandwidth-bound binary
// functor (vector_add) runs in 896-thread blocks, which keep fewer of its two inputs' loads in flight per SM
// (ContiguousShape; bench/notes/elementwise-tuning.md). Indices are 64-bit where a tensor can exceed 2^31 elements; the
// loops stride by the grid only beyond the grid size limit.
#ifndef OPS_COMMON_CUDA_DIALECT_ELEMENTWISE_CUH_
#define OPS_COMMON_CUDA_DIALECT_ELEMENTWISE_CUH_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/common/elementwise.h"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"

namespace oprt::gpu {
namespace elementwise_detail {

constexpr int kThreads = 256;
constexpr int kMathF32Threads = 128;  // contiguous kernel of a math-bound functor in f32 (notes: "gelu")
constexpr int kMathHalfPacks = 2;     // and its packs a thread in 16-bit types (notes: "gelu")
constexpr int kBinaryThreads = 896;   // contiguous kernel of a bandwidth-bound binary functor (notes: "Session 27")
constexpr int kMaxThreadsPerSM = 2048;
constexpr int64_t kMaxBlocks = 0x7fffffff;  // the grid's x limit

// Whether the functor declares that its math, not memory, sets its speed (static constexpr bool kMathBound).
template <class Functor, class = void>
struct MathBound {
  static constexpr bool value = false;
};
template <class Functor>
struct MathBound<Functor, std::enable_if_t<Functor::kMathBound>> {
  static constexpr bool value = true;
};

// The contiguous kernel's block and packs a thread for T and Functor: one pack a thread in 256-thread blocks,
// except for math-bound functors in float types (notes: "gelu") and bandwidth-bound binary ones, whose blocks of
// 896 threads leave an SM 1792 threads (two inputs' loads in flight: fewer of them stream faster; notes:
// "Session 27").
template <class T, class Functor>
struct ContiguousShape {
  static constexpr bool kMath = MathBound<Functor>::value;
  static constexpr int kBlockThreads = kMath ? (sizeof(T) == 4 ? kMathF32Threads : kThreads)
                                             : (Functor::kArity == 2 ? kBinaryThreads : kThreads);
  static constexpr int kPacks = kMath && sizeof(T) == 2 ? kMathHalfPacks : 1;
  // Packs in flight are the point of several packs a thread: compiled to keep every thread slot (32 registers).
  // 0 states no minimum (the compiler's choice, and the same code as a __launch_bounds__ without one).
  static constexpr int kMinBlocks = kPacks > 1 ? kMaxThreadsPerSM / kBlockThreads : 0;
};

// Enough blocks of `threads` for `items`, within the grid limit.
inline unsigned grid_covering(int64_t items, int64_t threads = kThreads) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(kMaxBlocks, (items + threads - 1) / threads)));
}

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

template <class T, class Functor, int P, class Shape = ContiguousShape<T, Functor>>
__global__ void __launch_bounds__(Shape::kBlockThreads, Shape::kMinBlocks)
    contiguous_kernel(int64_t n, Functor functor, T *out, const T *a, const T *b) {
  using Vec = Pack<T, P>;
  constexpr bool kBinary = Functor::kArity == 2;
  constexpr int kBlockThreads = Shape::kBlockThreads, K = Shape::kPacks;
  const int64_t packs = n / P;
  // The loop runs once per thread except beyond the grid's size limit. Not unrolled: an unrolled grid-stride
  // loop first computes its trip count, a 64-bit division every thread pays before its first load.
#pragma unroll 1
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kBlockThreads * K + threadIdx.x; first < packs;
       first += static_cast<int64_t>(gridDim.x) * kBlockThreads * K) {
    // The thread's K packs (a block's K * kBlockThreads packs in K coalesced steps), all loaded before the first
    // result: the math of one runs while the loads of the others are in flight. The first is in range.
    const auto in_range = [&](int k) { return k == 0 || first + k * kBlockThreads < packs; };
    Vec va[K], vb[K];
#pragma unroll
    for (int k = 0; k < K && in_range(k); ++k) {
      va[k] = reinterpret_cast<const Vec *>(a)[first + k * kBlockThreads];
      if constexpr (kBinary) vb[k] = reinterpret_cast<const Vec *>(b)[first + k * kBlockThreads];
    }
#pragma unroll
    for (int k = 0; k < K && in_range(k); ++k) {
      Vec result;
#pragma unroll
      for (int j = 0; j < P; ++j) result.v[j] = apply(functor, va[k].v[j], kBinary ? vb[k].v[j] : va[k].v[j]);
      reinterpret_cast<Vec *>(out)[first + k * kBlockThreads] = result;
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
#pragma unroll 1
  for (Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * kThreads) {
    int64_t offset[1 + Functor::kArity];
    nest_offsets(nest, i, offset);
    const T va = a[offset[1]];
    if constexpr (kBinary) {
      out[offset[0]] = apply(functor, va, b[offset[2]]);
    } else {
      out[offset[0]] = apply(functor, va, va);
    }
  }
}

template <class T, class Functor, int P>
oprt_status_t launch_contiguous(int64_t n, const Functor &functor, T *out, const T *a, const T *b,
                                oprt_stream_t stream) {
  using Shape = ContiguousShape<T, Functor>;
  const unsigned blocks = grid_covering(n / P, int64_t{Shape::kBlockThreads} * Shape::kPacks);
  contiguous_kernel<T, Functor, P><<<blocks, Shape::kBlockThreads, 0, to_stream(stream)>>>(n, functor, out, a, b);
  return check_launch(P == 1 ? "contiguous_kernel (1 element per thread)" : "contiguous_kernel (128-bit packs)", blocks,
                      Shape::kBlockThreads, 0);
}

template <class T, class Functor, class Index>
oprt_status_t launch_strided(const ElementwisePlan &plan, const Functor &functor, T *out, const T *a, const T *b,
                             oprt_stream_t stream) {
  StridedNest nest = {};
  nest.ndim = plan.ndim;
  for (int32_t d = 0; d < plan.ndim; ++d) {
    nest.shape[d] = plan.shape[d];
    for (int k = 0; k <= Functor::kArity; ++k) nest.strides[k][d] = plan.strides[k][d];
  }
  const unsigned blocks = grid_covering(plan.numel);
  strided_kernel<T, Functor, Index><<<blocks, kThreads, 0, to_stream(stream)>>>(static_cast<Index>(plan.numel), nest,
                                                                                 functor, out, a, b);
  return check_launch("strided_kernel", blocks, kThreads, 0);
}

}  // namespace elementwise_detail

// out = functor(a[, b]) elementwise over `plan`, with T as the storage type (numel > 0, pointers
// checked by the entry point). launch_elementwise picks T from the plan's dtype; copy passes
// same-size unsigned integers, to move bits unchanged.
template <class T, class Functor>
oprt_status_t launch_elementwise_as(const ElementwisePlan &plan, const Functor &functor, T *out, const T *a,
                                    const T *b, oprt_stream_t stream) {
  namespace detail = elementwise_detail;
  if (plan.contiguous) {
    const bool aligned = is_aligned(out, kVectorBytes) && is_aligned(a, kVectorBytes) &&
                         (Functor::kArity == 1 || is_aligned(b, kVectorBytes));
    return aligned ? detail::launch_contiguous<T, Functor, kPackSize<T>>(plan.numel, functor, out, a, b, stream)
                   : detail::launch_contiguous<T, Functor, 1>(plan.numel, functor, out, a, b, stream);
  }
  // 32-bit index arithmetic while every index plus one grid stride stays below 2^32.
  return plan.numel < (int64_t{1} << 31)
             ? detail::launch_strided<T, Functor, uint32_t>(plan, functor, out, a, b, stream)
             : detail::launch_strided<T, Functor, uint64_t>(plan, functor, out, a, b, stream);
}

// out = functor(inputs...) elementwise over `plan` (numel > 0, pointers checked by the entry point).
template <class Functor>
oprt_status_t launch_elementwise(const ElementwisePlan &plan, const Functor &functor, void *out,
                                 const void *const *inputs, oprt_stream_t stream) {
  return dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *b = Functor::kArity == 2 ? static_cast<const T *>(inputs[1]) : nullptr;
    return launch_elementwise_as(plan, functor, static_cast<T *>(out), static_cast<const T *>(inputs[0]), b, stream);
  });
}

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_ELEMENTWISE_CUH_
