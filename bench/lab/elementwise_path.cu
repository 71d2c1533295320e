// Lab elementwise_path (session 25; elementwise_path.py says why): torch.compile's pointwise kernel for the half
// rows written in CUDA, instruction for instruction as Inductor's SASS reads (bench/results/h200-session24/run6):
// one 16-byte pack a thread, a 32-bit element index of blockIdx * block + thread, no loop and no bounds test
// (every row here is a whole number of blocks), launched by cupy like Triton's launcher launches its cubin.
//   replica_<op>_<B>_<t>: that kernel in B-thread blocks (Inductor: 128)
#include <cstdint>

#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/elementwise/relu/relu.h"
#include "ops/vector_add/vector_add.h"

namespace labpath {

// kBounded: a bounds test against `packs` (session 27's blocks that do not divide the row); kReadOnly: loads through
// the read-only path, `ld.global.nc.v4` (session 27, section nc).
template <class T, class Functor, int kBlock, bool kBounded = false, bool kReadOnly = false>
__device__ __forceinline__ void replica(const Functor &functor, T *out, const T *a, const T *b, int packs = 0) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using Vec = oprt::gpu::Pack<T, P>;
  static_assert(sizeof(Vec) == sizeof(uint4), "one 16-byte pack");
  const int pack = static_cast<int>(blockIdx.x) * kBlock + static_cast<int>(threadIdx.x);
  if (kBounded && pack >= packs) return;
  const auto load = [pack](const T *from) {
    if constexpr (kReadOnly) {
      const uint4 bits = __ldg(reinterpret_cast<const uint4 *>(from) + pack);
      return *reinterpret_cast<const Vec *>(&bits);
    } else {
      return reinterpret_cast<const Vec *>(from)[pack];
    }
  };
  const Vec va = load(a);
  Vec vb = va;
  if constexpr (Functor::kArity == 2) vb = load(b);
  Vec result;
#pragma unroll
  for (int j = 0; j < P; ++j) result.v[j] = oprt::gpu::elementwise_detail::apply(functor, va.v[j], vb.v[j]);
  reinterpret_cast<Vec *>(out)[pack] = result;
}

}  // namespace labpath

// declared: __launch_bounds__(B) (PTX .maxntid, as the library declares its kernels) or __block_size__((B, 1, 1))
// (.reqntid, as Inductor's PTX reads; section reqntid).
#define LAB_REPLICA_DECLARED(declared, name, T, Functor, B)                                   \
  extern "C" __global__ void declared name(Functor functor, T *out, const T *a, const T *b) { \
    labpath::replica<T, Functor, B>(functor, out, a, b);                                     \
  }
#define LAB_REPLICA(name, T, Functor, B) LAB_REPLICA_DECLARED(__launch_bounds__(B), name, T, Functor, B)

LAB_REPLICA(replica_copy_128_u16, uint16_t, oprt::CopyFunctor, 128)
LAB_REPLICA(replica_copy_256_u16, uint16_t, oprt::CopyFunctor, 256)
LAB_REPLICA(replica_relu_128_f16, __half, oprt::LeakyReluFunctor, 128)
LAB_REPLICA(replica_relu_256_f16, __half, oprt::LeakyReluFunctor, 256)
LAB_REPLICA(replica_add_128_f16, __half, oprt::AddFunctor, 128)
LAB_REPLICA(replica_add_256_f16, __half, oprt::AddFunctor, 256)

// Session 25, run 4: the same kernel with the half math Inductor's SASS does, on 32-bit words of two values:
// the add as __hadd2 (a sum of two halves rounded once to half equals it rounded to f32 first, f32 having at least
// 2p + 2 bits: bit for bit the library's f32 math), relu as one compare to a mask (x <= 0, so -0 and negatives
// become +0 and NaN stays, the library's LeakyReluFunctor{0}).
//   packed_<op>_<B>_<t>
namespace labpath {

template <class H2, int kBlock, bool kAdd>
__device__ __forceinline__ void packed(uint4 *out, const uint4 *a, const uint4 *b) {
  const int pack = static_cast<int>(blockIdx.x) * kBlock + static_cast<int>(threadIdx.x);
  const uint4 va = a[pack];
  uint4 vb = va;
  if constexpr (kAdd) vb = b[pack];
  const uint32_t wa[4] = {va.x, va.y, va.z, va.w}, wb[4] = {vb.x, vb.y, vb.z, vb.w};
  uint32_t r[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const H2 x = *reinterpret_cast<const H2 *>(&wa[j]);
    if constexpr (kAdd) {
      const H2 sum = __hadd2(x, *reinterpret_cast<const H2 *>(&wb[j]));
      r[j] = *reinterpret_cast<const uint32_t *>(&sum);
    } else {
      const uint32_t zero_bits = 0u;
      r[j] = wa[j] & ~__hle2_mask(x, *reinterpret_cast<const H2 *>(&zero_bits));
    }
  }
  out[pack] = make_uint4(r[0], r[1], r[2], r[3]);
}

}  // namespace labpath

#define LAB_PACKED(name, H2, B, add)                                                              \
  extern "C" __global__ void __launch_bounds__(B) name(uint8_t, uint4 *out, const uint4 *a, const uint4 *b) { \
    labpath::packed<H2, B, add>(out, a, b);                                                      \
  }

LAB_PACKED(packed_relu_128_f16, __half2, 128, false)
LAB_PACKED(packed_relu_256_f16, __half2, 256, false)
LAB_PACKED(packed_add_128_f16, __half2, 128, true)
LAB_PACKED(packed_add_256_f16, __half2, 256, true)
LAB_PACKED(packed_relu_128_bf16, __nv_bfloat162, 128, false)
LAB_PACKED(packed_relu_256_bf16, __nv_bfloat162, 256, false)
LAB_PACKED(packed_add_128_bf16, __nv_bfloat162, 128, true)
LAB_PACKED(packed_add_256_bf16, __nv_bfloat162, 256, true)

// Session 25 (section reqntid, run in session 26): the one declaration left between the replica and
// Inductor's PTX. Inductor declares the block size exactly (`.reqntid 128`); __launch_bounds__ gives an upper
// bound (`.maxntid`); __block_size__ gives `.reqntid` (and cluster directives, which elementwise_path.ptx.sed
// strips). bf16 replicas too: the rows behind in both of run 7's
// processes are the 64M bf16 relu and add and the 256M half adds.
//   replica_<op>_128_<t> (bf16, .maxntid) and replica_<op>_128r_<t> (.reqntid)
#define LAB_REPLICA_EXACT(name, T, Functor, B) LAB_REPLICA_DECLARED(__block_size__((B, 1, 1)), name, T, Functor, B)

LAB_REPLICA(replica_relu_128_bf16, __nv_bfloat16, oprt::LeakyReluFunctor, 128)
LAB_REPLICA(replica_add_128_bf16, __nv_bfloat16, oprt::AddFunctor, 128)
LAB_REPLICA_EXACT(replica_relu_128r_f16, __half, oprt::LeakyReluFunctor, 128)
LAB_REPLICA_EXACT(replica_add_128r_f16, __half, oprt::AddFunctor, 128)
LAB_REPLICA_EXACT(replica_relu_128r_bf16, __nv_bfloat16, oprt::LeakyReluFunctor, 128)
LAB_REPLICA_EXACT(replica_add_128r_bf16, __nv_bfloat16, oprt::AddFunctor, 128)

// Session 27 (section nc): the replica with its loads through the read-only path (`ld.global.nc.v4`, __ldg),
// which a kernel gets where the compiler proves its input read-only (a const __restrict__ pointer): whether
// torch eager's half kernels, which lead the 256M adds, differ from the replica there.
//   replica_<op>_128n_<t>
#define LAB_REPLICA_NC(name, T, Functor, B)                                                                    \
  extern "C" __global__ void __launch_bounds__(B) name(Functor functor, T *out, const T *a, const T *b) {     \
    labpath::replica<T, Functor, B, false, true>(functor, out, a, b);                                         \
  }

LAB_REPLICA_NC(replica_add_128n_f16, __half, oprt::AddFunctor, 128)
LAB_REPLICA_NC(replica_add_128n_bf16, __nv_bfloat16, oprt::AddFunctor, 128)
LAB_REPLICA_NC(replica_relu_128n_bf16, __nv_bfloat16, oprt::LeakyReluFunctor, 128)
LAB_REPLICA_NC(replica_copy_128n_u16, uint16_t, oprt::CopyFunctor, 128)

// Session 27 (section inflight): the replica in blocks of B threads with a bounds test, so that the threads an SM
// holds, and with them its loads in flight, follow the block size alone (no shared memory, no register change):
// 2048 / B blocks an SM, rounded down (512, 1024: 2048 threads; 896: 1792; 768: 1536, torch eager's occupancy for
// its half add; 640: 1920). Shared memory reserved to cap the blocks (section occupancy3) also shrinks the L1.
//   replica_<op>_<B>b_<t>
namespace labpath {

template <class T, class Functor, int kBlock>
__device__ __forceinline__ void bounded(const Functor &functor, T *out, const T *a, const T *b, int packs) {
  replica<T, Functor, kBlock, true>(functor, out, a, b, packs);
}

}  // namespace labpath

// A lab kernel over `packs` 16-byte packs in blocks of B threads, its body labpath::<device_fn>.
#define LAB_PACKS_KERNEL(name, T, Functor, B, device_fn)                                                       \
  extern "C" __global__ void __launch_bounds__(B) name(Functor functor, T *out, const T *a, const T *b,       \
                                                       int packs) {                                          \
    labpath::device_fn<T, Functor, B>(functor, out, a, b, packs);                                             \
  }
#define LAB_REPLICA_BLOCKS(op, T, t, Functor)                                                                  \
  LAB_PACKS_KERNEL(replica_##op##_512b_##t, T, Functor, 512, bounded)                                         \
  LAB_PACKS_KERNEL(replica_##op##_640b_##t, T, Functor, 640, bounded)                                         \
  LAB_PACKS_KERNEL(replica_##op##_768b_##t, T, Functor, 768, bounded)                                         \
  LAB_PACKS_KERNEL(replica_##op##_896b_##t, T, Functor, 896, bounded)                                         \
  LAB_PACKS_KERNEL(replica_##op##_1024b_##t, T, Functor, 1024, bounded)
LAB_REPLICA_BLOCKS(add, __half, f16, oprt::AddFunctor)
LAB_REPLICA_BLOCKS(add, __nv_bfloat16, bf16, oprt::AddFunctor)
LAB_REPLICA_BLOCKS(copy, uint16_t, u16, oprt::CopyFunctor)

// Session 27 (section packs2): unary rows with two packs a thread (loaded before either result, in two coalesced
// steps of the block), bounds-tested, in blocks of B: copy and relu keep 16 bytes of loads in flight a thread at
// one pack, so where the adds wanted fewer in flight an SM these may want more.
//   replica_<op>_<B>k2_<t>
namespace labpath {

template <class T, class Functor, int kBlock>
__device__ __forceinline__ void replica_two(const Functor &functor, T *out, const T *a, const T *, int packs) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using Vec = oprt::gpu::Pack<T, P>;
  const int first = static_cast<int>(blockIdx.x) * kBlock * 2 + static_cast<int>(threadIdx.x);
  const bool second = first + kBlock < packs;
  if (first >= packs) return;
  const Vec v0 = reinterpret_cast<const Vec *>(a)[first];
  Vec v1 = v0;
  if (second) v1 = reinterpret_cast<const Vec *>(a)[first + kBlock];
  Vec r0, r1;
#pragma unroll
  for (int j = 0; j < P; ++j) {
    r0.v[j] = oprt::gpu::elementwise_detail::apply(functor, v0.v[j], v0.v[j]);
    r1.v[j] = oprt::gpu::elementwise_detail::apply(functor, v1.v[j], v1.v[j]);
  }
  reinterpret_cast<Vec *>(out)[first] = r0;
  if (second) reinterpret_cast<Vec *>(out)[first + kBlock] = r1;
}

}  // namespace labpath

#define LAB_REPLICA_TWOS(op, T, t, Functor)                                                                    \
  LAB_PACKS_KERNEL(replica_##op##_128k2_##t, T, Functor, 128, replica_two)                                    \
  LAB_PACKS_KERNEL(replica_##op##_256k2_##t, T, Functor, 256, replica_two)                                    \
  LAB_PACKS_KERNEL(replica_##op##_512k2_##t, T, Functor, 512, replica_two)                                    \
  LAB_PACKS_KERNEL(replica_##op##_896k2_##t, T, Functor, 896, replica_two)
LAB_REPLICA_TWOS(copy, uint16_t, u16, oprt::CopyFunctor)
LAB_REPLICA_TWOS(relu, __nv_bfloat16, bf16, oprt::LeakyReluFunctor)
