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

#include "grid_rows.cuh"
#include "ops/common/cuda_dialect/cluster_mailbox.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// Block `rank` of cluster `row` (kBlocks blocks) holds x[row, rank * chunk : (rank + 1) * chunk] in
// registers (kPacks packs of P per thread). Each warp's stats go to slot rank * warps + warp of every block's
// mailbox; every warp of every block then folds all the slots in the same order (so all get the same
// bits) and writes its part of y. A device function, so that bench/lab can time this very code.
// kLog: log_softmax (a template parameter, as in grid_rows.cuh). kWhole: every part is whole (cols ==
// kBlocks * chunk, chunk == kBlockThreads * kPacks * P), so no load or store is masked. kBase2: stats in
// base 2 (row_math.cuh; the lab times both forms).
template <class T, int P, int kBlocks, int kBlockThreads, int kPacks, bool kLog, bool kWhole = false,
          bool kBase2 = kBase2Stats<T, kLog>>
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
  using Part = RegisterPart<kBlockThreads, kPacks, T, P, kBase2>;
  Part part;
  part.template load<kWhole>(reinterpret_cast<const Vec *>(x + row * cols + begin),
                             reinterpret_cast<const Vec *>(x + row * cols), packs, kLog);
  const typename Part::Combine combine;
  const RowStats<C> warp = warp_reduce(part.stats, combine);
  const unsigned lane = threadIdx.x % kWarpSize;
  cluster_wait();  // every block's mailbox is open
  if (lane < kBlocks) mailbox.send(warp, rank * kWarps + threadIdx.x / kWarpSize, lane);
  const RowStats<C> *slots = mailbox.receive();
  RowStats<C> total = empty_stats<C>();
  for (unsigned slot = lane; slot < kBlocks * kWarps; slot += kWarpSize) total = combine(total, slots[slot]);
  part.template store<kWhole>(reinterpret_cast<Vec *>(y + row * cols + begin), packs, warp_reduce(total, combine),
                              kLog);
}

// A block's threads: half types hold a part of kPartLength<T, kClusterThreads> in half as many threads,
// 64 values each (fewer, longer-running blocks were faster for them; f32 the other way round).
template <class T>
constexpr int kClusterBlockThreads = sizeof(T) == 2 ? kClusterHalfThreads : kClusterThreads;

// Packs of P each thread holds: every dtype's block holds the same part length.
template <class T, int P>
constexpr int kClusterPartPacks = static_cast<int>(kPartLength<T, kClusterThreads> / kClusterBlockThreads<T> / P);

// Resident blocks per SM the kernel's registers allow: 3 of 256 threads for half types (QuACK's
// occupancy; notes: "Few long rows"), 2 of 512 for the others.
template <class T>
constexpr int kClusterBlocksPerSM = sizeof(T) == 2 ? kClusterHalfMinBlocks : kClusterMinBlocks;

// kBlocks: kClusterBlocks, or kLargeClusterBlocks (half types, where large_clusters_run says the device
// runs it). kWhole: every part is whole (kernel.cuh launches it, for softmax, where cols == kBlocks * the part
// length).
template <class T, int P, int kBlocks, bool kLog = false, bool kWhole = false>
__global__ void OPRT_CLUSTER_DIMS(kBlocks) __launch_bounds__(kClusterBlockThreads<T>, kClusterBlocksPerSM<T>)
    softmax_rows_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  softmax_part_in_cluster<T, P, kBlocks, kClusterBlockThreads<T>, kClusterPartPacks<T, P>, kLog, kWhole>(x, y, cols,
                                                                                                        chunk);
#endif
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
