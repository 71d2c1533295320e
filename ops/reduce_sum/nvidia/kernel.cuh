// reduce_sum on the device. Sums accumulate in the compute type (f32 for half types, f64 for f64)
// and never use atomics: every sum is formed in a fixed order, so results repeat run to run.
//
// A dense plan is x = [outer, reduce, inner] -> y = [outer, inner]:
//   - reduce == 0 writes zeros, reduce == 1 copies x.
//   - inner == 1 sums rows. Rows of fewer than kWarpSize * kLongUnroll packs get a group of up to
//     one warp each (narrower groups for short rows, so each thread loads about kShortUnroll packs);
//     rows up to kWarpRowMaxPacks a warp each when there are enough rows to keep half the device's
//     warps busy, each lane with kLongUnroll 128-bit loads in flight; longer rows (or too few) a block
//     each, of 64 to kThreads threads, so each thread loads about kRowBlockPacks packs. When there are
//     too few rows to fill the device (outer == 1: a full sum), each row is cut into `splits`
//     interleaved parts, one block each (up to kSplitWaves waves of blocks, each thread with at least
//     kSplitMinPacks packs), whose sums land in the workspace as [outer, splits] and are then summed
//     as rows again; a single such row of up to kWholeMaxLength elements (a whole-tensor sum), where it
//     is streamable (below), in slices of kSliceThreads x kSliceLoads packs, a block each, when they make
//     at least kSliceMinWaves waves of blocks, else in pieces of whole slices of the streamed kernel, a
//     block each; otherwise in one block of kWholeThreads per SM. Its partials are then added by one block
//     sized to them (sum_row_at_once). On sm_90 code, rows that would be split but are enough for a cluster of
//     kClusterBlocks blocks each (16, a non-portable size; 8 where the device runs no more) to give
//     every SM kClusterFillBlocksPerSM blocks take one kernel instead: a cluster per row, the parts'
//     sums added in block 0 of the cluster (sum_rows_in_cluster), no partials.
//     Streamed tiers replace two of these where every row starts 16-byte aligned and is whole packs
//     (f32 and half types): short rows, a group each in blocks of kStreamGroupThreads (up to
//     kStreamGroupMaxWaves waves of blocks), and rows of at least kThreads * kStreamUnroll packs, a
//     block each. A thread of these loads its next kStreamUnroll packs, of the same row or of its next
//     one, before it sums the current ones. Half rows of 256 and 512 columns among them take the tile
//     kernel instead: a group of 8 lanes per row or of 16 per two rows, every size a compile-time
//     constant, no loop; rows of exactly 8 KB or 16 KB and f32 rows of exactly one slice take the slice
//     kernel, a block per row, and other rows past a warp's and up to 16 KB the same blocks masked to
//     the row (sum_row_at_once).
//   - inner > 1 sums columns: threads run along inner (coalesced, one pack of columns each) and a
//     block's rows of threads split the reduced axis, combined through shared memory. Too few
//     columns to fill the device split the reduced axis across blocks as well, through workspace
//     partials [outer, splits, inner] summed as columns again.
// A non-dense plan is gathered (a strided copy) into the workspace as [kept dims..., reduced dims...],
// summed as rows, and scattered into y through y's strides when y is not contiguous.
// The rows or columns being summed are loaded with an L2 evict-first hint (EvictFirstLoad) when they
// are at most kEvictFirstMaxBytes, else plainly; the split sums' partials, plainly.
#ifndef OPS_REDUCE_SUM_NVIDIA_KERNEL_CUH_
#define OPS_REDUCE_SUM_NVIDIA_KERNEL_CUH_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/common/cuda_dialect/cache_policy.cuh"
#include "ops/common/cuda_dialect/cluster_mailbox.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/common/cuda_dialect/strided_copy.cuh"
#include "ops/runtime/todo.h"
#include "ops/reduce_sum/reduce_sum.h"

namespace oprt::gpu {
namespace reduce_sum_detail {

// Tuning constants. The measurements behind them, and which value restores the earlier dispatch, are in
// bench/notes/reduce-sum-tuning.md; each line below names its section there.
constexpr int kThreads = 256;              // threads of every block, except those of sum_rows_by_block per row
constexpr int kShortUnroll = 4;            // "Packs in flight": rows of fewer than kWarpSize * kLongUnroll packs
constexpr int kLongUnroll = 8;             // "Packs in flight": longer rows and split rows
constexpr int kColumnUnroll = 4;           // rows of packs a thread loads before it adds any (columns)
constexpr int kShortMinBlocks = 1;         // "Occupancy": resident blocks per SM asked of the short-row kernel (6 measured slower)
constexpr int kLongMinBlocks = 1;          // "Occupancy": ... of the warp-per-row and split-row kernels (4: half inputs spill, slower)
constexpr int64_t kWarpRowMaxPacks = kWarpSize * kLongUnroll;  // "Block per row": longest row a warp takes
constexpr int kRowBlockPacks = 8;          // "Block per row": packs per thread that size a row's block
constexpr int kMinRowBlock = 64;           // "Block per row": fewest threads of a row's block
constexpr int64_t kSplitWaves = 1;         // "Split rows": waves of blocks a split row fills at most (4 measured slower)
constexpr int64_t kSplitMinPacks = 1;      // "Split rows": fewest packs per thread in a part of a split row (8: slower)
constexpr int64_t kUnsplitRowMax = 2048;   // rows up to this long are never split
constexpr int64_t kMinRowSplit = 2048;     // shortest part of a split row, in elements (bounds the workspace)
constexpr int64_t kMinColumnSplit = 64;    // fewest rows in one part of a split column
constexpr int64_t kMaxSplits = 2048;       // parts of one column: about a wave of blocks at most
constexpr int64_t kMaxRowSplits = 8192;    // "Split rows": parts of one of several rows, a few waves of blocks at most
constexpr int kWholeThreads = 1024;        // "Whole sums": threads of the blocks of a split single row, one block per SM
constexpr int64_t kWholeMaxLength = int64_t{1} << 30;  // "Whole sums": longest such row (its index math is int)
constexpr int64_t kMaxPartials = 1 << 20;  // partial sums the workspace holds at most
constexpr int64_t kEvictFirstMaxBytes = int64_t{256} << 20;  // "Evict-first loads": the largest input loaded with them
constexpr int kStreamUnroll = 4;           // "Streamed rows": packs per thread in a chunk (two chunks in flight)
constexpr int kStreamMinBlocks = 4;        // "Streamed rows": resident blocks per SM asked of the streamed kernels
constexpr int kSliceThreads = 1024;        // "Whole sums in slices": threads of the slice kernel's blocks...
constexpr int kSliceLoads = 2;             // ... 16-byte loads per thread, all in flight before the first add
constexpr int kRowAtOnceThreads = 512;     // "Rows of half a slice": threads of a 16 KB row's block...
constexpr int kRowAtOnceLoads = 2;         // ... its 16-byte loads per thread...
constexpr int kRowAtOnceMinBlocks = 4;     // ... and its resident blocks per SM
constexpr int kShortRowAtOnceThreads = 256;  // "Rows of a quarter slice": threads of an 8 KB row's block...
constexpr int kShortRowAtOnceLoads = 2;      // ... its 16-byte loads per thread...
constexpr int kShortRowAtOnceMinBlocks = 8;  // ... and its resident blocks per SM
constexpr int64_t kSliceMinWaves = 8;      // "Whole sums in slices": fewest waves of its blocks a whole sum takes
constexpr int kAtOnceMinThreads = 128;     // "Partials at once": fewest threads of the block that adds a whole sum's partials...
constexpr int kAtOnceThreads = 1024;       // ... and most
constexpr int kAtOnceMaxPacks = 4;         // ... and its packs per thread (beyond them a row kernel adds the partials)
constexpr int64_t kStreamGroupMaxWaves = 2;  // "Short rows in small blocks": most waves of the streamed short-row kernel's blocks
constexpr int kStreamGroupThreads = 64;    // "Short rows in small blocks": threads of its blocks
constexpr int kTileThreads = 64;           // "Short rows in tiles": threads of the tile kernel's blocks
constexpr int kTileMinWidth = 8;           // "Short rows in tiles": half rows of kStreamUnroll packs per lane of groups
constexpr int kTileMaxWidth = 16;          // ... of 8 to 16 lanes (256 and 512 columns)
constexpr int kTileWideRows = 2;           // "Short rows in tiles": rows per group of kTileMaxWidth lanes (else 1)
constexpr int kClusterBlocks = 16;         // "Rows in a cluster": blocks per row of the cluster tier (non-portable)...
constexpr int kPortableClusterBlocks = 8;  // ... or the portable maximum where the device runs no more
constexpr int kClusterThreads = 256;       // "Rows in a cluster": threads of its blocks
constexpr int kClusterFillBlocksPerSM = 1; // "Rows in a cluster": fewest blocks per SM it takes
constexpr int64_t kMaxGridBlocks = std::numeric_limits<int32_t>::max();  // the grid's x limit
constexpr int64_t kMaxGridY = 65535;                                      // and its y limit

// ---- Device side ----

// The sum of a pack's P values in the compute type, added pairwise (a tree of depth log2 P) so that
// the adds of one pack do not wait on each other. A fixed order: the sum repeats bit for bit.
template <class C, class T, int P>
__device__ __forceinline__ C pack_sum(const Pack<T, P> pack) {
  C values[P];
  unpack(pack, values);
#pragma unroll
  for (int stride = 1; stride < P; stride *= 2) {
#pragma unroll
    for (int k = 0; k + stride < P; k += 2 * stride) values[k] += values[k + stride];
  }
  return values[0];
}

// This thread's share of the sum of row[0, n) among `threads` cooperating threads: a scalar head up
// to the first 16-byte boundary, then 128-bit packs (kUnroll loads in flight, each pack summed
// pairwise before it is added), then a scalar tail, every value read through `load` (a PlainLoad or an
// EvictFirstLoad). The split depends only on the row's address and length, so the sum's order is
// fixed. Index is int where the caller knows n fits (fewer registers).
template <int kUnroll, class C, class Index = int64_t, class In, class Load>
__device__ __forceinline__ C thread_partial_sum(const In *row, Index n, int thread, int threads, const Load &load) {
  constexpr int P = kPackSize<In>;
  using Vec = Pack<In, P>;
  C sum = 0;
  // EXERCISE(step 1): add this thread's share of row[0, n) to sum, every value read as load(address): a scalar head to the 16-byte boundary, 128-bit packs (kUnroll loads, then pack_sum each), a scalar tail
  const Index misalignment = static_cast<Index>(reinterpret_cast<uintptr_t>(row) % kVectorBytes / sizeof(In));
  const Index head = misalignment == 0 ? 0 : std::min<Index>(n, P - misalignment);
  for (Index i = thread; i < head; i += threads) sum += convert<C>(load(row + i));
  const Vec *packs = reinterpret_cast<const Vec *>(row + head);
  const Index pack_count = (n - head) / P;
  for (Index first = thread; first < pack_count; first += static_cast<Index>(threads) * kUnroll) {
    Vec v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * threads < pack_count) v[u] = load(packs + first + u * threads);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * threads < pack_count) sum += pack_sum<C>(v[u]);
    }
  }
  for (Index i = head + pack_count * P + thread; i < n; i += threads) sum += convert<C>(load(row + i));
  // EXERCISE END
  return sum;
}

// y[r] = sum of row r of x ([rows, length]), one group of `width` lanes (a power of two <= warp) per row.
// kMinBlocks: resident blocks per SM the registers must allow (__launch_bounds__). Index: int where the
// launch knows the rows are short (fewer registers), else int64_t. kWidth > 0: width is kWidth, a
// constant (the lanes' stride then costs no registers). Load: how x is read (cache_policy.cuh).
template <class In, class Out, int kUnroll, int kMinBlocks, class Index, int kWidth, class Load>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    sum_rows_by_group(const In *x, Out *y, int64_t rows, int64_t length, int width) {
  using C = ComputeType<In>;
  if constexpr (kWidth > 0) width = kWidth;
  const RowGroups<kThreads> groups(width);
  const Load load{};
  // EXERCISE(step 2): per row of this group: thread_partial_sum over the group's lanes (reading with load), warp_reduce(sum, SumOp{}, width), lane 0 writes y[row]
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    const int64_t row = first + groups.group;
    C sum = row < rows ? thread_partial_sum<kUnroll, C, Index>(x + row * length, static_cast<Index>(length), groups.lane,
                                                              width, load)
                       : C(0);
    sum = warp_reduce(sum, SumOp{}, width);
    if (row < rows && groups.lane == 0) y[row] = convert<Out>(sum);
  }
  // EXERCISE END
}

// y[r * splits + s] = sum of part s of row r, block (s, r) of a (splits, rows) grid of kBlock threads
// (kSplit false: splits == 1, a 1-D grid of a block per row, and the threads' stride is a constant:
// fewer registers). Rows past the grid's limit loop. The parts interleave: the row's splits * kBlock threads take its
// packs in turn, so the blocks of a split row sweep it in address order together. The grid's two axes
// spare every block a 64-bit division before its first load.
// Its registers allow kLongMinBlocks blocks of kThreads per SM: as many threads, whatever kBlock.
template <class In, class Out, int kBlock, bool kSplit, class Load>
__global__ void __launch_bounds__(kBlock, kLongMinBlocks * kThreads / kBlock)
    sum_rows_by_block(const In *x, Out *y, int64_t rows, int64_t length, int64_t splits) {
  using C = ComputeType<In>;
  if constexpr (!kSplit) splits = 1;
  const Load load{};
  // EXERCISE(step 3): per (row, part) task: the block's threads take the row's packs in turn with thread_partial_sum (reading with load), block_reduce, thread 0 writes
  const int part = kSplit ? blockIdx.x : 0;
  for (int64_t row = kSplit ? blockIdx.y : blockIdx.x; row < rows; row += kSplit ? gridDim.y : gridDim.x) {
    C sum = thread_partial_sum<kLongUnroll, C>(x + row * length, length, part * kBlock + static_cast<int>(threadIdx.x),
                                               static_cast<int>(splits) * kBlock, load);
    sum = block_reduce<kBlock>(sum, SumOp{});
    if (threadIdx.x == 0) y[row * splits + part] = convert<Out>(sum);
  }
  // EXERCISE END
}

// partials[b] = block b's share of x[0, n): a single split row (a whole-tensor sum) in a grid of
// kWholeThreads-thread blocks whose threads take the row's packs in turn, as sum_rows_by_block's parts do,
// counting in int (n <= kWholeMaxLength): fewer registers, so a block of 1024 threads per SM keeps 8 loads
// in flight per thread.
template <class T, class Load>
__global__ void __launch_bounds__(kWholeThreads, 1) sum_whole_row_by_grid(const T *x, ComputeType<T> *partials, int n) {
  using C = ComputeType<T>;
  const int thread = static_cast<int>(blockIdx.x) * kWholeThreads + static_cast<int>(threadIdx.x);
  C sum = thread_partial_sum<kLongUnroll, C, int>(x, n, thread, static_cast<int>(gridDim.x) * kWholeThreads, Load{});
  sum = block_reduce<kWholeThreads>(sum, SumOp{});
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

#if !defined(__MACACC__)
// y[r] = sum of row r, cluster r of kBlocks blocks of kBlockThreads (NVIDIA, sm_90 and newer): block
// `rank` sums part `rank` of the row, [rank * chunk, (rank + 1) * chunk) with chunk whole packs (so the
// parts of an aligned row start aligned), and sends its sum to block 0's mailbox (cluster_mailbox.cuh),
// which adds the parts in rank order and writes y[r]. Where split rows take two kernels and partials in
// the workspace, this is one kernel. A device function, so that bench/lab can time this very code at
// other cluster and block sizes.
template <class T, class Load, int kBlocks, int kBlockThreads>
__device__ __forceinline__ void sum_row_in_cluster(const T *x, T *y, int64_t length, int64_t chunk) {
  using C = ComputeType<T>;
  __shared__ ClusterMailbox<C, kBlocks> mailbox;
  mailbox.open();
  const unsigned rank = cluster_block_rank();
  const int64_t row = cluster_index(), begin = rank * chunk;
  const int n = static_cast<int>(std::max<int64_t>(0, std::min(chunk, length - begin)));
  C sum = thread_partial_sum<kLongUnroll, C, int>(x + row * length + begin, n, static_cast<int>(threadIdx.x),
                                                  kBlockThreads, Load{});
  sum = block_reduce<kBlockThreads>(sum, SumOp{});
  cluster_wait();  // block 0's mailbox is open
  if (threadIdx.x == 0) mailbox.send(sum, static_cast<int>(rank), 0);
  if (rank == 0 && threadIdx.x == 0) {
    const C *parts = mailbox.receive();
    C total = parts[0];
#pragma unroll
    for (int b = 1; b < kBlocks; ++b) total += parts[b];
    y[row] = convert<T>(total);
  }
}

// The tier's kernel: kBlocks blocks of kClusterThreads per row. Code for older architectures has a
// trapping body; the dispatcher launches this kernel only where hopper_code_loaded says it may.
template <class T, class Load, int kBlocks>
__global__ void OPRT_CLUSTER_DIMS(kBlocks) __launch_bounds__(kClusterThreads)
    sum_rows_in_cluster(const T *x, T *y, int64_t length, int64_t chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  sum_row_in_cluster<T, Load, kBlocks, kClusterThreads>(x, y, length, chunk);
#endif
}
#endif

// ---- Streamed rows (x 16-byte aligned, rows of `length` elements in whole packs; T is f32 or a half type) ----
// A thread takes its packs in chunks of kStreamUnroll and loads the next chunk before it sums the
// current one (`pipelined`), so it always has loads in flight, also while its group combines a finished
// row. Packs past the end of a row, and rows past the last, load as zeros.

// kStreamUnroll packs of a row: what a thread of a streamed kernel loads at once.
template <class T>
using StreamChunk = Pack<T, kPackSize<T>>[kStreamUnroll];

template <class C, class T>
__device__ __forceinline__ void add_chunk(C &sum, const StreamChunk<T> &chunk) {
#pragma unroll
  for (int u = 0; u < kStreamUnroll; ++u) sum += pack_sum<C>(chunk[u]);
}

// y[r] = sum of row r, one group of kWidth lanes per row, groups taking rows as in sum_rows_by_group
// (RowGroups) in blocks of kBlockThreads. A lane walks its group's rows as one list of chunks, a chunk
// being the lane's packs lane + u * kWidth (u < kStreamUnroll) of a kWidth * kStreamUnroll-pack slice of
// the row: the next row's first loads are issued before the shuffles that end the current row. Every
// lane of a warp walks as many chunks (the warp's passes over its rows), so all reach the shuffles.
// Its registers allow kStreamMinBlocks blocks of kThreads per SM: as many threads, whatever kBlockThreads.
template <class T, int kWidth, class Load, int kBlockThreads = kThreads>
__global__ void __launch_bounds__(kBlockThreads, kStreamMinBlocks * kThreads / kBlockThreads)
    sum_rows_streamed_by_group(const T *x, T *y, int64_t rows, int64_t length, int full_passes) {
  using C = ComputeType<T>;
  using Vec = Pack<T, kPackSize<T>>;
  constexpr int kSlicePacks = kWidth * kStreamUnroll;
  const Load load{};
  const int packs = static_cast<int>(length / kPackSize<T>);  // (an int argument instead made half types spill)
  const RowGroups<kBlockThreads> groups(kWidth);
  const int slices = (packs + kSlicePacks - 1) / kSlicePacks;
  // The warp's passes over its rows: full_passes (rows / step, from the launch) or one more. No division
  // here, before the first loads.
  const int passes = full_passes + (groups.first_row + full_passes * groups.step < rows);
  struct Position {
    int64_t row;
    int slice;
  };
  const auto advance = [&](Position &at) {
    if (++at.slice == slices) at = {at.row + groups.step, 0};
  };
  Position loading = {groups.first_row + groups.group, 0}, summing = loading;
  C sum = 0;
  pipelined<StreamChunk<T>>(
      passes * slices,
      [&](StreamChunk<T> &chunk, int64_t) {
#pragma unroll
        for (int u = 0; u < kStreamUnroll; ++u) {
          const int pack = loading.slice * kSlicePacks + u * kWidth + groups.lane;
          chunk[u] = loading.row < rows && pack < packs
                         ? load(reinterpret_cast<const Vec *>(x) + loading.row * packs + pack)
                         : Vec{};
        }
        advance(loading);
      },
      [&](const StreamChunk<T> &chunk, int64_t) {
        add_chunk(sum, chunk);
        if (summing.slice == slices - 1) {
          sum = warp_reduce(sum, SumOp{}, kWidth);
          if (summing.row < rows && groups.lane == 0) y[summing.row] = convert<T>(sum);
          sum = 0;
        }
        advance(summing);
      });
}

// The tile kernel's rows per group of `width` lanes and per block (its launcher sizes the grid by the latter).
constexpr int tile_group_rows(int width) { return width == kTileMaxWidth ? kTileWideRows : 1; }
constexpr int tile_block_rows(int width) { return kTileThreads / width * tile_group_rows(width); }

// y[r] = sum of row r of exactly kWidth * kStreamUnroll packs (x 16-byte aligned): a group of kWidth lanes
// takes kRows rows, kTileThreads / kWidth groups per block, the grid covering the rows once. Every size is a
// compile-time constant and nothing loops, so each lane issues its first row's loads first thing. A row at a
// time, its loads then its adds, reuses the registers: 32, so an SM holds 32 blocks (64 warps) on sm_90; both
// rows' loads at once took 48 registers (42 warps) and were no faster than a row a group.
// kExact: the blocks cover the rows exactly and x has fewer than 2^31 packs, so no row test and 32-bit
// offsets: the loads start a dozen instructions in, as torch.compile's persistent reductions' do.
template <class T, int kWidth, class Load, bool kExact>
__global__ void __launch_bounds__(kTileThreads) sum_rows_in_tiles(const T *x, T *y, int64_t rows) {
  using C = ComputeType<T>;
  using Vec = Pack<T, kPackSize<T>>;
  using Index = std::conditional_t<kExact, unsigned, int64_t>;
  constexpr int kRows = tile_group_rows(kWidth), kRowPacks = kWidth * kStreamUnroll;
  constexpr int kBlockRows = tile_block_rows(kWidth);
  const Index lane = threadIdx.x % kWidth;
  const Index first = static_cast<Index>(blockIdx.x) * kBlockRows + threadIdx.x / kWidth * kRows;
  const bool whole = kExact || (static_cast<int64_t>(blockIdx.x) + 1) * kBlockRows <= rows;  // no row past the end
  const Load load{};
  const Vec *packs = reinterpret_cast<const Vec *>(x) + (first * kRowPacks + lane);
  C sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    StreamChunk<T> chunk;
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      chunk[u] = whole || first + r < rows ? load(packs + r * kRowPacks + u * kWidth) : Vec{};
    }
    sum[r] = 0;
    add_chunk(sum[r], chunk);
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) sum[r] = warp_reduce(sum[r], SumOp{}, kWidth);  // every lane, even past the end
  if (lane < kRows && (kExact || first + lane < rows)) {  // lane r stores row r's sum
    C mine = sum[0];
#pragma unroll
    for (int r = 1; r < kRows; ++r) mine = lane == r ? sum[r] : mine;
    y[first + lane] = convert<T>(mine);
  }
}

// y[r] = sum of row r, one block of kThreads per row (a block for each row, up to the grid's limit), row r
// being x[r * length, min((r + 1) * length, total)): a matrix's rows (total = rows * length), or the pieces
// of a whole-tensor sum (launch_whole_row: Out is the compute type; the last piece may end short).
// A chunk is a thread's packs threadIdx.x + u * kThreads of a kThreads * kStreamUnroll-pack slice.
template <class T, class Out, class Load>
__global__ void __launch_bounds__(kThreads, kStreamMinBlocks)
    sum_rows_streamed_by_block(const T *x, Out *y, int64_t rows, int64_t length, int64_t total) {
  using C = ComputeType<T>;
  using Vec = Pack<T, kPackSize<T>>;
  constexpr int kSlicePacks = kThreads * kStreamUnroll;
  const Load load{};
  const int packs = static_cast<int>(length / kPackSize<T>);
  const int64_t total_packs = total / kPackSize<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Vec *row_packs = reinterpret_cast<const Vec *>(x) + row * packs;
    const int row_end = static_cast<int>(std::min<int64_t>(packs, total_packs - row * packs));
    C sum = 0;
    pipelined<StreamChunk<T>>(
        (row_end + kSlicePacks - 1) / kSlicePacks,
        [&](StreamChunk<T> &chunk, int slice) {
#pragma unroll
          for (int u = 0; u < kStreamUnroll; ++u) {
            const int pack = slice * kSlicePacks + u * kThreads + static_cast<int>(threadIdx.x);
            chunk[u] = pack < row_end ? load(row_packs + pack) : Vec{};
          }
        },
        [&](const StreamChunk<T> &chunk, int) { add_chunk(sum, chunk); });
    sum = block_reduce<kThreads>(sum, SumOp{});
    if (threadIdx.x == 0) y[row] = convert<Out>(sum);
  }
}

// Loads thread's packs of a block's packs [0, count) of `packs` into v, all at once: thread t takes
// t + u * kBlockThreads (u < kPacks); those at or past count are zero (kWhole: none is, so no bounds test).
template <int kBlockThreads, int kPacks, bool kWhole, class Vec, class Load>
__device__ __forceinline__ void load_packs_at_once(const Load &load, const Vec *packs, int thread, int count,
                                                   Vec (&v)[kPacks]) {
#pragma unroll
  for (int u = 0; u < kPacks; ++u) {
    const int pack = thread + u * kBlockThreads;
    v[u] = kWhole || pack < count ? load(packs + pack) : Vec{};
  }
}

// Values in one slice of sum_slices: kSliceThreads threads of kSliceLoads packs.
template <class T>
constexpr int64_t kSliceValues = int64_t{kSliceThreads} * kSliceLoads * kPackSize<T>;
// Values in a row that sum_slices sums in kRowAtOnceThreads threads of kRowAtOnceLoads packs (16 KB).
template <class T>
constexpr int64_t kRowAtOnceValues = int64_t{kRowAtOnceThreads} * kRowAtOnceLoads * kPackSize<T>;
// Values in a row that sum_slices sums in kShortRowAtOnceThreads threads of kShortRowAtOnceLoads packs (8 KB).
template <class T>
constexpr int64_t kShortRowAtOnceValues = int64_t{kShortRowAtOnceThreads} * kShortRowAtOnceLoads * kPackSize<T>;

// partials[s] = sum of slice s of x[0, total) (16-byte aligned, total a whole number of packs), a block each,
// every slice kSliceValues long but the last, which may end short: the first pass of a large whole sum. A
// thread's packs are thread + u * kSliceThreads, so each of the block's loads covers kSliceThreads contiguous
// packs; all are issued before the first add, and a full slice has no loop and no bounds test. Large blocks
// mean few partials for the second pass (notes: "Whole sums in slices").
// Other block shapes (kBlockThreads x kLoads, Out the sums' type) sum rows of exactly one such slice, a block
// each (notes: "Rows of half a slice").
template <class T, class Load, int kBlockThreads = kSliceThreads, int kLoads = kSliceLoads, int kMinBlocks = 1,
          class Out = ComputeType<T>>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks) sum_slices(const T *x, Out *partials, int64_t total) {
  using C = ComputeType<T>;
  constexpr int64_t kValues = int64_t{kBlockThreads} * kLoads * kPackSize<T>;
  const Load load{};
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kValues;
  using Vec = Pack<T, kPackSize<T>>;
  const Vec *slice = reinterpret_cast<const Vec *>(x + first);
  const int thread = static_cast<int>(threadIdx.x);
  Vec v[kLoads];
  if (first + kValues <= total) {
    load_packs_at_once<kBlockThreads, kLoads, true>(load, slice, thread, 0, v);
  } else {
    const int packs = static_cast<int>((total - first) / kPackSize<T>);
    load_packs_at_once<kBlockThreads, kLoads, false>(load, slice, thread, packs, v);
  }
  C sum = 0;
#pragma unroll
  for (int u = 0; u < kLoads; ++u) sum += pack_sum<C>(v[u]);
  sum = block_reduce_to_first<kBlockThreads>(sum, SumOp{}, C{0});
  if (threadIdx.x == 0) partials[blockIdx.x] = convert<Out>(sum);
}

// y[r] = sum of row r, x[r * length, (r + 1) * length) (16-byte aligned), by block r of kBlockThreads whose
// threads load all their kPacks packs (thread + u * kBlockThreads, up to the whole packs) before the first add,
// then the last length % P values: in one block, the second pass of a whole sum, its partials in flight at once
// (notes: "Partials at once"). Rows after the first start aligned only when length is whole packs.
template <class In, class Out, int kBlockThreads, int kPacks, class Load>
__global__ void __launch_bounds__(kBlockThreads) sum_row_at_once(const In *x, Out *y, int length) {
  using C = ComputeType<In>;
  constexpr int P = kPackSize<In>;
  const Load load{};
  x += static_cast<int64_t>(blockIdx.x) * length;
  y += blockIdx.x;
  const int packs = length / P, thread = static_cast<int>(threadIdx.x);
  using Vec = Pack<In, P>;
  Vec v[kPacks];
  load_packs_at_once<kBlockThreads, kPacks, false>(load, reinterpret_cast<const Vec *>(x), thread, packs, v);
  C sum = 0;
#pragma unroll
  for (int u = 0; u < kPacks; ++u) sum += pack_sum<C>(v[u]);
  for (int i = packs * P + thread; i < length; i += kBlockThreads) sum += convert<C>(load(x + i));
  sum = block_reduce_to_first<kBlockThreads>(sum, SumOp{}, C{0});
  if (threadIdx.x == 0) *y = convert<Out>(sum);
}

// y[o, s, i] = sum over rows r of part s ([s * chunk, (s + 1) * chunk)) of x[o, r, i], x being
// [outer, reduce, inner]. A block is `width` threads along inner, each owning V adjacent columns
// (V > 1 only when inner % V == 0 and x is aligned), times kThreads / width threads along the rows.
template <class In, class Out, int V, class Load>
__global__ void __launch_bounds__(kThreads)
    sum_columns(const In *x, Out *y, int64_t outer, int64_t reduce, int64_t inner, int64_t splits, int64_t chunk,
                int width) {
  using C = ComputeType<In>;
  using Vec = Pack<In, V>;
  __shared__ C partial[kThreads * V];
  const Load load{};
  const int tx = threadIdx.x % width, ty = threadIdx.x / width, height = kThreads / width;
  const int64_t tiles = (inner + static_cast<int64_t>(width) * V - 1) / (static_cast<int64_t>(width) * V);
  for (int64_t task = blockIdx.x; task < outer * tiles * splits; task += gridDim.x) {
    const int64_t part = task % splits, tile = task / splits % tiles, o = task / splits / tiles;
    const int64_t column = (tile * width + tx) * V;
    const int64_t begin = part * chunk, end = std::min(reduce, begin + chunk);
    C sum[V] = {};
    // EXERCISE(step 4): add rows [begin, end) of this thread's V columns into sum[], kColumnUnroll rows of packs read with load before any is added
    if (column < inner) {
      const In *base = x + o * reduce * inner + column;
      for (int64_t first = begin + ty; first < end; first += static_cast<int64_t>(height) * kColumnUnroll) {
        Vec v[kColumnUnroll];
#pragma unroll
        for (int u = 0; u < kColumnUnroll; ++u) {
          if (first + u * height < end) v[u] = load(reinterpret_cast<const Vec *>(base + (first + u * height) * inner));
        }
#pragma unroll
        for (int u = 0; u < kColumnUnroll; ++u) {
          if (first + u * height < end) {
#pragma unroll
            for (int k = 0; k < V; ++k) sum[k] += convert<C>(v[u].v[k]);
          }
        }
      }
    }
    // EXERCISE END
    // Combine the block's rows of threads, in row order.
    __syncthreads();  // the previous task's readers are done with `partial`
#pragma unroll
    for (int k = 0; k < V; ++k) partial[threadIdx.x * V + k] = sum[k];
    __syncthreads();
    if (ty == 0 && column < inner) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        C total = partial[tx * V + k];
        for (int h = 1; h < height; ++h) total += partial[(h * width + tx) * V + k];
        y[(o * splits + part) * inner + column + k] = convert<Out>(total);
      }
    }
  }
}

// ---- Host side ----

// Most parts a row of `length` may be split into with `rows` rows (1: never split): kMaxRowSplits, except
// for a single row (a whole sum), whose pieces are one slice each (launch_whole_row). Depends only on the
// shape, so the workspace size does not depend on the device.
inline int64_t max_row_splits(int64_t rows, int64_t length) {
  if (rows == 0 || length <= kUnsplitRowMax) return 1;
  const int64_t most = rows == 1 ? kMaxPartials : kMaxRowSplits;
  return std::max<int64_t>(1, std::min({most, length / kMinRowSplit, kMaxPartials / rows}));
}

inline int64_t max_column_splits(int64_t outer, int64_t reduce, int64_t inner) {
  if (outer * inner == 0) return 1;
  return std::max<int64_t>(1, std::min({kMaxSplits, reduce / kMinColumnSplit, kMaxPartials / (outer * inner)}));
}

// Returns f(TypeTag<Load>{}) with Load the way to read an input of `bytes` bytes that is summed once:
// EvictFirstLoad up to kEvictFirstMaxBytes, else PlainLoad (notes: "Evict-first loads").
template <class F>
oprt_status_t with_input_loads(int64_t bytes, F &&f) {
  if (bytes <= kEvictFirstMaxBytes) return f(TypeTag<EvictFirstLoad>{});
  return f(TypeTag<PlainLoad>{});
}

// A block for each of `tasks` tasks, the hardware scheduling them in waves (notes: "Block per row"), up
// to the grid's limit; the kernels' task loops take any beyond it.
inline unsigned block_per_task(int64_t tasks) { return static_cast<unsigned>(std::min(tasks, kMaxGridBlocks)); }

// Launches sum_rows_by_block with kBlock-thread blocks over rows * splits tasks.
template <int kBlock, bool kSplit, class Load, class In, class Out>
oprt_status_t launch_row_blocks(const In *x, Out *y, int64_t rows, int64_t length, int64_t splits,
                                oprt_stream_t stream) {
  constexpr auto kernel = sum_rows_by_block<In, Out, kBlock, kSplit, Load>;
  const dim3 blocks = kSplit ? dim3(static_cast<unsigned>(splits), static_cast<unsigned>(std::min(rows, kMaxGridY)))
                             : dim3(block_per_task(rows));
  kernel<<<blocks, kBlock, 0, to_stream(stream)>>>(x, y, rows, length, splits);
  return check_launch(kSplit ? "sum_rows_by_block (split rows)" : "sum_rows_by_block (a block per row)", blocks,
                      kBlock, 0);
}

// Threads of the block that sums a row of `packs` packs by itself: about kRowBlockPacks packs each,
// a power of two from kMinRowBlock (at least a warp) to kThreads.
inline int row_block_threads(int64_t packs) {
  static_assert(kThreads == 256, "row blocks are instantiated for 64, 128 and kThreads threads");
  int threads = std::max(kMinRowBlock, kWarpSize);
  while (threads < kThreads && threads * int64_t{kRowBlockPacks} < packs) threads *= 2;
  return threads;
}

// Whether launch_rows has the streamed tiers for these types: they were measured for f32 and half
// types with evict-first loads (notes: "Streamed rows"); f64, plain loads (large inputs) and the
// second pass of split rows keep the other tiers.
template <class Load, class In, class Out>
constexpr bool kHasStreamedTiers = std::is_same_v<Load, EvictFirstLoad> && std::is_same_v<In, Out> && sizeof(In) <= 4;

// Whether the streamed kernels can take rows of `length` elements of x: every row starts 16-byte
// aligned and is whole packs, with int offsets.
template <class T>
bool streamable(const T *x, int64_t length) {
  return length % kPackSize<T> == 0 && length <= std::numeric_limits<int32_t>::max() && is_aligned(x, kVectorBytes);
}

// Calls f(std::integral_constant<int, W>{}) for W the smallest power of two from kWidth to kMaxWidth that is at
// least `width` (kMaxWidth beyond it): a group's width, or a block's threads.
template <int kWidth = 1, int kMaxWidth = kWarpSize, class F>
oprt_status_t with_group_width(int width, F &&f) {
  if constexpr (kWidth < kMaxWidth) {
    if (width > kWidth) return with_group_width<2 * kWidth, kMaxWidth>(width, std::forward<F>(f));
  }
  return f(std::integral_constant<int, kWidth>{});
}

// Rows of fewer than kWarpSize * kLongUnroll packs: narrow groups, so each thread has about
// kShortUnroll packs to load.
template <class Load, class In, class Out>
oprt_status_t launch_short_rows(const In *x, Out *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  const int width = group_width(ceil_div(length, int64_t{kPackSize<In>} * kShortUnroll));
  constexpr auto kernel = sum_rows_by_group<In, Out, kShortUnroll, kShortMinBlocks, int, 0, Load>;  // length < 2^31
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
  const unsigned blocks = grid_for(ceil_div(rows, kThreads / width), wave);
  kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, rows, length, width);
  return check_launch("sum_rows_by_group (short rows)", blocks, kThreads, 0);
}

// Half rows of exactly width * kStreamUnroll packs, width kTileMinWidth to kTileMaxWidth: sum_rows_in_tiles.
template <class T>
oprt_status_t launch_rows_in_tiles(const T *x, T *y, int64_t rows, int width, oprt_stream_t stream) {
  return with_group_width<kTileMinWidth, kTileMaxWidth>(width, [&](auto group_width) {
    constexpr int kWidth = decltype(group_width)::value;
    constexpr int64_t kBlockRows = tile_block_rows(kWidth);
    const unsigned blocks = static_cast<unsigned>(ceil_div(rows, kBlockRows));
    const bool exact = rows % kBlockRows == 0 && rows * (kWidth * kStreamUnroll) <= std::numeric_limits<int>::max();
    const auto kernel = exact ? sum_rows_in_tiles<T, kWidth, EvictFirstLoad, true>
                              : sum_rows_in_tiles<T, kWidth, EvictFirstLoad, false>;
    kernel<<<blocks, kTileThreads, 0, to_stream(stream)>>>(x, y, rows);
    return check_launch("sum_rows_in_tiles", blocks, kTileThreads, 0);
  });
}

// The tile tier's group width for half rows of `packs` packs: kTileMinWidth to kTileMaxWidth lanes of
// kStreamUnroll packs each (notes: "Short rows in tiles"); 0 where it does not take them.
inline int tile_width(int64_t packs) {
  for (int width = kTileMinWidth; width <= kTileMaxWidth; width *= 2) {
    if (packs == int64_t{width} * kStreamUnroll) return width;
  }
  return 0;
}

// Short rows, streamed: groups of the fewest lanes giving each kStreamUnroll packs of the row, in blocks
// of kStreamGroupThreads, a group for every row; when that would be more than kStreamGroupMaxWaves
// waves of blocks, launch_short_rows' grid instead.
template <class T>
oprt_status_t launch_short_rows_streamed(const T *x, T *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  return with_group_width(group_width(ceil_div(length / kPackSize<T>, kStreamUnroll)), [&](auto width) {
    constexpr auto kernel = sum_rows_streamed_by_group<T, decltype(width)::value, EvictFirstLoad, kStreamGroupThreads>;
    int64_t wave = 0;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kStreamGroupThreads>(&wave)));
    const int64_t rows_per_block = kStreamGroupThreads / width;
    const int64_t tasks = ceil_div(rows, rows_per_block);  // blocks that take every row once
    if (tasks > kStreamGroupMaxWaves * wave) return launch_short_rows<EvictFirstLoad>(x, y, rows, length, stream);
    const unsigned blocks = static_cast<unsigned>(tasks);
    const int full_passes = static_cast<int>(rows / (tasks * rows_per_block));  // 1, or 0 with a partial last block
    kernel<<<blocks, kStreamGroupThreads, 0, to_stream(stream)>>>(x, y, rows, length, full_passes);
    return check_launch("sum_rows_streamed_by_group (short rows)", blocks, kStreamGroupThreads, 0);
  });
}

// y[r] = sum of row r, rows (at most kMaxGridBlocks) of exactly one slice of kBlockThreads x kLoads packs, a
// block each: sum_slices' sums are the row sums.
template <int kBlockThreads, int kLoads, int kMinBlocks, class Load, class In, class Out>
oprt_status_t launch_rows_as_slices(const In *x, Out *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  constexpr auto kernel = sum_slices<In, Load, kBlockThreads, kLoads, kMinBlocks, Out>;
  const unsigned blocks = block_per_task(rows);
  kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, rows * length);
  return check_launch("sum_slices (a block per row of one slice)", blocks, kBlockThreads, 0);
}

// y[r] = sum of row r, rows (at most kMaxGridBlocks) of at most kBlockThreads x kLoads whole packs, a block
// each, every load in flight before the first add and masked to the row: sum_row_at_once.
template <int kBlockThreads, int kLoads, class Load, class In, class Out>
oprt_status_t launch_rows_at_once(const In *x, Out *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  constexpr auto kernel = sum_row_at_once<In, Out, kBlockThreads, kLoads, Load>;
  const unsigned blocks = block_per_task(rows);
  kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, static_cast<int>(length));
  return check_launch("sum_row_at_once (a block per row)", blocks, kBlockThreads, 0);
}

// Rows of more than kWarpRowMaxPacks packs (or fewer rows than a warp each would keep busy): a block
// each. f32 rows of exactly one slice and rows of exactly 16 KB or 8 KB take sum_slices in a shape that holds
// the whole row (launch_rows_as_slices), other aligned rows of up to 16 KB the same shapes masked to the row
// (launch_rows_at_once); longer rows are streamed where the row fills at least a slice, so that every thread
// has all its packs to load (notes: "Streamed rows"); else kBlock threads from row_block_threads.
template <class Load, class In, class Out>
oprt_status_t launch_long_rows(const In *x, Out *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  const int64_t packs = ceil_div(length, kPackSize<In>);
  if constexpr (kHasStreamedTiers<Load, In, Out>) {
    if (streamable(x, length) && rows <= kMaxGridBlocks) {
      // Rows of exactly one slice, summed in the compute type (f32) (notes: "Rows of one slice").
      if constexpr (std::is_same_v<Out, ComputeType<In>>) {
        if (length == kSliceValues<In>) {
          return launch_rows_as_slices<kSliceThreads, kSliceLoads, 1, Load>(x, y, rows, length, stream);
        }
      }
      // Rows of 16 KB, all of a row's loads in flight at once (notes: "Rows of half a slice").
      if (length == kRowAtOnceValues<In>) {
        return launch_rows_as_slices<kRowAtOnceThreads, kRowAtOnceLoads, kRowAtOnceMinBlocks, Load>(
            x, y, rows, length, stream);
      }
      // Rows of 8 KB, likewise (notes: "Rows of a quarter slice").
      if (length == kShortRowAtOnceValues<In>) {
        return launch_rows_as_slices<kShortRowAtOnceThreads, kShortRowAtOnceLoads, kShortRowAtOnceMinBlocks, Load>(
            x, y, rows, length, stream);
      }
      // Rows of other lengths past a warp's and up to 16 KB: the 8 KB or the 16 KB rows' block, masked to the
      // row (notes: "Rows of any length at once").
      if (packs > kWarpRowMaxPacks) {
        if (packs <= int64_t{kShortRowAtOnceThreads} * kShortRowAtOnceLoads) {
          return launch_rows_at_once<kShortRowAtOnceThreads, kShortRowAtOnceLoads, Load>(x, y, rows, length, stream);
        }
        if (packs <= int64_t{kRowAtOnceThreads} * kRowAtOnceLoads) {
          return launch_rows_at_once<kRowAtOnceThreads, kRowAtOnceLoads, Load>(x, y, rows, length, stream);
        }
      }
    }
    if (streamable(x, length) && packs >= kThreads * kStreamUnroll) {
      constexpr auto kernel = sum_rows_streamed_by_block<In, Out, Load>;
      const unsigned blocks = block_per_task(rows);
      kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, rows, length, rows * length);
      return check_launch("sum_rows_streamed_by_block (a block per row)", blocks, kThreads, 0);
    }
  }
  const int threads = row_block_threads(packs);
  if (threads == 64) return launch_row_blocks<64, false, Load>(x, y, rows, length, 1, stream);
  if (threads == 128) return launch_row_blocks<128, false, Load>(x, y, rows, length, 1, stream);
  return launch_row_blocks<kThreads, false, Load>(x, y, rows, length, 1, stream);
}

// y (Out) = sums of x's rows ([rows, length], In), each row summed by one group, warp or block.
template <class Load, class In, class Out>
oprt_status_t launch_rows(const In *x, Out *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  const int64_t packs = ceil_div(length, kPackSize<In>);
  if (packs < kWarpSize * kLongUnroll) {
    if constexpr (kHasStreamedTiers<Load, In, Out>) {
      if (streamable(x, length)) {
        if constexpr (sizeof(In) == 2) {  // the tile tier: half types, the only ones measured
          const int width = tile_width(packs);
          if (width > 0) return launch_rows_in_tiles(x, y, rows, width, stream);
        }
        return launch_short_rows_streamed(x, y, rows, length, stream);
      }
    }
    return launch_short_rows<Load>(x, y, rows, length, stream);
  }
  if (packs <= kWarpRowMaxPacks) {
    constexpr auto kernel = sum_rows_by_group<In, Out, kLongUnroll, kLongMinBlocks, int64_t, kWarpSize, Load>;
    constexpr int kWarps = kThreads / kWarpSize;
    int64_t wave = 0;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
    if (2 * rows >= wave * kWarps) {  // a warp per row keeps at least half the device's warps busy
      const unsigned blocks = grid_for(ceil_div(rows, kWarps), wave);
      kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, rows, length, kWarpSize);
      return check_launch("sum_rows_by_group (a warp per row)", blocks, kThreads, 0);
    }
  }
  return launch_long_rows<Load>(x, y, rows, length, stream);
}

// Parts to split each of `rows` rows of `length` In values into (1: none): none when the rows already
// keep half a wave of blocks busy; else enough parts to fill up to kSplitWaves waves, each part
// giving every thread at least kSplitMinPacks packs (a batch of kLongUnroll loads).
template <class In, class Load>
oprt_status_t row_splits(int64_t rows, int64_t length, int64_t *splits) {
  using C = ComputeType<In>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<sum_rows_by_block<In, C, kThreads, true, Load>, kThreads>(&wave)));
  const int64_t most = std::min(max_row_splits(rows, length), ceil_div(length, kPackSize<In>) / (kThreads * kSplitMinPacks));
  *splits = most <= 1 || rows * 2 > wave ? 1 : std::max<int64_t>(1, std::min(most, kSplitWaves * wave / rows));
  return OPRT_STATUS_SUCCESS;
}

// y[0] = the sum of `parts` float partials (16-byte aligned): sum_row_at_once in the smallest block of
// kAtOnceMinThreads to kAtOnceThreads threads whose kAtOnceMaxPacks packs each hold them all (up to 16384
// partials), else as a row by launch_rows.
template <class T>
oprt_status_t launch_partials_sum(const float *partials, T *y, int64_t parts, oprt_stream_t stream) {
  const int64_t packs = ceil_div(parts, kPackSize<float>);
  if (packs > int64_t{kAtOnceMaxPacks} * kAtOnceThreads) return launch_rows<PlainLoad>(partials, y, 1, parts, stream);
  const int threads = static_cast<int>(ceil_div(packs, int64_t{kAtOnceMaxPacks}));
  return with_group_width<kAtOnceMinThreads, kAtOnceThreads>(threads, [&](auto block_threads) {
    constexpr int kBlockThreads = decltype(block_threads)::value;
    sum_row_at_once<float, T, kBlockThreads, kAtOnceMaxPacks, PlainLoad>
        <<<1, kBlockThreads, 0, to_stream(stream)>>>(partials, y, static_cast<int>(parts));
    return check_launch("sum_row_at_once (a whole sum's partials)", 1, kBlockThreads, 0);
  });
}

// y[0] = the sum of x[0, length) in two kernels: the first's partial sums (at most `most_parts`) land in
// `partials`, then a second adds them. Where x is streamable (f32 and half types), the first is sum_slices
// where its blocks make at least kSliceMinWaves waves (notes: "Whole sums in slices"), else
// sum_rows_streamed_by_block over pieces of one slice (more where most_parts requires), a block each: a block
// that loads its slice at once and exits kept more loads in flight than any longer-lived block (notes: "Whole
// sums in pieces"); launch_partials_sum adds their sums. Else one wave of sum_whole_row_by_grid's blocks,
// whose sums a row kernel adds. Returns with *taken false, launching nothing, where that is fewer than
// two parts.
template <class Load, class T>
oprt_status_t launch_whole_row(const T *x, T *y, int64_t length, int64_t most_parts, void *partials, bool *taken,
                               oprt_stream_t stream) {
  using C = ComputeType<T>;
  C *sums = static_cast<C *>(partials);
  if constexpr (sizeof(T) <= 4) {
    if (streamable(x, length)) {
      int64_t wave = 0;
      OPRT_RETURN_IF_ERROR((full_wave_blocks<sum_slices<T, Load>, kSliceThreads>(&wave)));
      const int64_t slices = ceil_div(length, kSliceValues<T>);
      if (slices >= kSliceMinWaves * wave && slices <= std::min(most_parts, kMaxGridBlocks)) {
        *taken = true;
        const unsigned blocks = static_cast<unsigned>(slices);
        sum_slices<T, Load><<<blocks, kSliceThreads, 0, to_stream(stream)>>>(x, sums, length);
        OPRT_RETURN_IF_ERROR(check_launch("sum_slices (a large whole sum's first pass)", blocks, kSliceThreads, 0));
        return launch_partials_sum(static_cast<const C *>(sums), y, slices, stream);
      }
      constexpr int64_t kSlice = int64_t{kThreads} * kStreamUnroll * kPackSize<T>;
      const int64_t piece = ceil_div(ceil_div(length, kSlice), most_parts) * kSlice;
      const int64_t parts = ceil_div(length, piece);
      *taken = parts >= 2;
      if (!*taken) return OPRT_STATUS_SUCCESS;
      const unsigned blocks = block_per_task(parts);
      sum_rows_streamed_by_block<T, C, Load><<<blocks, kThreads, 0, to_stream(stream)>>>(x, sums, parts, piece, length);
      OPRT_RETURN_IF_ERROR(check_launch("sum_rows_streamed_by_block (pieces of a whole sum)", blocks, kThreads, 0));
      return launch_partials_sum(static_cast<const C *>(sums), y, parts, stream);
    }
  }
  constexpr auto kernel = sum_whole_row_by_grid<T, Load>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kWholeThreads>(&wave)));
  const int64_t parts = std::min({wave, most_parts, ceil_div(ceil_div(length, kPackSize<T>), int64_t{kWholeThreads})});
  *taken = parts >= 2;
  if (!*taken) return OPRT_STATUS_SUCCESS;
  const unsigned blocks = static_cast<unsigned>(parts);
  kernel<<<blocks, kWholeThreads, 0, to_stream(stream)>>>(x, sums, static_cast<int>(length));
  OPRT_RETURN_IF_ERROR(check_launch("sum_whole_row_by_grid", blocks, kWholeThreads, 0));
  return launch_rows<PlainLoad>(static_cast<const C *>(sums), y, 1, parts, stream);
}

#if !defined(__MACACC__)
// The blocks per row of the cluster tier for rows that split rows would cut into parts (0: the tier
// does not take them): kClusterBlocks where the device runs that cluster size and the rows give each of
// its threads a pack, else kPortableClusterBlocks; where the clusters give every SM at least
// kClusterFillBlocksPerSM blocks, the parts' lengths fit an int, and the device runs the kernel from
// sm_90 code.
template <class T, class Load>
oprt_status_t cluster_blocks_per_row(int64_t rows, int64_t length, int *blocks) {
  *blocks = 0;
  bool hopper = false, large = false;
  OPRT_RETURN_IF_ERROR((hopper_code_loaded<sum_rows_in_cluster<T, Load, kClusterBlocks>>(
      &hopper, "querying the architecture of reduce_sum's cluster kernel")));
  if (!hopper) return OPRT_STATUS_SUCCESS;
  OPRT_RETURN_IF_ERROR((large_clusters_run<sum_rows_in_cluster<T, Load, kClusterBlocks>, kClusterThreads>(
      &large, "querying reduce_sum's cluster size")));
  // kClusterBlocks only where every thread of it has a pack to load (else its blocks would idle).
  const bool long_enough = length >= int64_t{kClusterBlocks} * kClusterThreads * kPackSize<T>;
  const int per_row = large && long_enough ? kClusterBlocks : kPortableClusterBlocks;
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  const bool enough = rows * per_row >= int64_t{kClusterFillBlocksPerSM} * limits.sm_count &&
                      rows <= kMaxGridBlocks / per_row &&
                      length / per_row < std::numeric_limits<int32_t>::max() - kVectorBytes;
  if (enough) *blocks = per_row;
  return OPRT_STATUS_SUCCESS;
}

// A cluster of kBlocks blocks per row, each summing `chunk` elements of it.
template <class Load, int kBlocks, class T>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t length, oprt_stream_t stream) {
  const int64_t chunk = ceil_div(ceil_div(length, int64_t{kBlocks}), int64_t{kPackSize<T>}) * kPackSize<T>;
  const unsigned blocks = static_cast<unsigned>(rows * kBlocks);
  sum_rows_in_cluster<T, Load, kBlocks><<<blocks, kClusterThreads, 0, to_stream(stream)>>>(x, y, length, chunk);
  return check_launch("sum_rows_in_cluster", blocks, kClusterThreads, 0);
}
#endif

// y[r] = sum of row r of x ([rows, length], length >= 2); `partials` holds max_row_splits(rows, length)
// compute-type values.
template <class T>
oprt_status_t sum_rows(const T *x, T *y, int64_t rows, int64_t length, void *partials, oprt_stream_t stream) {
  using C = ComputeType<T>;
  return with_input_loads(rows * length * static_cast<int64_t>(sizeof(T)), [&](auto tag) {
    using Load = typename decltype(tag)::type;
    int64_t splits = 1;
    OPRT_RETURN_IF_ERROR((row_splits<T, Load>(rows, length, &splits)));
    if (splits == 1) return launch_rows<Load>(x, y, rows, length, stream);
    if (rows == 1 && length <= kWholeMaxLength) {
      bool taken = false;
      OPRT_RETURN_IF_ERROR(
          (launch_whole_row<Load>(x, y, length, max_row_splits(rows, length), partials, &taken, stream)));
      if (taken) return OPRT_STATUS_SUCCESS;
    }
#if !defined(__MACACC__)
    int per_row = 0;
    OPRT_RETURN_IF_ERROR((cluster_blocks_per_row<T, Load>(rows, length, &per_row)));
    if (per_row == kClusterBlocks) return launch_rows_in_cluster<Load, kClusterBlocks>(x, y, rows, length, stream);
    if (per_row == kPortableClusterBlocks) {
      return launch_rows_in_cluster<Load, kPortableClusterBlocks>(x, y, rows, length, stream);
    }
#endif
    C *sums = static_cast<C *>(partials);
    OPRT_RETURN_IF_ERROR((launch_row_blocks<kThreads, true, Load>(x, sums, rows, length, splits, stream)));
    return launch_rows<PlainLoad>(static_cast<const C *>(sums), y, rows, splits, stream);
  });
}

// How sum_columns covers `inner` columns: packs of columns when every pack is aligned, and a block
// width of the fewest lanes (up to a warp) that spans them.
struct ColumnTiling {
  bool packed;
  int width;
  int64_t tiles;  // blocks across inner
};

template <class In>
ColumnTiling column_tiling(const In *x, int64_t inner) {
  const bool packed = inner % kPackSize<In> == 0 && is_aligned(x, kVectorBytes);
  const int64_t columns_per_thread = packed ? kPackSize<In> : 1;
  const int width = group_width(ceil_div(inner, columns_per_thread));
  return {packed, width, ceil_div(inner, width * columns_per_thread)};
}

template <class Load, class In, class Out>
oprt_status_t launch_columns(const In *x, Out *y, int64_t outer, int64_t reduce, int64_t inner, int64_t splits,
                             oprt_stream_t stream) {
  const ColumnTiling tiling = column_tiling(x, inner);
  const int64_t tasks = outer * tiling.tiles * splits, chunk = ceil_div(reduce, splits);
  int64_t wave = 0;
  unsigned blocks = 0;
  if (tiling.packed) {
    constexpr auto kernel = sum_columns<In, Out, kPackSize<In>, Load>;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
    blocks = grid_for(tasks, wave);
    kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, outer, reduce, inner, splits, chunk, tiling.width);
  } else {
    constexpr auto kernel = sum_columns<In, Out, 1, Load>;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
    blocks = grid_for(tasks, wave);
    kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, outer, reduce, inner, splits, chunk, tiling.width);
  }
  return check_launch(tiling.packed ? "sum_columns (128-bit packs of columns)" : "sum_columns", blocks, kThreads, 0);
}

// y[o, i] = sum over r of x[o, r, i] (reduce >= 2, inner >= 2); `partials` holds
// max_column_splits(...) * outer * inner compute-type values.
template <class T>
oprt_status_t sum_columns_of(const T *x, T *y, int64_t outer, int64_t reduce, int64_t inner, void *partials,
                             oprt_stream_t stream) {
  using C = ComputeType<T>;
  return with_input_loads(outer * reduce * inner * static_cast<int64_t>(sizeof(T)), [&](auto tag) {
    using Load = typename decltype(tag)::type;
    int64_t wave = 0;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<sum_columns<T, C, 1, Load>, kThreads>(&wave)));
    const int64_t splits =
        choose_splits(outer * column_tiling(x, inner).tiles, wave, max_column_splits(outer, reduce, inner));
    if (splits == 1) return launch_columns<Load>(x, y, outer, reduce, inner, 1, stream);
    C *sums = static_cast<C *>(partials);
    OPRT_RETURN_IF_ERROR((launch_columns<Load>(x, sums, outer, reduce, inner, splits, stream)));
    return launch_columns<PlainLoad>(static_cast<const C *>(sums), y, outer, splits, inner, 1, stream);
  });
}

// Byte offsets of the workspace's parts, each aligned for 128-bit access:
// [x gathered as [kept..., reduced...]][the dense sums, when y is not contiguous][split partials].
struct WorkspaceLayout {
  size_t gathered, sums, partials, total;
};

inline int64_t reduced_count(const ReduceSumPlan &plan) {
  int64_t count = 1;
  for (int32_t d = 0; d < plan.x.ndim; ++d) {
    if (plan.reduced[d]) count *= plan.x.shape[d];
  }
  return count;
}

inline WorkspaceLayout workspace_layout(const ReduceSumPlan &plan) {
  const size_t item = oprt_dtype_size(plan.dtype);
  const size_t compute_item = plan.dtype == OPRT_DTYPE_F64 ? sizeof(double) : sizeof(float);
  WorkspaceLayout layout = {};
  int64_t max_splits = 1;  // the split partials take max_splits * y_numel values when max_splits > 1
  if (plan.dense) {
    if (plan.reduce >= 2) {
      max_splits = plan.inner == 1 ? max_row_splits(plan.outer, plan.reduce)
                                   : max_column_splits(plan.outer, plan.reduce, plan.inner);
    }
  } else {
    const int64_t length = reduced_count(plan);
    if (length >= 2) {
      layout.sums = align_up(static_cast<size_t>(plan.x_numel) * item);
      max_splits = max_row_splits(plan.y_numel, length);
    }
    const bool sums_in_workspace = length != 1 && !is_contiguous(plan.y);
    layout.partials = layout.sums + (sums_in_workspace ? align_up(static_cast<size_t>(plan.y_numel) * item) : 0);
  }
  layout.total = layout.partials + (max_splits > 1 ? static_cast<size_t>(max_splits * plan.y_numel) * compute_item : 0);
  return layout;
}

// Drops extent-1 dims: x and y then have the same dims when nothing is summed.
inline Layout squeezed(const Layout &layout) {
  Layout result = {};
  result.dtype = layout.dtype;
  for (int32_t d = 0; d < layout.ndim; ++d) {
    if (layout.shape[d] == 1) continue;
    result.shape[result.ndim] = layout.shape[d];
    result.strides[result.ndim++] = layout.strides[d];
  }
  return result;
}

template <class T>
oprt_status_t sum_dense(const ReduceSumPlan &plan, void *workspace, T *y, const T *x, oprt_stream_t stream) {
  const size_t y_bytes = static_cast<size_t>(plan.y_numel) * sizeof(T);
  if (plan.reduce == 0) return check(OPRT_GPU(MemsetAsync)(y, 0, y_bytes, to_stream(stream)), "zeroing y");
  if (plan.reduce == 1) {
    return check(OPRT_GPU(MemcpyAsync)(y, x, y_bytes, OPRT_GPU(MemcpyDeviceToDevice), to_stream(stream)), "copying x");
  }
  void *partials = aligned_workspace(workspace) + workspace_layout(plan).partials;
  if (plan.inner == 1) return sum_rows(x, y, plan.outer, plan.reduce, partials, stream);
  return sum_columns_of(x, y, plan.outer, plan.reduce, plan.inner, partials, stream);
}

template <class T>
oprt_status_t sum_strided(const ReduceSumPlan &plan, void *workspace, T *y, const T *x, oprt_stream_t stream) {
  const int64_t length = reduced_count(plan);
  if (length == 1) return launch_strided_copy(squeezed(plan.y), y, squeezed(plan.x), x, stream);
  const WorkspaceLayout parts = workspace_layout(plan);
  char *base = aligned_workspace(workspace);
  // x's dims reordered as [kept..., reduced...]: rows of `length` elements, one per element of y.
  Layout permuted = {};
  permuted.dtype = plan.dtype;
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t d = 0; d < plan.x.ndim; ++d) {
      if (plan.reduced[d] != (pass == 1)) continue;
      permuted.shape[permuted.ndim] = plan.x.shape[d];
      permuted.strides[permuted.ndim++] = plan.x.strides[d];
    }
  }
  return gather_run_scatter<T>(
      permuted, x, reinterpret_cast<T *>(base + parts.gathered), plan.y, y, reinterpret_cast<T *>(base + parts.sums),
      [&](const T *rows, T *sums) {
        if (length == 0) {
          return check(OPRT_GPU(MemsetAsync)(sums, 0, static_cast<size_t>(plan.y_numel) * sizeof(T), to_stream(stream)),
                       "zeroing y");
        }
        return sum_rows<T>(rows, sums, plan.y_numel, length, base + parts.partials, stream);
      },
      stream);
}

}  // namespace reduce_sum_detail

inline size_t reduce_sum_workspace_bytes(const ReduceSumPlan &plan) {
  return with_alignment_slack(reduce_sum_detail::workspace_layout(plan).total);
}

// y = x summed over the plan's axes (y_numel > 0; the workspace holds reduce_sum_workspace_bytes).
inline oprt_status_t launch_reduce_sum(const ReduceSumPlan &plan, void *workspace, void *y, const void *x,
                                       oprt_stream_t stream) {
  OPRT_RETURN_IF_TODO_LEFT();
  return dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *ys = static_cast<T *>(y);
    const T *xs = static_cast<const T *>(x);
    return plan.dense ? reduce_sum_detail::sum_dense(plan, workspace, ys, xs, stream)
                      : reduce_sum_detail::sum_strided(plan, workspace, ys, xs, stream);
  });
}

}  // namespace oprt::gpu

#endif  // OPS_REDUCE_SUM_NVIDIA_KERNEL_CUH_
