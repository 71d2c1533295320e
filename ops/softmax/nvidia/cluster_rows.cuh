// Softmax tier 5, rows too long or too many for the grid tier's resident blocks, up to kClusterBlocks
// parts of kPartLength<T, kClusterThreads> (128 x 131072): a cluster of kClusterBlocks blocks per row,
// each holding its part of the row in registers (RegisterPart, grid_rows.cuh); every warp sends its
// (max, sum of exponentials) to every block of the cluster once (ClusterMailbox: st.async, no cluster
// barrier after the first), so x is read once and y written once, in one kernel. Half types also take
// clusters of kLargeClusterBlocks (16, a non-portable size) for rows of up to twice that (16 x 262144),
// where the device runs them. NVIDIA only (MACA has no clusters), and Hopper (sm_90) or newer: code
// compiled for an older architecture (an sm_80 or sm_89 cubin, compute_80 PTX) has an empty, trapping
// body here, and the dispatcher never picks this tier where the loaded code is such (kernel.cuh:
// cluster_tier_available).
#ifndef OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "grid_rows.cuh"
#include "ops/common/cuda_dialect/cluster_mailbox.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// The max of a part held as packs of a half type, taken on the packed pairs (HMNMX2: maxNum, as
// MaxSkippingNaN, so a NaN is skipped here and makes the sum NaN), then widened: widened in a first pass, the
// values stayed alive into the exponentials' pass and spilled at 64 registers (lab crep, notes: "Session 13").
template <class T, int P, int kPacks>
__device__ __forceinline__ float packed_max(const Pack<T, P> (&packs)[kPacks]) {
  using Pair = std::conditional_t<std::is_same_v<T, half>, __half2, __nv_bfloat162>;
  constexpr uint32_t kNegativeInfinities = std::is_same_v<T, half> ? 0xfc00fc00u : 0xff80ff80u;
  Pair max;
  memcpy(&max, &kNegativeInfinities, sizeof(max));
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    Pair pairs[P / 2];
    memcpy(pairs, &packs[j], sizeof(pairs));
#pragma unroll
    for (int w = 0; w < P / 2; ++w) max = __hmax2(max, pairs[w]);
  }
  return MaxSkippingNaN{}(__low2float(max), __high2float(max));
}

// Keeps the compiler from reusing one pass's widened values in the next (each pass widens the packs again):
// kept alive across the cluster exchange, they spilled at 64 registers.
template <class T, int P, int kPacks>
__device__ __forceinline__ void widen_again(Pack<T, P> (&packs)[kPacks]) {
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    uint32_t words[4];
    memcpy(words, &packs[j], sizeof(words));
    asm volatile("" : "+r"(words[0]), "+r"(words[1]), "+r"(words[2]), "+r"(words[3]));
    memcpy(&packs[j], words, sizeof(words));
  }
}

// RegisterPart's alternative for softmax of whole parts of a half type: the part held as loaded (packs of
// 16-bit values, half RegisterPart's registers, so 4 blocks of 256 fit an SM where RegisterPart allows 3),
// each value exponentiated twice: against the thread's max for the stats, then against the row's for y =
// exp(x - row max) / row sum. The second exponential costs less than the occupancy gains where a row's
// blocks make more than a wave (128 x 131072 f16 and bf16: notes, "Session 13" and "Session 15"). kBase2: as
// RegisterPart's.
template <int kBlockThreads, int kPacks, class T, int P, bool kBase2>
struct PackedPart {
  static_assert(sizeof(T) == 2 && sizeof(Pack<T, P>) == 16, "16-byte packs of a half type");
  using C = float;
  using Combine = CombineStatsCarryingNaNInSum<C, kBase2>;
  Pack<T, P> packs[kPacks];
  RowStats<C> stats;  // of this thread's values

  static __device__ __forceinline__ int index(int j) { return j * kBlockThreads + static_cast<int>(threadIdx.x); }
  static __device__ __forceinline__ unsigned element_offset(int j) { return static_cast<unsigned>(index(j)) * P; }

  // As RegisterPart::load for whole parts of softmax (the only kind this part takes).
  template <bool kWhole>
  __device__ __forceinline__ void load(const Pack<T, P> *in, const Pack<T, P> *, int, bool) {
    static_assert(kWhole, "whole parts only");
#pragma unroll
    for (int j = 0; j < kPacks; ++j) packs[j] = load_pack_once(in + index(j));
    const C max = packed_max(packs);
    const C offset = shift_offset<kBase2>(max == negative_infinity<C>() ? C(0) : max);  // all -inf: 0, not NaN
    widen_again(packs);
    C sums[2] = {C(0), C(0)};  // two chains
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      C values[P];
      unpack(packs[j], values);
#pragma unroll
      for (int k = 0; k < P; ++k) sums[k % 2] += exponential_after<kBase2>(values[k], offset);
    }
    stats = {max, sums[0] + sums[1]};  // a NaN or +inf among the values: a NaN sum (Combine carries it)
  }

  // y = exp(x - row max) / row sum: NaN for an all -inf row (-inf - -inf) and for a row whose sum is NaN.
  template <bool kWhole>
  __device__ __forceinline__ void store(Pack<T, P> *out, int, const RowStats<C> &row, bool) {
    static_assert(kWhole, "whole parts only");
    const C offset = shift_offset<kBase2>(row.max), inverse = C(1) / row.sum;
    widen_again(packs);
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      C values[P];
      unpack(packs[j], values);
#pragma unroll
      for (int k = 0; k < P; ++k) values[k] = exponential_after<kBase2>(values[k], offset) * inverse;
      // The address from an unsigned element offset: as out + index(j), ptxas kept one 64-bit base address for
      // every store, and spilled it at 64 registers (notes: "Session 15").
      store_pack_once(reinterpret_cast<Pack<T, P> *>(reinterpret_cast<T *>(out) + element_offset(j)), pack<T>(values));
    }
  }
};

// Block `rank` of cluster `row` (kBlocks blocks) holds x[row, rank * chunk : (rank + 1) * chunk] in
// registers (kPacks packs of P per thread). Each warp's stats go to slot rank * warps + warp of every block's
// mailbox; every warp of every block then folds all the slots in the same order (so all get the same
// bits) and writes its part of y. A device function, so that bench/lab can time this very code.
// kLog: log_softmax (a template parameter, as in grid_rows.cuh). kWhole: every part is whole (cols ==
// kBlocks * chunk, chunk == kBlockThreads * kPacks * P), so no load or store is masked. kBase2: stats in
// base 2 (row_math.cuh; the lab times both forms). kPacked: the part is a PackedPart (softmax of whole parts of
// half types), else a RegisterPart.
template <class T, int P, int kBlocks, int kBlockThreads, int kPacks, bool kLog, bool kWhole = false,
          bool kBase2 = kBase2Stats<T, kLog>, bool kPacked = false>
__device__ __forceinline__ void softmax_part_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk) {
  static_assert(kBlocks <= kWarpSize, "lane l of each warp sends to block l");
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  constexpr int kWarps = kBlockThreads / kWarpSize;
  __shared__ ClusterMailbox<RowStats<C>, kBlocks * kWarps> mailbox;
  mailbox.open();
  const unsigned rank = cluster_block_rank();
  const int64_t row = cluster_index(), begin = rank * chunk;
  const int packs = static_cast<int>(std::max<int64_t>(0, std::min(chunk, cols - begin)) / P);
  using Part = std::conditional_t<kPacked, PackedPart<kBlockThreads, kPacks, T, P, kBase2>,
                                  RegisterPart<kBlockThreads, kPacks, T, P, kBase2>>;
  Part part;
  part.template load<kWhole>(reinterpret_cast<const Vec *>(x + row * cols + begin),
                             reinterpret_cast<const Vec *>(x + row * cols), packs, kLog);
  // Whole parts reduce their stats in two phases (fewer dependent exponentials); the masked kernels keep
  // the butterfly of combines, which ran faster for them (notes: "Session 16").
  using Combine = typename Part::Combine;
  const Combine combine;
  RowStats<C> warp;
  if constexpr (kWhole) {
    warp = reduce_stats_in_two_phases<Combine>(&part.stats, 1, 0);
  } else {
    warp = warp_reduce(part.stats, combine);
  }
  const unsigned lane = threadIdx.x % kWarpSize;
  cluster_wait();  // every block's mailbox is open
  if (lane < kBlocks) mailbox.send(warp, rank * kWarps + threadIdx.x / kWarpSize, lane);
  const RowStats<C> *slots = mailbox.receive();
  // Lane l folds slots l, l + 32, ... (kBlocks * kWarps is a multiple of the warp: whole warps, blocks of 8+).
  static_assert(kBlocks * kWarps % kWarpSize == 0, "every lane folds as many slots");
  constexpr int kSlotsPerLane = kBlocks * kWarps / kWarpSize;
  RowStats<C> total = empty_stats<C>();
  if constexpr (kWhole) {
    total = reduce_stats_in_two_phases<Combine>(slots + lane, kSlotsPerLane, kWarpSize);
  } else {
    for (unsigned slot = lane; slot < kBlocks * kWarps; slot += kWarpSize) total = combine(total, slots[slot]);
    total = warp_reduce(total, combine);
  }
  part.template store<kWhole>(reinterpret_cast<Vec *>(y + row * cols + begin), packs, total, kLog);
}

// A block's threads: half types hold a part of kPartLength<T, kClusterThreads> in half as many threads,
// 64 values each (fewer, longer-running blocks were faster for them; f32 the other way round).
template <class T>
constexpr int kClusterBlockThreads = sizeof(T) == 2 ? kClusterHalfThreads : kClusterThreads;

// Packs of P each thread holds: every dtype's block holds the same part length.
template <class T, int P>
constexpr int kClusterPartPacks = static_cast<int>(kPartLength<T, kClusterThreads> / kClusterBlockThreads<T> / P);

// Resident blocks per SM the kernel's registers allow: 3 of 256 threads for half types (QuACK's
// occupancy; notes: "Few long rows"), 4 where their parts are held packed (PackedPart), 2 of 512 for the others.
template <class T, bool kPacked>
constexpr int kClusterBlocksPerSM =
    sizeof(T) == 2 ? (kPacked ? kClusterPackedMinBlocks : kClusterHalfMinBlocks) : kClusterMinBlocks;

// kBlocks: kClusterBlocks, or kLargeClusterBlocks (half types, where large_clusters_run says the device
// runs it). kWhole: every part is whole (kernel.cuh launches it, for softmax, where cols == kBlocks * the part
// length). kPacked: PackedPart (softmax of whole parts of half types; kernel.cuh launches it where the
// clusters make more than a wave).
template <class T, int P, int kBlocks, bool kLog = false, bool kWhole = false, bool kPacked = false>
__global__ void OPRT_CLUSTER_DIMS(kBlocks) __launch_bounds__(kClusterBlockThreads<T>, kClusterBlocksPerSM<T, kPacked>)
    softmax_rows_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  softmax_part_in_cluster<T, P, kBlocks, kClusterBlockThreads<T>, kClusterPartPacks<T, P>, kLog, kWhole,
                          kBase2Stats<T, kLog>, kPacked>(x, y, cols, chunk);
#endif
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
