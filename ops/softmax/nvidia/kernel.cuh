// softmax / log_softmax on the device, computed in f32 for half types (f64 for f64):
//   m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), y = exp(x - m) / s  or  (x - m) - log(s),
// which gives torch's special values as in the CPU reference: an all -inf row has m = -inf and
// x - m = NaN; a +inf makes s NaN; a NaN makes m NaN (or s, where the max skips NaN).
//
// Rows along the last axis (dense, inner == 1) go to one of five paths by length and count:
//   - up to kRegisterCols columns: a group of up to one warp per row, the row held in registers
//     (kPacks packs per lane, instantiated per pack count), one read and one write per element;
//   - rows of kBlockRegisterMinCols columns up to kBlockRegisterMaxBytes (f32 and half types): a
//     block per row, the row still in registers (kBlockRowPacks packs per thread);
//   - longer rows, when there are enough rows to fill the SMs and a row fits in shared memory: a
//     block per row, the row cached in shared memory in its storage type;
//   - too few such rows, or rows longer than one block's shared memory: a cluster of kClusterBlocks
//     blocks per row, each caching its part of the row; the parts' max and sum of exponentials are
//     combined through distributed shared memory, so x is read once in one kernel (NVIDIA only:
//     MACA has no clusters);
//   - otherwise (very few rows, or a part still too long): each row is cut into parts, a block per
//     part. A first kernel computes each part's max and sum of exponentials in one pass (online:
//     the sum is rescaled whenever the max grows) into the workspace; a second combines the row's
//     parts and writes its part of y, re-reading x (mostly from L2).
// Softmax over another axis (inner > 1) runs threads along inner, so loads stay coalesced, and
// splits the axis over the block's rows of threads with the same online max/sum; no transpose.
// Non-contiguous x or y go through a dense buffer: x is gathered into it (y itself when y is
// contiguous), softmax runs in place there, and the result is scattered into y.
#ifndef OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
#define OPS_SOFTMAX_NVIDIA_KERNEL_CUH_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/common/cuda_dialect/strided_copy.cuh"
#include "ops/softmax/softmax.h"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu {
namespace softmax_detail {

// Blocks of every kernel. Measured on the H200 (L2 flushed), a row per block of shared memory: rows
// up to kShortRowBytes ran fastest in blocks of kShortRowThreads (each thread still loads about
// kUnroll packs, and twice the rows are in flight per SM: 4096 f16 rows 23.3 us, against 25.2 us in
// blocks of 256), longer ones in blocks of 256 (8192 f16 rows 71.7 us, against 77.7 in blocks of
// 128 and 148 in blocks of 1024, which hold one row per SM). The cluster kernel's 256-thread blocks
// likewise beat 512-thread ones on 128 x 131072 f16 (32.3 against 36.1 us).
constexpr int kThreads = 256;
constexpr int kShortRowThreads = 128;
constexpr size_t kShortRowBytes = 8 * 1024;
constexpr int kClusterBlocks = 8;  // blocks per row in the cluster kernel: the portable maximum
constexpr int kUnroll = 4;                  // loads in flight per thread in the streaming loops
constexpr int kMaxThreadsPerSM = 2048;      // thread slots of a Hopper SM
constexpr int kRegisterCols = 1024;         // longest row held in registers
constexpr int kMaxElementsPerLane = 32;     // so kRegisterCols = kWarpSize * 32 on 32-wide warps
// Rows of kBlockRegisterMinCols columns up to kBlockRegisterMaxBytes ran fastest as a block per row
// in registers, kBlockRowPacks packs per thread (H200, L2 flushed: 32768 x 1024 f16 36-39 us against
// 47-50 as a warp per row, 16384 x 2048 f16 34-37 against 41-44 and 4096 x 4096 f16 19-21.5 against
// 21-23 in shared memory; 32768 x 1024 f32 66-70 us, where the warp kernel's 8 packs per lane took
// 76-77); 8192-column half rows and 4096-column f32 rows were slower than in shared memory.
constexpr int kBlockRowPacks = 2;
constexpr int64_t kBlockRegisterMinCols = 1024;
constexpr int64_t kBlockRegisterMaxBytes = 8 * 1024;
constexpr int kBlockRegisterMinThreads = 64;
constexpr int64_t kMinPartLength = 2048;    // shortest part of a split row
constexpr int64_t kDefaultSharedBytes = 48 * 1024;  // above this a kernel must opt in
constexpr int64_t kStaticSharedBytes = 1024;        // block_reduce's slots, within the per-block limit

// ---- Math in the compute type ----

// exp: exp for f64; in f32 __expf, 2^(v * log2(e)) on the hardware exp2 (two instructions where
// expf takes a dozen; with the max below, 32768 f32 rows of 1024 went from 98 to 71 us, next to the
// 68 us of a copy of the same bytes). Its error, 2 + 1.17 |v| ulp (rounding
// v * log2(e)), stays under 6e-6 relative wherever exp(v) is a normal float: within f32's tolerance
// (1e-5), and nothing after rounding to a half type. Results below FLT_MIN flush to 0 (an absolute
// error under 1.2e-38).
template <class C>
__device__ __forceinline__ C exponential(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return exp(v);
  } else {
    return __expf(v);
  }
}

template <class C>
__device__ __forceinline__ C logarithm(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return log(v);
  } else {
    return logf(v);
  }
}

// Max that skips NaN (IEEE maxNum, one instruction where MaxOp takes four). Where a block or warp
// holds a whole row, the row's max may skip NaN: a NaN still makes its exp(x - max) and so the sum and
// every output NaN, as torch has it (an all-NaN row has max -inf and exp(NaN) terms). Stats of parts
// that are combined later need MaxOp: a part of NaN and -inf only would pass for an all -inf part.
struct MaxSkippingNaN {
  template <class C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, float>) {
      return fmaxf(a, b);
    } else {
      return fmax(a, b);
    }
  }
};

// The max and sum of exp(x - max) of part of a row. {-inf, 0} is the empty part.
template <class C>
struct RowStats {
  C max;
  C sum;
};

template <class C>
__device__ __forceinline__ RowStats<C> empty_stats() {
  return {negative_infinity<C>(), C(0)};
}

// `stats.sum` rescaled to a new max (>= stats.max or NaN). An all -inf part contributes nothing
// (skipping exp(-inf - -inf) = NaN); a NaN max makes the sum NaN.
template <class C>
__device__ __forceinline__ C rescaled_sum(const RowStats<C> &stats, C max) {
  return stats.max == negative_infinity<C>() ? C(0) : stats.sum * exponential(stats.max - max);
}

// Folds n values into `stats` with one rescale: the new max first, then their exponentials. A -inf
// value adds nothing; +inf adds exp(inf - inf) = NaN, as in the two-pass formula.
template <int n, class C>
__device__ __forceinline__ void accumulate(RowStats<C> &stats, const C (&values)[n]) {
  C max = stats.max;
#pragma unroll
  for (int k = 0; k < n; ++k) max = MaxOp{}(max, values[k]);
  C sum = rescaled_sum(stats, max);
#pragma unroll
  for (int k = 0; k < n; ++k) {
    if (values[k] != negative_infinity<C>()) sum += exponential(values[k] - max);
  }
  stats = {max, sum};
}

// Merges the stats of two parts (commutative, so shuffle butterflies give every lane the same bits).
template <class C>
struct CombineStats {
  __device__ __forceinline__ RowStats<C> operator()(const RowStats<C> &a, const RowStats<C> &b) const {
    const C max = MaxOp{}(a.max, b.max);
    return {max, rescaled_sum(a, max) + rescaled_sum(b, max)};
  }
};

// y (in the compute type) from x once a row's max and sum are known.
template <class C>
struct Normalizer {
  C max;
  C factor;  // 1 / sum, or log(sum) for log_softmax
  bool log;
  __device__ __forceinline__ Normalizer(C row_max, C sum, bool log_softmax)
      : max(row_max), factor(log_softmax ? logarithm(sum) : C(1) / sum), log(log_softmax) {}
  __device__ __forceinline__ C operator()(C x) const {
    const C shifted = x - max;
    return log ? shifted - factor : exponential(shifted) * factor;
  }
};

// Writes a 16-byte pack with one 128-bit store. Assigned as a struct (or as a uint4), the register
// kernel's packs after the second were stored in 16- and 32-bit pieces, up to 8 stores per pack
// (NVVM's PTX for kPacks >= 3), so on NVIDIA the store is spelled out. MACA assigns the struct.
template <class T, int P>
__device__ __forceinline__ void store_pack(Pack<T, P> *destination, const Pack<T, P> &value) {
#if !defined(__MACACC__)
  if constexpr (sizeof(value) == 16) {
    uint32_t words[4];
    memcpy(words, &value, sizeof(words));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(destination), "r"(words[0]), "r"(words[1]),
                 "r"(words[2]), "r"(words[3])
                 : "memory");
    return;
  }
#endif
  *destination = value;
}

// ---- Rows in registers ----

// Softmax of one row of `packs` packs held in registers by `lanes` cooperating threads: this thread
// (`lane`) holds packs lane, lane + lanes, ... (kPacks of P values), so the group's loads are
// contiguous. Packs past the row end read as -inf, adding exp(-inf - max) = 0 to the sum (an all -inf
// row is NaN anyway), and are not written. `reduce(value, op)` combines a value over the group; an
// invalid row (a group past the last row, kept for the group's shuffles) computes along, stores nothing.
template <int kPacks, class T, int P, class GroupReduce>
__device__ __forceinline__ void softmax_row_in_registers(const Pack<T, P> *in, Pack<T, P> *out, int64_t packs,
                                                         int lane, int lanes, bool valid, bool log,
                                                         GroupReduce reduce) {
  using C = ComputeType<T>;
  C v[kPacks][P];
  C max = negative_infinity<C>();
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    const int64_t i = static_cast<int64_t>(j) * lanes + lane;
    if (valid && i < packs) {
      unpack(in[i], v[j]);
#pragma unroll
      for (int k = 0; k < P; ++k) max = MaxSkippingNaN{}(max, v[j][k]);
    } else {
#pragma unroll
      for (int k = 0; k < P; ++k) v[j][k] = negative_infinity<C>();
    }
  }
  max = reduce(max, MaxSkippingNaN{});
  C sum = 0;
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
#pragma unroll
    for (int k = 0; k < P; ++k) {
      // Keep exp(x - max) for softmax; log_softmax only needs x (the normalizer subtracts max).
      const C e = exponential(v[j][k] - max);
      if (!log) v[j][k] = e;
      sum += e;
    }
  }
  sum = reduce(sum, SumOp{});
  if (!valid) return;
  const Normalizer<C> normalize(max, sum, log);
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    const int64_t i = static_cast<int64_t>(j) * lanes + lane;
    if (i < packs) {
#pragma unroll
      for (int k = 0; k < P; ++k) v[j][k] = log ? normalize(v[j][k]) : v[j][k] * normalize.factor;
      store_pack(out + i, pack<T>(v[j]));
    }
  }
}

// Rows up to kRegisterCols: a group of `width` lanes (up to a warp) per row. Groups past the last
// row compute along, for the shuffles.
template <class T, int P, int kPacks>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, int width, bool log) {
  using Vec = Pack<T, P>;
  const RowGroups<kThreads> groups(width);
  const auto reduce_over_group = [width](auto value, auto op) { return warp_reduce(value, op, width); };
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    const int64_t row = first + groups.group;
    const bool valid = row < rows;
    const int64_t offset = valid ? row * cols : 0;
    softmax_row_in_registers<kPacks>(reinterpret_cast<const Vec *>(x + offset), reinterpret_cast<Vec *>(y + offset),
                                     cols / P, groups.lane, width, valid, log, reduce_over_group);
  }
}

// Rows of kBlockRegisterMinCols columns up to kBlockRegisterMaxBytes: a block per row, kBlockRowPacks
// packs per thread.
template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols, bool log) {
  using Vec = Pack<T, P>;
  const auto reduce_over_block = [](auto value, auto op) { return block_reduce<kBlockThreads>(value, op); };
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    softmax_row_in_registers<kBlockRowPacks>(reinterpret_cast<const Vec *>(x + row * cols),
                                             reinterpret_cast<Vec *>(y + row * cols), cols / P, threadIdx.x,
                                             kBlockThreads, true, log, reduce_over_block);
  }
}

// ---- A row (or a part of one) cached in shared memory by a block ----
// Thread t of the block only ever touches packs t, t + kBlockThreads, ... of the cache, so the
// passes need no barrier of their own.

// Copies packs [0, packs) of `in` into `cache`, kUnroll loads in flight per thread, and returns the
// max (by `max_op`) of this thread's values.
template <int kBlockThreads, class T, int P, class Max>
__device__ __forceinline__ ComputeType<T> cache_and_max(const Pack<T, P> *in, Pack<T, P> *cache, int64_t packs,
                                                        Max max_op) {
  using C = ComputeType<T>;
  C max = negative_infinity<C>();
  for_each_pack<kUnroll>(in, threadIdx.x, packs, kBlockThreads, [&](int64_t i, const Pack<T, P> v) {
    cache[i] = v;
    C values[P];
    unpack(v, values);
#pragma unroll
    for (int k = 0; k < P; ++k) max = max_op(max, values[k]);
  });
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

// Blocks per SM the shared-memory kernel is compiled for: with small blocks on short rows the SM's
// thread slots are the rows in flight, so half types ask for all of them (32 registers, no spills);
// f32 three quarters, f64 half (fewer registers would spill).
template <class T, int kBlockThreads>
constexpr int kSharedMinBlocks =
    (sizeof(T) == 2 ? kMaxThreadsPerSM : sizeof(T) == 4 ? kMaxThreadsPerSM * 3 / 4 : kMaxThreadsPerSM / 2) /
    kBlockThreads;

template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads, (kSharedMinBlocks<T, kBlockThreads>))
    softmax_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes);
  const int64_t packs = cols / P;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const C max = block_reduce<kBlockThreads>(
        cache_and_max<kBlockThreads>(reinterpret_cast<const Vec *>(x + row * cols), cache, packs, MaxSkippingNaN{}),
        MaxSkippingNaN{});
    const C sum = block_reduce<kBlockThreads>(cached_exp_sum<kBlockThreads>(cache, packs, max), SumOp{});
    write_normalized<kBlockThreads>(cache, reinterpret_cast<Vec *>(y + row * cols), packs,
                                    Normalizer<C>(max, sum, log));
  }
}

#if !defined(__MACACC__)
// ---- Long rows, a cluster of blocks per row ----

// Block `rank` of a row's cluster caches x[row, rank * chunk : (rank + 1) * chunk] in shared memory
// and computes that part's max and sum of exponentials; every block then reads all the parts' stats
// from the cluster's shared memory in rank order (so every block combines the same bits) and writes
// its part of y. x is read from memory once, in one kernel.
template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_rows_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk, bool log) {
  namespace cg = cooperative_groups;
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  __shared__ RowStats<C> part_stats;
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes);
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), rank = cluster.block_rank();
  const int64_t row = blockIdx.x / parts, begin = rank * chunk;
  const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
  const C max = block_reduce<kBlockThreads>(
      cache_and_max<kBlockThreads>(reinterpret_cast<const Vec *>(x + row * cols + begin), cache, packs, MaxOp{}),
      MaxOp{});
  const C sum = block_reduce<kBlockThreads>(cached_exp_sum<kBlockThreads>(cache, packs, max), SumOp{});
  if (threadIdx.x == 0) part_stats = {max, sum};
  cluster.sync();  // every part's stats are written
  const CombineStats<C> combine;
  RowStats<C> total = empty_stats<C>();
  for (unsigned r = 0; r < parts; ++r) total = combine(total, *cluster.map_shared_rank(&part_stats, r));
  cluster.barrier_arrive();  // done reading the other blocks' stats...
  write_normalized<kBlockThreads>(cache, reinterpret_cast<Vec *>(y + row * cols + begin), packs,
                                  Normalizer<C>(total.max, total.sum, log));
  cluster.barrier_wait();  // ...and keeps its own readable until every block has read them
}
#endif

// ---- Rows in parts: a block per (row, part), two kernels ----

// stats[row * splits + part] = max and sum of exponentials of x[row, part * chunk : (part + 1) * chunk].
template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    softmax_part_stats(const T *x, RowStats<ComputeType<T>> *stats, int64_t rows, int64_t cols, int64_t splits,
                       int64_t chunk) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
    const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
    RowStats<C> part = empty_stats<C>();
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t, const Vec v) {
      C values[P];
      unpack(v, values);
      accumulate(part, values);
    });
    part = block_reduce<kThreads>(part, CombineStats<C>{});
    if (threadIdx.x == 0) stats[task] = part;
  }
}

// y for one part of a row, after combining all of the row's part stats (each warp combines them
// the same way: lane l folds parts l, l + warp, ... in order, then a butterfly).
template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    softmax_part_output(const T *x, T *y, const RowStats<ComputeType<T>> *stats, int64_t rows, int64_t cols,
                        int64_t splits, int64_t chunk, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  const CombineStats<C> combine;
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    RowStats<C> total = empty_stats<C>();
    for (int64_t part = threadIdx.x % kWarpSize; part < splits; part += kWarpSize) {
      total = combine(total, stats[row * splits + part]);
    }
    total = warp_reduce(total, combine);
    const Normalizer<C> normalize(total.max, total.sum, log);
    const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
    const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
    Vec *out = reinterpret_cast<Vec *>(y + row * cols + begin);
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t i, const Vec v) {
      C values[P];
      unpack(v, values);
#pragma unroll
      for (int k = 0; k < P; ++k) values[k] = normalize(values[k]);
      out[i] = pack<T>(values);
    });
  }
}

// ---- Softmax over a non-last axis: x is [outer, dim, inner] with inner > 1 ----

// A block is `width` threads along inner (a power of two <= warp) times kThreads / width threads
// splitting dim. Each thread folds its share of a column into online stats; the stats of a
// column's threads are combined within each warp (lanes agreeing in lane % width), then across
// the warps in warp order, and every thread writes its share of y.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_columns(const T *x, T *y, int64_t outer, int64_t dim, int64_t inner, int width, bool log) {
  using C = ComputeType<T>;
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ RowStats<C> warp_stats[kWarps][kWarpSize];
  const CombineStats<C> combine;
  const int tx = threadIdx.x % width, ty = threadIdx.x / width, height = kThreads / width;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int64_t tiles = (inner + width - 1) / width;
  for (int64_t task = blockIdx.x; task < outer * tiles; task += gridDim.x) {
    const int64_t column = task % tiles * width + tx;
    const bool valid = column < inner;
    const int64_t base = task / tiles * dim * inner + column;
    RowStats<C> stats = empty_stats<C>();
    if (valid) {
      for (int64_t first = ty; first < dim; first += static_cast<int64_t>(height) * kUnroll) {
        C v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int64_t k = first + static_cast<int64_t>(u) * height;
          v[u] = k < dim ? convert<C>(x[base + k * inner]) : negative_infinity<C>();
        }
        accumulate(stats, v);
      }
    }
    stats = warp_reduce_strided(stats, combine, width);
    __syncthreads();  // the previous task's readers are done with warp_stats
    if (lane < width) warp_stats[warp][lane] = stats;
    __syncthreads();
    stats = warp_stats[0][tx];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) stats = combine(stats, warp_stats[w][tx]);
    if (!valid) continue;
    const Normalizer<C> normalize(stats.max, stats.sum, log);
    for (int64_t k = ty; k < dim; k += height) {
      y[base + k * inner] = convert<T>(normalize(convert<C>(x[base + k * inner])));
    }
  }
}

// ---- Host side ----

inline int64_t max_row_splits(int64_t cols) { return std::max<int64_t>(1, cols / kMinPartLength); }

// Bytes of the workspace's parts: [dense copy of x / y, when y is not contiguous][part stats].
struct WorkspaceLayout {
  size_t stats, total;
};

inline WorkspaceLayout workspace_layout(const SoftmaxPlan &plan) {
  const int64_t numel = plan.outer * plan.dim * plan.inner;
  const size_t compute_item = plan.dtype == OPRT_DTYPE_F64 ? sizeof(double) : sizeof(float);
  WorkspaceLayout layout = {};
  if (!is_contiguous(plan.y)) layout.stats = align_up(static_cast<size_t>(numel) * oprt_dtype_size(plan.dtype));
  layout.total = layout.stats;
  if (plan.inner == 1 && plan.dim > kRegisterCols) {
    layout.total += static_cast<size_t>(plan.outer * max_row_splits(plan.dim)) * 2 * compute_item;
  }
  return layout;
}

// Lanes per row and packs per lane for a row of `packs` packs held in registers.
struct RegisterShape {
  int width;
  int packs_per_lane;
};

inline RegisterShape register_shape(int64_t packs) {
  if (packs <= kWarpSize) return {group_width(packs), 1};
  return {kWarpSize, static_cast<int>(ceil_div(packs, kWarpSize))};
}

// Raises kKernel's dynamic shared memory limit to `bytes` where that and the kernel's static slots
// exceed the default.
template <auto kKernel>
oprt_status_t allow_shared_bytes(size_t bytes) {
  if (bytes + kStaticSharedBytes <= static_cast<size_t>(kDefaultSharedBytes)) return OPRT_STATUS_SUCCESS;
  return check(OPRT_GPU(FuncSetAttribute)(reinterpret_cast<const void *>(kKernel),
                                          OPRT_GPU(FuncAttributeMaxDynamicSharedMemorySize), static_cast<int>(bytes)),
               "raising softmax's shared memory limit");
}

// Instantiates the register kernel for the smallest supported pack count >= shape.packs_per_lane:
// every count for 128-bit packs, powers of two for single elements (misaligned or odd rows).
template <class T, int P, int kPacks = 1>
oprt_status_t launch_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, RegisterShape shape, bool log,
                                       oprt_stream_t stream) {
  constexpr int kMaxPacks = kMaxElementsPerLane / P;
  if constexpr (kPacks < kMaxPacks) {
    if (shape.packs_per_lane > kPacks) {
      constexpr int kNext = P == 1 ? 2 * kPacks : kPacks + 1;
      return launch_rows_in_registers<T, P, kNext>(x, y, rows, cols, shape, log, stream);
    }
  }
  constexpr auto kernel = softmax_rows_in_registers<T, P, kPacks>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
  const unsigned blocks = grid_for(ceil_div(rows, kThreads / shape.width), wave);
  kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, rows, cols, shape.width, log);
  return check_launch("softmax_rows_in_registers", blocks, kThreads, 0);
}

// A block per row with kBlockRowPacks packs per thread: the fewest threads (a power of two, at least
// kBlockRegisterMinThreads) that hold the row.
template <class T, int P, int kBlockThreads = kBlockRegisterMinThreads>
oprt_status_t launch_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols, bool log,
                                             oprt_stream_t stream) {
  if constexpr (kBlockThreads * kBlockRowPacks * P * sizeof(T) < kBlockRegisterMaxBytes) {
    if (ceil_div(cols / P, kBlockRowPacks) > kBlockThreads) {
      return launch_rows_in_block_registers<T, P, 2 * kBlockThreads>(x, y, rows, cols, log, stream);
    }
  }
  constexpr auto kernel = softmax_rows_in_block_registers<T, P, kBlockThreads>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kBlockThreads>(&wave)));
  const unsigned blocks = grid_for(rows, wave);
  kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, rows, cols, log);
  return check_launch("softmax_rows_in_block_registers", blocks, kBlockThreads, 0);
}

template <class T, int P, int kBlockThreads>
oprt_status_t launch_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, size_t row_bytes, bool log,
                                    int64_t sm_count, oprt_stream_t stream) {
  constexpr auto kernel = softmax_rows_in_shared<T, P, kBlockThreads>;
  OPRT_RETURN_IF_ERROR(allow_shared_bytes<kernel>(row_bytes));
  // Blocks past what the SMs hold just queue; a cap keeps the grid within limits for any row count.
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(rows, sm_count * 64));
  kernel<<<blocks, kBlockThreads, row_bytes, to_stream(stream)>>>(x, y, rows, cols, log);
  return check_launch("softmax_rows_in_shared", blocks, kBlockThreads, row_bytes);
}

#if !defined(__MACACC__)
// A cluster of kClusterBlocks blocks per row, each caching `chunk` elements of it.
template <class T, int P>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t cols, int64_t chunk, bool log,
                                     oprt_stream_t stream) {
  constexpr auto kernel = softmax_rows_in_cluster<T, P, kThreads>;
  const size_t shared = static_cast<size_t>(chunk) * sizeof(T);
  OPRT_RETURN_IF_ERROR(allow_shared_bytes<kernel>(shared));
  OPRT_GPU(LaunchAttribute) cluster = {};
  cluster.id = OPRT_GPU(LaunchAttributeClusterDimension);
  cluster.val.clusterDim.x = kClusterBlocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  OPRT_GPU(LaunchConfig_t) config = {};
  config.gridDim = dim3(static_cast<unsigned>(rows * kClusterBlocks));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = shared;
  config.stream = to_stream(stream);
  config.attrs = &cluster;
  config.numAttrs = 1;
  OPRT_RETURN_IF_ERROR(
      check(OPRT_GPU(LaunchKernelEx)(&config, kernel, x, y, cols, chunk, log), "softmax_rows_in_cluster"));
  return check_launch("softmax_rows_in_cluster", config.gridDim, config.blockDim, shared);
}
#endif

template <class T, int P>
oprt_status_t launch_rows_in_parts(const T *x, T *y, int64_t rows, int64_t cols, void *stats_buffer, bool log,
                                   oprt_stream_t stream) {
  using C = ComputeType<T>;
  constexpr auto stats_kernel = softmax_part_stats<T, P>;
  constexpr auto output_kernel = softmax_part_output<T, P>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<stats_kernel, kThreads>(&wave)));
  const int64_t splits = choose_splits(rows, wave, max_row_splits(cols));
  // Parts are whole packs, so every part starts aligned.
  const int64_t chunk = ceil_div(ceil_div(cols, splits), P) * P;
  auto *stats = static_cast<RowStats<C> *>(stats_buffer);
  const unsigned blocks = grid_for(rows * splits, wave);
  stats_kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, stats, rows, cols, splits, chunk);
  OPRT_RETURN_IF_ERROR(check_launch("softmax_part_stats", blocks, kThreads, 0));
  output_kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, stats, rows, cols, splits, chunk, log);
  return check_launch("softmax_part_output", blocks, kThreads, 0);
}

// Softmax of each row of x ([rows, cols], dense) into y, which is x or does not overlap it.
template <class T, int P>
oprt_status_t softmax_rows(const T *x, T *y, int64_t rows, int64_t cols, void *stats, bool log,
                           oprt_stream_t stream) {
  if constexpr (sizeof(T) <= 4 && P > 1) {  // f64 rows were not measured in this tier
    if (cols >= kBlockRegisterMinCols && cols * static_cast<int64_t>(sizeof(T)) <= kBlockRegisterMaxBytes) {
      return launch_rows_in_block_registers<T, P>(x, y, rows, cols, log, stream);
    }
  }
  if (cols <= kRegisterCols) {
    return launch_rows_in_registers<T, P>(x, y, rows, cols, register_shape(ceil_div(cols, P)), log, stream);
  }
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  // Dynamic shared memory a block may take, next to its static slots (block_reduce's, the stats').
  const size_t usable = static_cast<size_t>(limits.max_shared_bytes_per_block - kStaticSharedBytes);
  const size_t row_bytes = static_cast<size_t>(cols) * sizeof(T);
  if (rows >= limits.sm_count && row_bytes <= usable) {
    return row_bytes <= kShortRowBytes
               ? launch_rows_in_shared<T, P, kShortRowThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count,
                                                                stream)
               : launch_rows_in_shared<T, P, kThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count, stream);
  }
#if !defined(__MACACC__)
  // Parts are whole packs, so every part starts aligned.
  const int64_t chunk = ceil_div(ceil_div(cols, kClusterBlocks), P) * P;
  if (rows * kClusterBlocks >= limits.sm_count && static_cast<size_t>(chunk) * sizeof(T) <= usable) {
    return launch_rows_in_cluster<T, P>(x, y, rows, cols, chunk, log, stream);
  }
#endif
  return launch_rows_in_parts<T, P>(x, y, rows, cols, stats, log, stream);
}

template <class T>
oprt_status_t softmax_dense(const SoftmaxPlan &plan, const T *x, T *y, void *stats, oprt_stream_t stream) {
  if (plan.inner == 1) {
    // 128-bit packs when every row starts aligned.
    constexpr int P = kPackSize<T>;
    const bool packed = plan.dim % P == 0 && is_aligned(x, kVectorBytes) && is_aligned(y, kVectorBytes);
    return packed ? softmax_rows<T, P>(x, y, plan.outer, plan.dim, stats, plan.log, stream)
                  : softmax_rows<T, 1>(x, y, plan.outer, plan.dim, stats, plan.log, stream);
  }
  constexpr auto kernel = softmax_columns<T>;
  const int width = group_width(plan.inner);
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
  const unsigned blocks = grid_for(plan.outer * ceil_div(plan.inner, width), wave);
  kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, plan.outer, plan.dim, plan.inner, width, plan.log);
  return check_launch("softmax_columns", blocks, kThreads, 0);
}

}  // namespace softmax_detail

inline size_t softmax_workspace_bytes(const SoftmaxPlan &plan) {
  return with_alignment_slack(softmax_detail::workspace_layout(plan).total);
}

// y = softmax or log_softmax of x over the plan's axis (non-empty; workspace of softmax_workspace_bytes).
inline oprt_status_t launch_softmax(const SoftmaxPlan &plan, void *workspace, void *y, const void *x,
                                    oprt_stream_t stream) {
  namespace detail = softmax_detail;
  return dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const detail::WorkspaceLayout parts = detail::workspace_layout(plan);
    char *base = aligned_workspace(workspace);
    void *stats = base + parts.stats;
    if (plan.dense) return detail::softmax_dense(plan, static_cast<const T *>(x), static_cast<T *>(y), stats, stream);
    // Through a dense buffer, softmax in place there: y itself when contiguous, else the workspace.
    T *buffer = is_contiguous(plan.y) ? static_cast<T *>(y) : reinterpret_cast<T *>(base);
    return gather_run_scatter<T>(
        plan.x, x, buffer, plan.y, y, buffer,
        [&](const T *dense_x, T *dense_y) { return detail::softmax_dense(plan, dense_x, dense_y, stats, stream); },
        stream);
  });
}

}  // namespace oprt::gpu

#endif  // OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
