// The "cute" kernel variant of the contiguous elementwise ops (copy, vector_add), written with CuTe,
// CUTLASS's layout algebra. It does the same work as contiguous_kernel in elementwise.cuh, 128-bit
// accesses over dense data, but says it with tiles instead of index arithmetic:
//   - a block owns one tile of kTile elements; the tile's tensors have a static shape;
//   - a TiledCopy built from a 128-bit copy atom gives each thread its packs of the tile, thread t
//     taking packs t, t + kThreads, ... so each warp's accesses are contiguous;
//   - the last tile, which may end past the data, is predicated: the same partition of an identity
//     tensor tells each thread the index of each element it holds, and only those below n move.
// Non-contiguous plans (strides, broadcast) and pointers not 16-byte aligned stay on the hand-written
// kernels; oprt_last_launches() says which one ran.
#ifndef OPS_COMMON_CUDA_DIALECT_CUTE_ELEMENTWISE_CUH_
#define OPS_COMMON_CUDA_DIALECT_CUTE_ELEMENTWISE_CUH_

#include <cute/tensor.hpp>

#include "ops/common/cuda_dialect/elementwise.cuh"

namespace oprt::gpu::cute_elementwise {

constexpr int kThreads = 256;
constexpr int kPacksPerThread = 4;  // loads in flight per thread

template <class T, class Functor>
__global__ void __launch_bounds__(kThreads)
    tiled_kernel(int64_t n, Functor functor, T *out, const T *a, const T *b) {
  using namespace cute;
  constexpr int P = kPackSize<T>;  // elements per 128-bit access
  constexpr int kTile = kThreads * P * kPacksPerThread;
  constexpr bool kBinary = Functor::kArity == 2;

  // This block's tile of each operand: kTile elements from the tile's start.
  const int64_t start = static_cast<int64_t>(blockIdx.x) * kTile;
  auto tile = cute::Layout<Shape<Int<kTile>>>{};  // (oprt::Layout is a tensor layout of the C API)
  Tensor tile_a = make_tensor(make_gmem_ptr(a + start), tile);
  Tensor tile_b = make_tensor(make_gmem_ptr((kBinary ? b : a) + start), tile);
  Tensor tile_out = make_tensor(make_gmem_ptr(out + start), tile);

  // kThreads threads, each moving P contiguous elements per 128-bit copy; the copy repeats
  // kPacksPerThread times over the tile.
  auto tiled_copy = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, T>{}, cute::Layout<Shape<Int<kThreads>>>{},
                                    cute::Layout<Shape<Int<P>>>{});
  auto thread_copy = tiled_copy.get_thread_slice(threadIdx.x);
  Tensor thread_a = thread_copy.partition_S(tile_a);  // (P, kPacksPerThread): this thread's elements
  Tensor thread_b = thread_copy.partition_S(tile_b);
  Tensor thread_out = thread_copy.partition_D(tile_out);
  Tensor a_regs = make_fragment_like(thread_a);  // the same shape, in registers
  Tensor b_regs = make_fragment_like(thread_b);
  Tensor out_regs = make_fragment_like(thread_out);

  const bool full_tile = start + kTile <= n;
  // Index within the tile of each element this thread holds (only needed for the last tile).
  Tensor thread_index = thread_copy.partition_S(make_identity_tensor(Shape<Int<kTile>>{}));
  auto in_range = [&](int i) { return full_tile || start + get<0>(thread_index(i)) < n; };

  if (full_tile) {
    copy(tiled_copy, thread_a, a_regs);
    if constexpr (kBinary) copy(tiled_copy, thread_b, b_regs);
  } else {
    for (int i = 0; i < size(a_regs); ++i) {
      if (in_range(i)) {
        a_regs(i) = thread_a(i);
        if constexpr (kBinary) b_regs(i) = thread_b(i);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < size(out_regs); ++i) {
    out_regs(i) = elementwise_detail::apply(functor, a_regs(i), kBinary ? b_regs(i) : a_regs(i));
  }
  if (full_tile) {
    copy(tiled_copy, out_regs, thread_out);
  } else {
    for (int i = 0; i < size(out_regs); ++i) {
      if (in_range(i)) thread_out(i) = out_regs(i);
    }
  }
}

// The CuTe kernel for dense, 16-byte-aligned operands; the hand-written framework for everything else.
template <class T, class Functor>
oprt_status_t launch(const ElementwisePlan &plan, const Functor &functor, T *out, const T *a, const T *b,
                     oprt_stream_t stream) {
  const bool aligned = is_aligned(out, kVectorBytes) && is_aligned(a, kVectorBytes) &&
                       (Functor::kArity == 1 || is_aligned(b, kVectorBytes));
  if (!plan.contiguous || !aligned) return launch_elementwise_as(plan, functor, out, a, b, stream);
  constexpr int64_t kTile = int64_t{kThreads} * kPackSize<T> * kPacksPerThread;
  const int64_t tiles = (plan.numel + kTile - 1) / kTile;
  if (tiles > elementwise_detail::kMaxBlocks) return launch_elementwise_as(plan, functor, out, a, b, stream);
  const unsigned blocks = static_cast<unsigned>(tiles);
  tiled_kernel<T, Functor><<<blocks, kThreads, 0, to_stream(stream)>>>(plan.numel, functor, out, a, b);
  return check_launch("cute_elementwise::tiled_kernel", blocks, kThreads, 0);
}

}  // namespace oprt::gpu::cute_elementwise

#endif  // OPS_COMMON_CUDA_DIALECT_CUTE_ELEMENTWISE_CUH_
