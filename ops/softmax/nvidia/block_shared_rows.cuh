// Softmax tier 3, longer rows when there are enough rows to fill the SMs and a row fits in shared
// memory: a block per row, the row cached in shared memory in its storage type (on NVIDIA, rows of
// kAsyncCopyMinBytes up to 32 KiB too, copied in by cp.async).
#ifndef OPS_SOFTMAX_NVIDIA_BLOCK_SHARED_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_BLOCK_SHARED_ROWS_CUH_

#include <cstdint>

#include "async_copy.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// ---- A row cached in shared memory by a block ----
// Thread t of the block only ever touches packs t, t + kBlockThreads, ... of the cache, so the
// passes need no barrier of their own.

// Copies packs [0, packs) of `in` into `cache` and returns the max (by `max_op`) of this thread's values.
// Plain loads keep kUnroll packs in flight per thread and max each value on its way to the cache. kAsyncCopy
// (NVIDIA) copies by cp.async instead: every copy of the thread in flight before the first value is read and
// no registers to stage them in, so a block needs few registers and an SM holds as many rows as its shared
// memory takes (bench/notes/softmax-tuning.md, "Session 41").
template <int kBlockThreads, bool kAsyncCopy, class T, int P, class Max>
__device__ __forceinline__ ComputeType<T> cache_and_max(const Pack<T, P> *in, Pack<T, P> *cache, int64_t packs,
                                                        Max max_op) {
  using C = ComputeType<T>;
  C max = negative_infinity<C>();
  const auto max_of_pack = [&](const Pack<T, P> &v) {
    C values[P];
    unpack(v, values);
#pragma unroll
    for (int k = 0; k < P; ++k) max = max_op(max, values[k]);
  };
  if constexpr (kAsyncCopy) {
#if defined(__MACACC__)
    static_assert(!kAsyncCopy, "MACA has no cp.async");
#else
    for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) copy_pack_async(cache + i, in + i);
    wait_all_async_copies();
    for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) max_of_pack(cache[i]);
#endif
  } else {
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kBlockThreads, [&](int64_t i, const Pack<T, P> v) {
      cache[i] = v;
      max_of_pack(v);
    });
  }
  return max;
}

// Sum of exp(value - max) over this thread's cached values.
template <int kBlockThreads, class T, int P>
__device__ __forceinline__ ComputeType<T> cached_exp_sum(const Pack<T, P> *cache, int64_t packs, ComputeType<T> max) {
  using C = ComputeType<T>;
  C sum = 0;
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
    C values[P];
    unpack(cache[i], values);
#pragma unroll
    for (int k = 0; k < P; ++k) sum += exponential(values[k] - max);
  }
  return sum;
}

// out = normalize(cache) over this thread's packs.
template <int kBlockThreads, class T, int P>
__device__ __forceinline__ void write_normalized(const Pack<T, P> *cache, Pack<T, P> *out, int64_t packs,
                                                 const Normalizer<ComputeType<T>> &normalize) {
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
    ComputeType<T> values[P];
    unpack(cache[i], values);
#pragma unroll
    for (int k = 0; k < P; ++k) values[k] = normalize(values[k]);
    out[i] = pack<T>(values);
  }
}

// ---- Rows in shared memory: a block per row ----

// Blocks per SM the shared-memory kernel is compiled for: all thread slots for half types, 3/4 for f32,
// 1/2 for f64 (bench/notes/softmax-tuning.md, "kSharedMinBlocks").
template <class T, int kBlockThreads>
constexpr int kSharedMinBlocks =
    (sizeof(T) == 2 ? kMaxThreadsPerSM : sizeof(T) == 4 ? kMaxThreadsPerSM * 3 / 4 : kMaxThreadsPerSM / 2) /
    kBlockThreads;

template <class T, int P, int kBlockThreads, bool kAsyncCopy>
__global__ void __launch_bounds__(kBlockThreads, (kSharedMinBlocks<T, kBlockThreads>))
    softmax_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes);
  const int64_t packs = cols / P;
  // EXERCISE(step 2): per row: cache_and_max<kBlockThreads, kAsyncCopy>, then cached_exp_sum (each
  // block_reduce'd), then write_normalized
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const C max = block_reduce<kBlockThreads>(
        cache_and_max<kBlockThreads, kAsyncCopy>(reinterpret_cast<const Vec *>(x + row * cols), cache, packs,
                                                 MaxSkippingNaN{}),
        MaxSkippingNaN{});
    const C sum = block_reduce<kBlockThreads>(cached_exp_sum<kBlockThreads>(cache, packs, max), SumOp{});
    write_normalized<kBlockThreads>(cache, reinterpret_cast<Vec *>(y + row * cols), packs,
                                    Normalizer<C>(max, sum, log));
  }
  // EXERCISE END
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_BLOCK_SHARED_ROWS_CUH_
