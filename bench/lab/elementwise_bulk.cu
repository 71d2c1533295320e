// Lab elementwise_bulk (session 25): the bandwidth-bound elementwise rows moved by the Hopper bulk-copy engine
// (TMA's 1-D form, cp.async.bulk) instead of one 16-byte load and store a thread. The half copy, relu and add
// rows are 0.2-0.7% behind torch.compile's Triton kernel, whose shape (grid, block, pack, prologue, hints) the
// library's kernel has matched without closing it (bench/notes/elementwise-tuning.md). A bulk copy moves a whole
// chunk per instruction, so an SM keeps far more bytes in flight than 2048 threads x 16 bytes (32 KiB), and no
// thread slot waits on a load.
//   the library's contiguous_kernel (copy as u16 / u32, relu, add), instantiated here for calibration
//   chunk_<op>_<C>k_<t>:    a block per chunk of C KiB: one thread loads the chunk (each input) into shared
//                           memory with one cp.async.bulk, the block applies the functor there (not for copy),
//                           one thread stores it back with one bulk store; 32 threads for copy, 128 otherwise
//   ring_<op>_<C>k_<S>_<t>: a persistent grid (launched as the script says), each block cycling S stages of C KiB,
//                           the next S - 1 chunks' loads in flight while one is stored
// Every size is a whole number of chunks (the script's rows); the library kernel's tail handling is not here.
#include <cstdint>
#include <type_traits>

#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/elementwise/relu/relu.h"
#include "ops/vector_add/vector_add.h"

namespace ew = oprt::gpu::elementwise_detail;
using oprt::AddFunctor;
using oprt::CopyFunctor;
using oprt::LeakyReluFunctor;

template __global__ void ew::contiguous_kernel<uint16_t, CopyFunctor, 8>(int64_t, CopyFunctor, uint16_t *,
                                                                         const uint16_t *, const uint16_t *);
template __global__ void ew::contiguous_kernel<uint32_t, CopyFunctor, 4>(int64_t, CopyFunctor, uint32_t *,
                                                                         const uint32_t *, const uint32_t *);
template __global__ void ew::contiguous_kernel<__half, LeakyReluFunctor, 8>(int64_t, LeakyReluFunctor, __half *,
                                                                            const __half *, const __half *);
template __global__ void ew::contiguous_kernel<__nv_bfloat16, LeakyReluFunctor, 8>(int64_t, LeakyReluFunctor,
                                                                                   __nv_bfloat16 *,
                                                                                   const __nv_bfloat16 *,
                                                                                   const __nv_bfloat16 *);
template __global__ void ew::contiguous_kernel<__half, AddFunctor, 8>(int64_t, AddFunctor, __half *, const __half *,
                                                                      const __half *);
template __global__ void ew::contiguous_kernel<__nv_bfloat16, AddFunctor, 8>(int64_t, AddFunctor, __nv_bfloat16 *,
                                                                             const __nv_bfloat16 *,
                                                                             const __nv_bfloat16 *);

namespace labbulk {

__device__ __forceinline__ uint32_t shared_address(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(uint64_t *barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
}

// The initialised barriers visible to the bulk-copy engine (the async proxy) before any copy names them.
__device__ __forceinline__ void barrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

__device__ __forceinline__ void arrive_expecting(uint64_t *barrier, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void load_bulk(void *shared, const void *global, uint32_t bytes, uint64_t *barrier) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(shared)),
               "l"(global), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
}

__device__ __forceinline__ void wait_phase(uint64_t *barrier, uint32_t phase) {
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(phase)
        : "memory");
  }
}

__device__ __forceinline__ void store_bulk(void *global, const void *shared, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global), "r"(shared_address(shared)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most `pending` committed bulk stores still read shared memory.
template <int pending>
__device__ __forceinline__ void wait_stores_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(pending) : "memory");
}

// This thread's shared-memory writes ordered before the bulk engine's reads of them.
__device__ __forceinline__ void fence_to_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

template <class T, class Functor>
constexpr bool kIsCopy = std::is_same_v<Functor, CopyFunctor>;

// The functor over one chunk in shared memory, in place in the first input's stage, 16 bytes a thread a step.
template <class T, class Functor, int kChunkBytes, int kThreads>
__device__ __forceinline__ void apply_in_shared(const Functor &functor, unsigned char *a, const unsigned char *b) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using Vec = oprt::gpu::Pack<T, P>;
  constexpr bool kBinary = Functor::kArity == 2;
#pragma unroll 4
  for (int i = threadIdx.x; i < kChunkBytes / 16; i += kThreads) {
    const Vec va = reinterpret_cast<const Vec *>(a)[i];
    const Vec vb = kBinary ? reinterpret_cast<const Vec *>(b)[i] : va;
    Vec result;
#pragma unroll
    for (int j = 0; j < P; ++j) result.v[j] = ew::apply(functor, va.v[j], vb.v[j]);
    reinterpret_cast<Vec *>(a)[i] = result;
  }
  fence_to_async();
}

template <class T, class Functor, int kChunkBytes, int kThreads>
__device__ __forceinline__ void chunk_body(const Functor &functor, T *out, const T *a, const T *b) {
  extern __shared__ __align__(128) unsigned char stage[];
  __shared__ uint64_t full;
  constexpr bool kBinary = Functor::kArity == 2;
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * kChunkBytes;
  if (threadIdx.x == 0) {
    barrier_init(&full);
    barrier_init_fence();
    arrive_expecting(&full, kChunkBytes * (kBinary ? 2 : 1));
    load_bulk(stage, reinterpret_cast<const char *>(a) + offset, kChunkBytes, &full);
    if constexpr (kBinary) load_bulk(stage + kChunkBytes, reinterpret_cast<const char *>(b) + offset, kChunkBytes, &full);
  }
  if constexpr (kIsCopy<T, Functor>) {
    if (threadIdx.x != 0) return;
    wait_phase(&full, 0);
  } else {
    __syncthreads();  // the barrier initialised before anyone waits on it
    wait_phase(&full, 0);
    apply_in_shared<T, Functor, kChunkBytes, kThreads>(functor, stage, stage + kChunkBytes);
    __syncthreads();
    if (threadIdx.x != 0) return;
  }
  store_bulk(reinterpret_cast<char *>(out) + offset, stage, kChunkBytes);
  wait_stores_read<0>();  // the block's shared memory outlives the store's reads of it
}

template <class T, class Functor, int kChunkBytes, int kStages, int kThreads>
__device__ __forceinline__ void ring_body(int64_t chunks, const Functor &functor, T *out, const T *a, const T *b) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ uint64_t full[kStages];
  constexpr int kInputs = Functor::kArity == 2 ? 2 : 1;
  const auto stage = [&](int s) { return ring + s * kInputs * kChunkBytes; };
  const auto issue = [&](int s, int64_t chunk) {
    arrive_expecting(&full[s], kChunkBytes * kInputs);
    load_bulk(stage(s), reinterpret_cast<const char *>(a) + chunk * kChunkBytes, kChunkBytes, &full[s]);
    if constexpr (kInputs == 2)
      load_bulk(stage(s) + kChunkBytes, reinterpret_cast<const char *>(b) + chunk * kChunkBytes, kChunkBytes, &full[s]);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) barrier_init(&full[s]);
    barrier_init_fence();
    for (int s = 0; s < kStages; ++s) {
      const int64_t chunk = blockIdx.x + static_cast<int64_t>(s) * gridDim.x;
      if (chunk < chunks) issue(s, chunk);
    }
  }
  __syncthreads();
  int64_t i = 0;
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x, ++i) {
    const int s = static_cast<int>(i % kStages);
    wait_phase(&full[s], static_cast<uint32_t>(i / kStages) & 1);
    if constexpr (!kIsCopy<T, Functor>) {
      apply_in_shared<T, Functor, kChunkBytes, kThreads>(functor, stage(s), stage(s) + kChunkBytes);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      store_bulk(reinterpret_cast<char *>(out) + chunk * kChunkBytes, stage(s), kChunkBytes);
      // The previous chunk's stage, once its store has read it, takes the chunk kStages - 1 ahead of this one.
      if (i > 0) {
        wait_stores_read<1>();
        const int64_t next = chunk + static_cast<int64_t>(kStages - 1) * gridDim.x;
        if (next < chunks) issue(static_cast<int>((i - 1) % kStages), next);
      }
    }
  }
  if (threadIdx.x == 0) wait_stores_read<0>();
}

}  // namespace labbulk

#define LAB_CHUNK(name, T, Functor, C, threads)                                                           \
  extern "C" __global__ void __launch_bounds__(threads) name(Functor functor, T *out, const T *a, const T *b) { \
    labbulk::chunk_body<T, Functor, (C) * 1024, threads>(functor, out, a, b);                           \
  }
#define LAB_RING(name, T, Functor, C, S, threads)                                                                    \
  extern "C" __global__ void __launch_bounds__(threads)                                                             \
      name(int64_t chunks, Functor functor, T *out, const T *a, const T *b) {                                        \
    labbulk::ring_body<T, Functor, (C) * 1024, S, threads>(chunks, functor, out, a, b);                             \
  }

// copy (bits: one kernel serves every 2- and 4-byte type)
LAB_CHUNK(chunk_copy_8k, uint32_t, CopyFunctor, 8, 32)
LAB_CHUNK(chunk_copy_16k, uint32_t, CopyFunctor, 16, 32)
LAB_CHUNK(chunk_copy_32k, uint32_t, CopyFunctor, 32, 32)
LAB_RING(ring_copy_8k_6, uint32_t, CopyFunctor, 8, 6, 32)
LAB_RING(ring_copy_16k_4, uint32_t, CopyFunctor, 16, 4, 32)
LAB_RING(ring_copy_32k_3, uint32_t, CopyFunctor, 32, 3, 32)
// relu and add in half types
LAB_CHUNK(chunk_relu_16k_f16, __half, LeakyReluFunctor, 16, 128)
LAB_CHUNK(chunk_relu_32k_f16, __half, LeakyReluFunctor, 32, 128)
LAB_RING(ring_relu_16k_4_f16, __half, LeakyReluFunctor, 16, 4, 128)
LAB_CHUNK(chunk_relu_16k_bf16, __nv_bfloat16, LeakyReluFunctor, 16, 128)
LAB_CHUNK(chunk_relu_32k_bf16, __nv_bfloat16, LeakyReluFunctor, 32, 128)
LAB_RING(ring_relu_16k_4_bf16, __nv_bfloat16, LeakyReluFunctor, 16, 4, 128)
LAB_CHUNK(chunk_add_8k_f16, __half, AddFunctor, 8, 128)
LAB_CHUNK(chunk_add_16k_f16, __half, AddFunctor, 16, 128)
LAB_RING(ring_add_16k_3_f16, __half, AddFunctor, 16, 3, 128)
LAB_CHUNK(chunk_add_16k_bf16, __nv_bfloat16, AddFunctor, 16, 128)
LAB_RING(ring_add_16k_3_bf16, __nv_bfloat16, AddFunctor, 16, 3, 128)
