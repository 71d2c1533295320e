// softmax / log_softmax on the device, computed in f32 for half types (f64 for f64):
//   m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), y = exp(x - m) / s  or  (x - m) - log(s),
// which gives torch's special values as in the CPU reference: an all -inf row has m = -inf and
// x - m = NaN; a +inf makes s NaN; a NaN makes m NaN.
//
// Rows along the last axis (dense, inner == 1) go to one of four kernels by length and count:
//   - up to kRegisterCols columns: a group of up to one warp per row, the row held in registers
//     (kPacks packs per lane, instantiated per pack count), one read and one write per element;
//   - longer rows, when there are enough rows to fill the SMs and a row fits in shared memory: a
//     block per row, the row cached in shared memory in its storage type;
//   - too few such rows, or rows longer than one block's shared memory: a cluster of kClusterBlocks
//     blocks per row, each caching its part of the row; the parts' max and sum of exponentials are
//     combined through distributed shared memory (NVIDIA only: MACA has no clusters);
//   - otherwise (very few rows, or a part still too long): each row is cut into parts, a block per
//     part. A first kernel computes each part's max and sum of exponentials in one pass (online:
//     the sum is rescaled whenever the max grows) into the workspace; a second combines the row's
//     parts and writes its part of y, re-reading x (mostly from L2).
// The register and shared-memory kernels run one wave of blocks that loop over rows, and copy each
// row into shared memory with cp.async kStages - 1 rows ahead of the one they compute on: at the
// H200's bandwidth, one row in flight per warp or block leaves memory idle for most of the time.
// Softmax over another axis (inner > 1) runs threads along inner, so loads stay coalesced, and
// splits the axis over the block's rows of threads with the same online max/sum; no transpose.
// Non-contiguous x or y go through a dense buffer: x is gathered into it (y itself when y is
// contiguous), softmax runs in place there, and the result is scattered into y.
#ifndef OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
#define OPS_SOFTMAX_NVIDIA_KERNEL_CUH_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/common/nvidia/dtype.cuh"
#include "ops/common/nvidia/reduce.cuh"
#include "ops/common/nvidia/runtime_api.h"
#include "ops/common/nvidia/strided_copy.cuh"
#include "ops/softmax/softmax.h"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu {
namespace softmax_detail {

constexpr int kThreads = 256;          // blocks of every kernel but the long-row ones below
constexpr int kLongRowThreads = 1024;  // shared-memory blocks whose row exceeds kLongRowBytes
constexpr size_t kLongRowBytes = 32 * 1024;
constexpr int kClusterThreads = 512;   // blocks of the cluster kernel
constexpr int kClusterBlocks = 8;      // blocks per row in the cluster kernel: the portable maximum
constexpr int kUnroll = 4;                  // loads in flight per thread in the streaming loops
constexpr int kStages = 3;                  // rows a block holds in shared memory: 1 computed, 2 arriving
constexpr int kRegisterCols = 1024;         // longest row held in registers
constexpr int kMaxElementsPerLane = 32;     // so kRegisterCols = kWarpSize * 32 on 32-wide warps
constexpr int64_t kMinPartLength = 2048;    // shortest part of a split row
constexpr int64_t kDefaultSharedBytes = 48 * 1024;  // above this a kernel must opt in
constexpr int64_t kStaticSharedBytes = 1024;        // block_reduce's slots, within the per-block limit

// ---- Math in the compute type ----

// exp: exp for f64; in f32, 2^(v * log2(e)) through the hardware exp2 (exp2f: 2 ulp, subnormal
// results kept), a few instructions where expf takes a dozen. Rounding v * log2(e) adds |v| * 2^-24
// relative error: under 6e-6 wherever exp(v) is a normal float, within f32's tolerance (1e-5), and
// nothing after rounding to a half type.
template <class C>
__device__ __forceinline__ C exponential(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return exp(v);
  } else {
    return exp2f(v * 1.4426950408889634f);
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

// y from x once a row's max and sum are known.
template <class T>
struct Normalizer {
  using C = ComputeType<T>;
  C max;
  C factor;  // 1 / sum, or log(sum) for log_softmax
  bool log;
  __device__ __forceinline__ Normalizer(C row_max, C sum, bool log_softmax)
      : max(row_max), factor(log_softmax ? logarithm(sum) : C(1) / sum), log(log_softmax) {}
  __device__ __forceinline__ T operator()(C x) const {
    const C shifted = x - max;
    return convert<T>(log ? shifted - factor : exponential(shifted) * factor);
  }
};

// ---- Copies into shared memory that run ahead of the computation ----

// Copies one pack from global to shared memory. 4-, 8- and 16-byte packs go through cp.async: the
// copy lands in shared memory without holding registers, so a thread can have its next rows in
// flight while it computes on the current one. A thread reads back only the packs it copied itself,
// so waiting for its own copies is all the ordering needed (no barrier). Other sizes (single half
// elements) and MACA copy synchronously.
template <class V>
__device__ __forceinline__ void copy_to_shared(V *shared, const V *global) {
#if !defined(__MACACC__)
  if constexpr (sizeof(V) == 4 || sizeof(V) == 8 || sizeof(V) == 16) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    if constexpr (sizeof(V) == 16) {  // .cg: skip L1, which would only hold data read once
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global) : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(address), "l"(global), "n"(sizeof(V))
                   : "memory");
    }
    return;
  }
#endif
  *shared = *global;
}

// Closes this thread's batch of copies for one staged row (a batch may be empty).
__device__ __forceinline__ void commit_copies() {
#if !defined(__MACACC__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most `pending` (< kStages) of this thread's batches are still being copied.
__device__ __forceinline__ void wait_copies(int pending) {
  static_assert(kStages <= 3, "wait_copies waits for at most 2 pending batches");
#if !defined(__MACACC__)
  if (pending == 0) {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  } else if (pending == 1) {
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
  } else {
    asm volatile("cp.async.wait_group 2;\n" ::: "memory");
  }
#endif
}

// Which of `stages` shared-memory buffers a loop over rows fills next and which it computes on.
struct StageRing {
  int stages, fill = 0, use = 0;
  __device__ __forceinline__ static int next(int stage, int stages) { return stage + 1 == stages ? 0 : stage + 1; }
  __device__ __forceinline__ int take_fill() {
    const int stage = fill;
    fill = next(fill, stages);
    return stage;
  }
  __device__ __forceinline__ int take_use() {
    const int stage = use;
    use = next(use, stages);
    return stage;
  }
};

// ---- Rows in registers: dim <= kRegisterCols ----

// One group of `width` lanes per row; lane l holds packs l, l + width, ... (kPacks of P values), so
// the group's loads are contiguous. Packs past the row end read as -inf, adding exp(-inf - max) = 0
// to the sum (an all -inf row is NaN anyway), and are not written. Groups past the last row compute
// along, for the shuffles, and store nothing.
// Each thread stages its packs of a row in its own shared-memory slots ([stages][kPacks][kThreads]
// packs per block) stages - 1 rows ahead of the row it computes on.
template <class T, int P, int kPacks>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, int width, int stages, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  Vec *const slots = reinterpret_cast<Vec *>(shared_bytes) + threadIdx.x;  // slot (s, j) at [(s * kPacks + j) * kThreads]
  const RowGroups<kThreads> groups(width);
  StageRing ring{stages};
  int64_t ahead = groups.first_row;  // the next step of rows to copy
  const auto fetch_next = [&] {
    const int stage = ring.take_fill();
    const int64_t row = ahead + groups.group;
    if (row < rows) {
#pragma unroll
      for (int j = 0; j < kPacks; ++j) {
        const int64_t col = (static_cast<int64_t>(j) * width + groups.lane) * P;
        if (col < cols) {
          copy_to_shared(slots + (stage * kPacks + j) * kThreads, reinterpret_cast<const Vec *>(x + row * cols + col));
        }
      }
    }
    commit_copies();
    ahead += groups.step;
  };
  for (int s = 1; s < stages; ++s) fetch_next();
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    fetch_next();
    wait_copies(stages - 1);
    const int stage = ring.take_use();
    const int64_t row = first + groups.group;
    const bool valid_row = row < rows;
    C v[kPacks][P];
    C max = negative_infinity<C>();
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const int64_t col = (static_cast<int64_t>(j) * width + groups.lane) * P;
      if (valid_row && col < cols) {
        const Vec pack = slots[(stage * kPacks + j) * kThreads];
#pragma unroll
        for (int k = 0; k < P; ++k) {
          v[j][k] = convert<C>(pack.v[k]);
          max = MaxOp{}(max, v[j][k]);
        }
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] = negative_infinity<C>();
      }
    }
    max = warp_reduce(max, MaxOp{}, width);
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
    sum = warp_reduce(sum, SumOp{}, width);
    if (!valid_row) continue;
    const Normalizer<T> normalize(max, sum, log);
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const int64_t col = (static_cast<int64_t>(j) * width + groups.lane) * P;
      if (col < cols) {
        Vec out;
#pragma unroll
        for (int k = 0; k < P; ++k) out.v[k] = log ? normalize(v[j][k]) : convert<T>(v[j][k] * normalize.factor);
        *reinterpret_cast<Vec *>(y + row * cols + col) = out;
      }
    }
  }
}

// ---- Rows in shared memory: a block per row ----

// The block computes on rows blockIdx.x, + gridDim.x, ... (one wave of blocks), staged in shared
// memory ([stages][cols] in the storage type) stages - 1 rows ahead. Each thread copies and reads
// only its own packs i, i + kBlockThreads, ... of a row; block_reduce's barriers are the only ones.
template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, int stages, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  Vec *const cache = reinterpret_cast<Vec *>(shared_bytes);
  const int64_t packs = cols / P;
  StageRing ring{stages};
  int64_t ahead = blockIdx.x;  // the next row to copy
  const auto fetch_next = [&] {
    Vec *const staged = cache + ring.take_fill() * packs;
    if (ahead < rows) {
      const Vec *in = reinterpret_cast<const Vec *>(x + ahead * cols);
      for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) copy_to_shared(staged + i, in + i);
    }
    commit_copies();
    ahead += gridDim.x;
  };
  for (int s = 1; s < stages; ++s) fetch_next();
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    fetch_next();
    wait_copies(stages - 1);
    const Vec *const staged = cache + ring.take_use() * packs;
    C max = negative_infinity<C>();
    for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
      const Vec v = staged[i];
#pragma unroll
      for (int k = 0; k < P; ++k) max = MaxOp{}(max, convert<C>(v.v[k]));
    }
    max = block_reduce<kBlockThreads>(max, MaxOp{});
    C sum = 0;
    for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
      const Vec v = staged[i];
#pragma unroll
      for (int k = 0; k < P; ++k) sum += exponential(convert<C>(v.v[k]) - max);
    }
    sum = block_reduce<kBlockThreads>(sum, SumOp{});
    const Normalizer<T> normalize(max, sum, log);
    Vec *out = reinterpret_cast<Vec *>(y + row * cols);
    for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
      const Vec v = staged[i];
      Vec result;
#pragma unroll
      for (int k = 0; k < P; ++k) result.v[k] = normalize(convert<C>(v.v[k]));
      out[i] = result;
    }
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
  Vec *const cache = reinterpret_cast<Vec *>(shared_bytes);
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), rank = cluster.block_rank();
  const int64_t row = blockIdx.x / parts, begin = rank * chunk;
  const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
  const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) copy_to_shared(cache + i, in + i);
  commit_copies();
  wait_copies(0);
  C max = negative_infinity<C>();
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
    const Vec v = cache[i];
#pragma unroll
    for (int k = 0; k < P; ++k) max = MaxOp{}(max, convert<C>(v.v[k]));
  }
  max = block_reduce<kBlockThreads>(max, MaxOp{});
  C sum = 0;
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
    const Vec v = cache[i];
#pragma unroll
    for (int k = 0; k < P; ++k) sum += exponential(convert<C>(v.v[k]) - max);
  }
  sum = block_reduce<kBlockThreads>(sum, SumOp{});
  if (threadIdx.x == 0) part_stats = {max, sum};
  cluster.sync();  // every part's stats are written
  const CombineStats<C> combine;
  RowStats<C> total = empty_stats<C>();
  for (unsigned r = 0; r < parts; ++r) total = combine(total, *cluster.map_shared_rank(&part_stats, r));
  cluster.barrier_arrive();  // done reading the other blocks' stats...
  const Normalizer<T> normalize(total.max, total.sum, log);
  Vec *out = reinterpret_cast<Vec *>(y + row * cols + begin);
  for (int64_t i = threadIdx.x; i < packs; i += kBlockThreads) {
    const Vec v = cache[i];
    Vec result;
#pragma unroll
    for (int k = 0; k < P; ++k) result.v[k] = normalize(convert<C>(v.v[k]));
    out[i] = result;
  }
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
    for (int64_t first = threadIdx.x; first < packs; first += kThreads * kUnroll) {
      Vec v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) v[u] = in[first + u * kThreads];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) {
          C values[P];
#pragma unroll
          for (int k = 0; k < P; ++k) values[k] = convert<C>(v[u].v[k]);
          accumulate(part, values);
        }
      }
    }
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
    const Normalizer<T> normalize(total.max, total.sum, log);
    const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
    const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
    Vec *out = reinterpret_cast<Vec *>(y + row * cols + begin);
    for (int64_t first = threadIdx.x; first < packs; first += kThreads * kUnroll) {
      Vec v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) v[u] = in[first + u * kThreads];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) {
          Vec result;
#pragma unroll
          for (int k = 0; k < P; ++k) result.v[k] = normalize(convert<C>(v[u].v[k]));
          out[first + u * kThreads] = result;
        }
      }
    }
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
    const Normalizer<T> normalize(stats.max, stats.sum, log);
    for (int64_t k = ty; k < dim; k += height) y[base + k * inner] = normalize(convert<C>(x[base + k * inner]));
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

// Rows staged ahead pay only where cp.async copies (4- to 16-byte packs): a synchronous copy stalls
// on its own load, so it gains nothing from a deeper ring of buffers.
template <class T, int P>
constexpr int staging_depth() {
#if defined(__MACACC__)
  return 1;
#else
  return sizeof(Pack<T, P>) >= 4 ? kStages : 1;
#endif
}

// Raises kKernel's dynamic shared memory limit to `bytes` where that exceeds the default.
template <auto kKernel>
oprt_status_t allow_shared_bytes(size_t bytes) {
  if (bytes <= static_cast<size_t>(kDefaultSharedBytes)) return OPRT_STATUS_SUCCESS;
  return check(OPRT_GPU(FuncSetAttribute)(reinterpret_cast<const void *>(kKernel),
                                          OPRT_GPU(FuncAttributeMaxDynamicSharedMemorySize), static_cast<int>(bytes)),
               "raising softmax's shared memory limit");
}

// One wave of kKernel's blocks (kBlockThreads threads and `shared_bytes` of dynamic shared memory
// each): the grid of a kernel that loops over rows. Asked on every launch, as the shared memory
// depends on the row length.
template <auto kKernel, int kBlockThreads>
oprt_status_t wave_with_shared(size_t shared_bytes, int64_t *blocks) {
  OPRT_RETURN_IF_ERROR(allow_shared_bytes<kKernel>(shared_bytes));
  int per_sm = 0;
  OPRT_RETURN_IF_ERROR(
      check(OPRT_GPU(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, kKernel, kBlockThreads, shared_bytes),
            "querying softmax's kernel occupancy"));
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  *blocks = static_cast<int64_t>(limits.sm_count) * std::max(per_sm, 1);
  return OPRT_STATUS_SUCCESS;
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
  constexpr int stages = staging_depth<T, P>();
  constexpr size_t shared = sizeof(Pack<T, P>) * stages * kPacks * kThreads;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((wave_with_shared<kernel, kThreads>(shared, &wave)));
  const unsigned blocks = static_cast<unsigned>(std::min(ceil_div(rows, kThreads / shape.width), wave));
  kernel<<<blocks, kThreads, shared, to_stream(stream)>>>(x, y, rows, cols, shape.width, stages, log);
  return check_launch("launching softmax's register kernel");
}

template <class T, int P, int kBlockThreads>
oprt_status_t launch_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, int stages, bool log,
                                    oprt_stream_t stream) {
  constexpr auto kernel = softmax_rows_in_shared<T, P, kBlockThreads>;
  const size_t shared = static_cast<size_t>(stages) * cols * sizeof(T);
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((wave_with_shared<kernel, kBlockThreads>(shared, &wave)));
  const unsigned blocks = static_cast<unsigned>(std::min(rows, wave));
  kernel<<<blocks, kBlockThreads, shared, to_stream(stream)>>>(x, y, rows, cols, stages, log);
  return check_launch("launching softmax's shared-memory kernel");
}

#if !defined(__MACACC__)
// A cluster of kClusterBlocks blocks per row, each caching `chunk` elements of it.
template <class T, int P>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t cols, int64_t chunk, bool log,
                                     oprt_stream_t stream) {
  constexpr auto kernel = softmax_rows_in_cluster<T, P, kClusterThreads>;
  const size_t shared = static_cast<size_t>(chunk) * sizeof(T);
  OPRT_RETURN_IF_ERROR(allow_shared_bytes<kernel>(shared));
  OPRT_GPU(LaunchAttribute) cluster = {};
  cluster.id = OPRT_GPU(LaunchAttributeClusterDimension);
  cluster.val.clusterDim.x = kClusterBlocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  OPRT_GPU(LaunchConfig_t) config = {};
  config.gridDim = dim3(static_cast<unsigned>(rows * kClusterBlocks));
  config.blockDim = dim3(kClusterThreads);
  config.dynamicSmemBytes = shared;
  config.stream = to_stream(stream);
  config.attrs = &cluster;
  config.numAttrs = 1;
  return check(OPRT_GPU(LaunchKernelEx)(&config, kernel, x, y, cols, chunk, log), "launching softmax's cluster kernel");
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
  OPRT_RETURN_IF_ERROR(check_launch("launching softmax's part-stats kernel"));
  output_kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, stats, rows, cols, splits, chunk, log);
  return check_launch("launching softmax's part-output kernel");
}

// Softmax of each row of x ([rows, cols], dense) into y, which is x or does not overlap it.
template <class T, int P>
oprt_status_t softmax_rows(const T *x, T *y, int64_t rows, int64_t cols, void *stats, bool log,
                           oprt_stream_t stream) {
  if (cols <= kRegisterCols) {
    return launch_rows_in_registers<T, P>(x, y, rows, cols, register_shape(ceil_div(cols, P)), log, stream);
  }
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  // Dynamic shared memory a block may take, next to its static slots (block_reduce's, the stats').
  const size_t usable = static_cast<size_t>(limits.max_shared_bytes_per_block - kStaticSharedBytes);
  const size_t row_bytes = static_cast<size_t>(cols) * sizeof(T);
  if (rows >= limits.sm_count && row_bytes <= usable) {
    const int stages = static_cast<int>(std::min<size_t>(staging_depth<T, P>(), usable / row_bytes));
    return row_bytes <= kLongRowBytes
               ? launch_rows_in_shared<T, P, kThreads>(x, y, rows, cols, stages, log, stream)
               : launch_rows_in_shared<T, P, kLongRowThreads>(x, y, rows, cols, stages, log, stream);
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
  return check_launch("launching softmax's column kernel");
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
    // Through a dense buffer: y itself when contiguous, else the workspace.
    const bool y_dense = is_contiguous(plan.y);
    T *buffer = y_dense ? static_cast<T *>(y) : reinterpret_cast<T *>(base);
    const T *source = static_cast<const T *>(x);
    if (!is_contiguous(plan.x)) {
      OPRT_RETURN_IF_ERROR(launch_strided_copy(contiguous_like(plan.x), buffer, plan.x, x, stream));
      source = buffer;
    }
    OPRT_RETURN_IF_ERROR(detail::softmax_dense(plan, source, buffer, stats, stream));
    if (y_dense) return OPRT_STATUS_SUCCESS;
    return launch_strided_copy(plan.y, y, contiguous_like(plan.y), buffer, stream);
  });
}

}  // namespace oprt::gpu

#endif  // OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
