// softmax / log_softmax on the device, computed in f32 for half types (f64 for f64):
//   m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), y = exp(x - m) / s  or  (x - m) - log(s),
// which gives torch's special values as in the CPU reference: an all -inf row has m = -inf and
// x - m = NaN; a +inf makes s NaN; a NaN makes m NaN (or s, where the max skips NaN).
//
// This file is the dispatcher (softmax_rows picks a tier by row length and count) and the launchers.
// Each tier is one kernel in its own file; the math they share is row_math.cuh, the tuning constants
// tuning.cuh (measurements: bench/notes/softmax-tuning.md):
//   tile_rows.cuh            f32 and half rows in whole packs up to kRegisterCols (half: below 1024
//                            columns): a tile of rows per block, a group of lanes per row, in registers
//   warp_rows.cuh            the other rows up to kRegisterCols (f64, rows not in whole 16-byte packs or
//                            unaligned): a warp (or less) per row, the row in registers
//   block_register_rows.cuh  rows of 1024 columns up to 8 KiB, or 32 KiB where the rows fill the SMs: a
//                            block per row, in registers
//   block_shared_rows.cuh    longer rows, enough of them to fill the SMs: a block per row in shared memory;
//                            on NVIDIA it also takes rows of kAsyncCopyMinBytes up to 32 KiB that fill the
//                            SMs, copied in by cp.async (first in the dispatch, before block_register_rows.cuh)
//   grid_rows.cuh            rows too few to fill the SMs: parts of a row in co-resident blocks'
//                            registers, a grid-wide sync between the row's stats and y (NVIDIA)
//   cluster_rows.cuh         up to 8 parts in registers (half types 16 where the device runs such clusters): a
//                            cluster of blocks per row (NVIDIA, sm_90 only)
//   split_rows.cuh           otherwise: rows cut into parts, a block per part, two kernels
//   cluster_columns.cuh      softmax over a non-last axis (inner > 1), 16-byte packs, a tile's dim rows in the
//                            shared memory of a cluster of blocks (NVIDIA, sm_90 only): x read once
//   columns.cuh              otherwise over a non-last axis: 2-D tiles along inner x dim, dim split across
//                            blocks (two kernels) where the tiles fill the SMs poorly
// Non-contiguous x or y go through a dense buffer (gather_run_scatter): x is gathered into it (y
// itself when y is contiguous), softmax runs in place there, and the result is scattered into y.
//
// Files here include each other by bare name, so a copy of this directory compiles against its own files.
#ifndef OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
#define OPS_SOFTMAX_NVIDIA_KERNEL_CUH_

#include <algorithm>
#include <cstdint>
#include <limits>

#include "block_register_rows.cuh"
#include "block_shared_rows.cuh"
#include "cluster_columns.cuh"
#include "cluster_rows.cuh"
#include "columns.cuh"
#include "grid_rows.cuh"
#include "ops/common/cuda_dialect/cluster_mailbox.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/common/cuda_dialect/strided_copy.cuh"
#include "ops/runtime/todo.h"
#include "ops/softmax/softmax.h"
#include "row_math.cuh"
#include "split_rows.cuh"
#include "tile_rows.cuh"
#include "tuning.cuh"
#include "warp_rows.cuh"

namespace oprt::gpu {
namespace softmax_detail {

// Lanes per row and packs per lane for a row of `packs` packs held in registers.
struct RegisterShape {
  int width;
  int packs_per_lane;
};

inline RegisterShape register_shape(int64_t packs) {
  if (packs <= kWarpSize) return {group_width(packs), 1};
  return {kWarpSize, static_cast<int>(ceil_div(packs, kWarpSize))};
}

// Rows a group of the warp tier holds at once (notes: "Warp tier rows per group"): loads of several rows
// in flight before the first shuffle. On 32-lane warps one pack per lane is a row of up to 512 bytes, two
// up to 1 KiB.
template <class T>
constexpr int rows_per_group(int packs_per_lane) {
  if (sizeof(ComputeType<T>) == 8) return kGroupRowsOfDoubles;
  if (packs_per_lane == 1) return kGroupRowsOfOnePack;
  if (packs_per_lane == 2) return kGroupRowsOfTwoPacks;
  return 1;
}

// The tile tier's shape for rows of up to `row_packs` packs (a power of two) of T (notes: "Short rows"):
// a lane holds kTileLaneValues values of its row (kTileLaneValues / P packs), more where a warp of such
// lanes would not hold the row, fewer where the row is shorter; blocks of kTileThreads threads, half
// that where a row takes a whole warp; kTileRegistersPerPack registers per pack a lane holds.
struct TileShape {
  int lanes;          // per row, a power of two <= kWarpSize
  int packs;          // per lane
  int block_threads;
  int min_blocks;     // per SM (__launch_bounds__)
};

template <class T>
constexpr TileShape tile_shape(int row_packs) {
  const int packs = std::max(row_packs / kWarpSize, std::min(kTileLaneValues / kPackSize<T>, row_packs));
  const int lanes = row_packs / packs;
  const int block_threads = lanes == kWarpSize ? kTileThreads / 2 : kTileThreads;
  const int registers = kTileRegistersPerPack * packs;
  return {lanes, packs, block_threads,
          std::min(kMaxThreadsPerSM / block_threads, kRegistersPerSM / (registers * block_threads))};
}

// The launchers, one per tier (defined below the dispatcher).
template <class T, int P, int kRowPacks = 1>
oprt_status_t launch_rows_in_tiles(const T *x, T *y, int64_t rows, int64_t cols, bool log, oprt_stream_t stream);
template <class T, int P, int kPacks = 1>
oprt_status_t launch_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, RegisterShape shape, bool log,
                                       oprt_stream_t stream);
template <class T, int P, int kBlockThreads = kBlockRegisterMinThreads>
oprt_status_t launch_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols, bool log,
                                             oprt_stream_t stream);
template <class T, int P, int kBlockThreads, bool kAsyncCopy = false>
oprt_status_t launch_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, size_t row_bytes, bool log,
                                    int64_t sm_count, oprt_stream_t stream);
#if !defined(__MACACC__)
template <class T, int P>
oprt_status_t launch_rows_across_grid(const T *x, T *y, int64_t rows, int64_t cols, int64_t parts, void *stats_buffer,
                                      bool log, oprt_stream_t stream);
template <class T, int P, int kBlocks>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t cols, int64_t chunk, bool log,
                                     int64_t sm_count, oprt_stream_t stream);

// Whether the current device takes cooperative launches (all blocks resident, grid-wide syncs).
inline Error query_cooperative_launch(int device, bool *supported) {
  int value = 0;
  const Error error = OPRT_GPU(DeviceGetAttribute)(&value, OPRT_GPU(DevAttrCooperativeLaunch), device);
  *supported = value != 0;
  return error;
}

// Blocks of the grid tier's kernel the current device holds at once: its cooperative launch limit
// (0 where the device has no cooperative launch).
template <class T, int P>
oprt_status_t grid_tier_resident_blocks(int64_t *blocks) {
  bool cooperative = false;
  OPRT_RETURN_IF_ERROR((once_per_device<bool, query_cooperative_launch>(
      &cooperative, "querying whether the device takes cooperative launches")));
  *blocks = 0;
  if (!cooperative) return OPRT_STATUS_SUCCESS;
  return full_wave_blocks<softmax_rows_across_grid<T, P>, kGridThreads>(blocks);
}

// Whether the cluster tier runs here with kBlocks blocks per row: the loaded code is sm_90's and, for more
// than the portable 8, the device runs that cluster size (asked of, and so allowed on, each kernel that
// launch_rows_in_cluster may launch).
template <class T, int P, int kBlocks>
oprt_status_t cluster_tier_available(bool *available) {
  OPRT_RETURN_IF_ERROR((hopper_code_loaded<softmax_rows_in_cluster<T, P, kBlocks>>(
      available, "querying the architecture of softmax's cluster kernel")));
  if (!*available || kBlocks <= kClusterBlocks) return OPRT_STATUS_SUCCESS;
  constexpr int kBlockThreads = kClusterBlockThreads<T>;
  using Query = oprt_status_t (*)(bool *, const char *);
  constexpr Query kQueries[] = {
      large_clusters_run<softmax_rows_in_cluster<T, P, kBlocks, false, false>, kBlockThreads>,
      large_clusters_run<softmax_rows_in_cluster<T, P, kBlocks, true, false>, kBlockThreads>,
      large_clusters_run<softmax_rows_in_cluster<T, P, kBlocks, false, true>, kBlockThreads>};
  for (const Query query : kQueries) {
    OPRT_RETURN_IF_ERROR(query(available, "querying whether the device runs softmax's large clusters"));
    if (!*available) return OPRT_STATUS_SUCCESS;
  }
  return OPRT_STATUS_SUCCESS;
}
#endif
template <class T, int P>
oprt_status_t launch_rows_in_parts(const T *x, T *y, int64_t rows, int64_t cols, void *stats_buffer, bool log,
                                   oprt_stream_t stream);

template <class T, int V>
oprt_status_t launch_columns(const SoftmaxPlan &plan, const T *x, T *y, void *stats_buffer, oprt_stream_t stream);
#if !defined(__MACACC__)
// The cluster column tier's launch: lanes along inner, tiles, blocks per tile (the cluster; 0 where the
// tier does not apply) and the rows each thread caches.
struct ClusterColumnShape {
  int width;
  int64_t tiles;
  int blocks;
  int rows_per_thread;
};

// Blocks per tile: the fewest whose shared memory holds the tile's dim rows (kClusterColumnRowsPerThread
// per thread, at most kMaxClusterColumnBlocks), or more, up to that, while the tiles leave some of the
// SMs' kColumnMinBlocks block slots idle and each block keeps a row per row of threads (4096x4096 over
// axis 0: 8 per tile; 1024x32768: 2); a power of two, as the kernel is compiled for each cluster size.
// A dim shorter than the rows of threads (blocks = 0) is left to columns.cuh, whose tiles widen instead.
inline ClusterColumnShape cluster_column_shape(const SoftmaxPlan &plan, int pack, int64_t sm_count) {
  static_assert((kMaxClusterColumnBlocks & (kMaxClusterColumnBlocks - 1)) == 0, "cluster sizes are powers of two");
  ClusterColumnShape shape = {};
  shape.width = std::min(group_width(ceil_div(plan.inner, pack)), kClusterColumnLanes);
  shape.tiles = plan.outer * ceil_div(plan.inner, static_cast<int64_t>(shape.width) * pack);
  const int64_t height = kThreads / shape.width;
  const int64_t fewest = ceil_div(plan.dim, height * kClusterColumnRowsPerThread);
  const bool fits = plan.dim >= height && fewest <= kMaxClusterColumnBlocks &&
                    shape.tiles * kMaxClusterColumnBlocks <= std::numeric_limits<int>::max();
  if (!fits) return shape;
  const int64_t filling = std::min({ceil_div(sm_count * kColumnMinBlocks, shape.tiles), kMaxClusterColumnBlocks,
                                    plan.dim / height});
  int64_t blocks = 1;
  while (blocks < std::max(fewest, filling)) blocks *= 2;
  shape.rows_per_thread = static_cast<int>(ceil_div(plan.dim, blocks * height));
  shape.blocks = static_cast<int>(blocks);
  return shape;
}

template <class T>
oprt_status_t cluster_columns_available(bool *available) {
  return hopper_code_loaded<softmax_columns_in_cluster<T, 1, false>>(
      available, "querying the architecture of softmax's cluster column kernel");
}

template <class T, int kBlocks = 1>
oprt_status_t launch_columns_in_cluster(const SoftmaxPlan &plan, const T *x, T *y, const ClusterColumnShape &shape,
                                        oprt_stream_t stream);
#endif

// ---- The dispatcher ----

// Softmax of each row of x ([rows, cols], dense) into y, which is x or does not overlap it.
template <class T, int P>
oprt_status_t softmax_rows(const T *x, T *y, int64_t rows, int64_t cols, void *stats, bool log,
                           oprt_stream_t stream) {
  // tile_rows.cuh: f32 and half rows in whole packs up to kRegisterCols; half rows of
  // kBlockRegisterMinCols and more tie with the block-register tier and stay there.
  if constexpr (sizeof(T) <= 4 && P > 1) {
    if (cols <= kRegisterCols && (sizeof(T) == 4 || cols < kBlockRegisterMinCols)) {
      return launch_rows_in_tiles<T, P>(x, y, rows, cols, log, stream);
    }
  }
  // warp_rows.cuh: the other rows up to kRegisterCols (f64; rows not in whole, aligned packs), rows_per_group
  // (packs per lane) rows per group.
  if constexpr (sizeof(T) == 8 || P == 1) {
    if (cols <= kRegisterCols) {
      return launch_rows_in_registers<T, P>(x, y, rows, cols, register_shape(ceil_div(cols, P)), log, stream);
    }
  }
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  // Dynamic shared memory a block may take, next to its static slots (block_reduce's, the stats').
  const size_t usable = static_cast<size_t>(limits.max_shared_bytes_per_block - kStaticSharedBytes);
  const size_t row_bytes = static_cast<size_t>(cols) * sizeof(T);
#if !defined(__MACACC__)
  // block_shared_rows.cuh by cp.async: f32 and half rows of kAsyncCopyMinBytes up to 32 KiB that fill the SMs.
  // The copies take no registers, so a block is small and an SM keeps more rows in flight than the
  // block-register tier (notes: "Session 41", "Session 42").
  if constexpr (sizeof(T) <= 4 && P > 1) {
    if (rows >= limits.sm_count && row_bytes >= kAsyncCopyMinBytes<T> &&
        row_bytes <= static_cast<size_t>(kBlockRegisterMaxBytes) && row_bytes <= usable) {
      return launch_rows_in_shared<T, P, kAsyncCopyThreads, true>(x, y, rows, cols, row_bytes, log, limits.sm_count,
                                                                  stream);
    }
  }
#endif
  // block_register_rows.cuh: 1024 columns up to 8 KiB at any row count, and rows of kBlockRegisterLongMinCols
  // columns up to 32 KiB when they fill the SMs (fewer go to the cluster tier); f32 and half types (f64 was
  // not measured there). On NVIDIA, the cp.async tier above takes most of the rows that fill the SMs.
  if constexpr (sizeof(T) <= 4 && P > 1) {
    const bool short_row =
        cols >= kBlockRegisterMinCols && row_bytes <= static_cast<size_t>(kBlockRegisterFewRowsBytes);
    const bool long_row = rows >= limits.sm_count && cols >= kBlockRegisterLongMinCols &&
                          row_bytes <= static_cast<size_t>(kBlockRegisterMaxBytes);
    if (short_row || long_row) return launch_rows_in_block_registers<T, P>(x, y, rows, cols, log, stream);
  }
  // block_shared_rows.cuh: a row fits in one block's shared memory and the rows fill the SMs.
  if (rows >= limits.sm_count && row_bytes <= usable) {
    return row_bytes <= kShortRowBytes
               ? launch_rows_in_shared<T, P, kShortRowThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count,
                                                                stream)
               : launch_rows_in_shared<T, P, kThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count, stream);
  }
#if !defined(__MACACC__)
  // cluster_rows.cuh with clusters of kLargeClusterBlocks: half rows longer than kClusterBlocks parts and up
  // to kLargeClusterBlocks, enough of them to fill the SMs (16 x 262144; fewer take the grid tier).
  if constexpr (sizeof(T) == 2) {
    const int64_t large_chunk = ceil_div(ceil_div(cols, kLargeClusterBlocks), P) * P;
    if (cols > kClusterBlocks * kPartLength<T, kClusterThreads> && large_chunk <= kPartLength<T, kClusterThreads> &&
        rows * kLargeClusterBlocks >= limits.sm_count) {
      bool available = false;
      OPRT_RETURN_IF_ERROR((cluster_tier_available<T, P, kLargeClusterBlocks>(&available)));
      if (available) {
        return launch_rows_in_cluster<T, P, kLargeClusterBlocks>(x, y, rows, cols, large_chunk, log, limits.sm_count,
                                                                 stream);
      }
    }
  }
  // grid_rows.cuh: a block per part of kPartLength values (whole packs, so every part starts aligned),
  // where the device holds all the rows' blocks at once.
  int64_t resident = 0;
  OPRT_RETURN_IF_ERROR((grid_tier_resident_blocks<T, P>(&resident)));
  const int64_t parts = ceil_div(cols, kPartLength<T, kGridThreads>);
  if (rows * parts <= resident) return launch_rows_across_grid<T, P>(x, y, rows, cols, parts, stats, log, stream);
  // cluster_rows.cuh: a part of the row per block of a cluster fits in its registers, the clusters
  // fill the SMs, and the loaded code is sm_90's. Parts are whole packs, so every part starts aligned.
  const int64_t chunk = ceil_div(ceil_div(cols, kClusterBlocks), P) * P;
  if (rows * kClusterBlocks >= limits.sm_count && chunk <= kPartLength<T, kClusterThreads>) {
    bool available = false;
    OPRT_RETURN_IF_ERROR((cluster_tier_available<T, P, kClusterBlocks>(&available)));
    if (available) {
      return launch_rows_in_cluster<T, P, kClusterBlocks>(x, y, rows, cols, chunk, log, limits.sm_count, stream);
    }
  }
#endif
  // split_rows.cuh: everything else.
  return launch_rows_in_parts<T, P>(x, y, rows, cols, stats, log, stream);
}

// Softmax of dense x into y: rows along the last axis (inner == 1) by softmax_rows, else columns.cuh.
template <class T>
oprt_status_t softmax_dense(const SoftmaxPlan &plan, const T *x, T *y, void *stats, oprt_stream_t stream) {
  if (plan.inner == 1) {
    // 128-bit packs when every row starts aligned.
    constexpr int P = kPackSize<T>;
    const bool packed = plan.dim % P == 0 && is_aligned(x, kVectorBytes) && is_aligned(y, kVectorBytes);
    return packed ? softmax_rows<T, P>(x, y, plan.outer, plan.dim, stats, plan.log, stream)
                  : softmax_rows<T, 1>(x, y, plan.outer, plan.dim, stats, plan.log, stream);
  }
  // columns.cuh: a pack of columns per lane when every row of x and y starts aligned.
  constexpr int P = kPackSize<T>;
  const bool packed = plan.inner % P == 0 && is_aligned(x, kVectorBytes) && is_aligned(y, kVectorBytes);
#if !defined(__MACACC__)
  // cluster_columns.cuh: 16-byte packs of f32 or half types (f64 was not measured), a tile's dim rows fit
  // a cluster's shared memory (cluster_column_shape), and the loaded code is sm_90's.
  if constexpr (sizeof(ComputeType<T>) == 4) {
    if (packed) {
      DeviceLimits limits = {};
      OPRT_RETURN_IF_ERROR(device_limits(&limits));
      const ClusterColumnShape shape = cluster_column_shape(plan, P, limits.sm_count);
      bool available = false;
      if (shape.blocks > 0) OPRT_RETURN_IF_ERROR(cluster_columns_available<T>(&available));
      if (available) return launch_columns_in_cluster<T>(plan, x, y, shape, stream);
    }
  }
#endif
  return packed ? launch_columns<T, P>(plan, x, y, stats, stream) : launch_columns<T, 1>(plan, x, y, stats, stream);
}

inline int64_t max_row_splits(int64_t cols) { return std::max<int64_t>(1, cols / kMinPartLength); }

// The most parts columns.cuh cuts dim into (1: not split), from the plan alone so that the workspace
// can hold their stats: parts of kMinColumnPartRows or more, at most kMaxColumnSplitBlocks blocks over
// the tiles (of kColumnSegmentBytes, the widest a tile gets).
inline int64_t max_column_splits(const SoftmaxPlan &plan) {
  const int64_t tile_columns = kColumnSegmentBytes / static_cast<int64_t>(oprt_dtype_size(plan.dtype));
  const int64_t tiles = plan.outer * ceil_div(plan.inner, tile_columns);
  return std::max<int64_t>(
      1, std::min({kMaxColumnSplits, plan.dim / kMinColumnPartRows, kMaxColumnSplitBlocks / std::max<int64_t>(1, tiles)}));
}

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
  } else if (plan.inner > 1 && max_column_splits(plan) > 1) {
    layout.total += static_cast<size_t>(plan.outer * plan.inner * max_column_splits(plan)) * 2 * compute_item;
  }
  return layout;
}

}  // namespace softmax_detail

inline size_t softmax_workspace_bytes(const SoftmaxPlan &plan) {
  return with_alignment_slack(softmax_detail::workspace_layout(plan).total);
}

// y = softmax or log_softmax of x over the plan's axis (non-empty; workspace of softmax_workspace_bytes).
inline oprt_status_t launch_softmax(const SoftmaxPlan &plan, void *workspace, void *y, const void *x,
                                    oprt_stream_t stream) {
  OPRT_RETURN_IF_TODO_LEFT();
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

// ---- The launchers ----

namespace softmax_detail {

// Raises kKernel's dynamic shared memory limit to `bytes` where that and the kernel's static slots
// (`static_bytes`) exceed the default.
template <auto kKernel>
oprt_status_t allow_shared_bytes(size_t bytes, size_t static_bytes = kStaticSharedBytes) {
  if (bytes + static_bytes <= static_cast<size_t>(kDefaultSharedBytes)) return OPRT_STATUS_SUCCESS;
  return check(OPRT_GPU(FuncSetAttribute)(reinterpret_cast<const void *>(kKernel),
                                          OPRT_GPU(FuncAttributeMaxDynamicSharedMemorySize), static_cast<int>(bytes)),
               "raising softmax's shared memory limit");
}

// Instantiates the tile kernel for the smallest power of two kRowPacks >= the row's packs, of shape
// tile_shape<T>(kRowPacks), softmax or log_softmax; a block per tile. Full tiles of rows of exactly
// kRowPacks packs take the unmasked kernel (kWhole; lab softmax_short, notes: "Session 15"). f32 inputs up to
// kTileEvictFirstMaxBytes are read with evict-first loads (notes: "Session 20", "Session 22").
template <class T, int P, int kRowPacks>
oprt_status_t launch_rows_in_tiles(const T *x, T *y, int64_t rows, int64_t cols, bool log, oprt_stream_t stream) {
  if constexpr (kRowPacks * P < kRegisterCols) {
    if (cols > kRowPacks * P) return launch_rows_in_tiles<T, P, 2 * kRowPacks>(x, y, rows, cols, log, stream);
  }
  constexpr TileShape shape = tile_shape<T>(kRowPacks);
  constexpr int kBlockThreads = shape.block_threads;
  static_assert(shape.lanes * shape.packs == kRowPacks, "a tile's row is kRowPacks packs");
  constexpr int kRowsPerTile = kBlockThreads / shape.lanes;
  const bool whole = cols == kRowPacks * P && rows % kRowsPerTile == 0;
  const auto pick = [&](auto load_tag) {
    using Load = typename decltype(load_tag)::type;
    constexpr int kLanes = shape.lanes, kPacks = shape.packs, kMin = shape.min_blocks;
    return log ? (whole ? softmax_rows_in_tiles<T, P, kLanes, kPacks, kBlockThreads, kMin, true, true, Load>
                        : softmax_rows_in_tiles<T, P, kLanes, kPacks, kBlockThreads, kMin, true, false, Load>)
               : (whole ? softmax_rows_in_tiles<T, P, kLanes, kPacks, kBlockThreads, kMin, false, true, Load>
                        : softmax_rows_in_tiles<T, P, kLanes, kPacks, kBlockThreads, kMin, false, false, Load>);
  };
  // f32 only: evict-first loads sped f32 tile rows up through run_ops and slowed half rows (notes: "Session 22").
  const auto kernel = [&] {
    if constexpr (sizeof(T) == 4) {
      const int64_t bytes = rows * cols * static_cast<int64_t>(sizeof(T));
      if (bytes <= kTileEvictFirstMaxBytes) return pick(TypeTag<EvictFirstLoad>{});
    }
    return pick(TypeTag<PlainLoad>{});
  }();
  // A block per tile: along x up to the grid's limit, then along y.
  const int64_t tiles = ceil_div(rows, kRowsPerTile);
  const dim3 blocks(static_cast<unsigned>(std::min(tiles, kMaxGridBlocks)),
                    static_cast<unsigned>(ceil_div(tiles, kMaxGridBlocks)));
  kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, rows, cols);
  return check_launch("softmax_rows_in_tiles", blocks, kBlockThreads, 0);
}

// Instantiates the register kernel for the smallest supported pack count >= shape.packs_per_lane:
// every count for 128-bit packs, powers of two for single elements (misaligned or odd rows); each
// kernel holds rows_per_group(kPacks) rows per group.
template <class T, int P, int kPacks>
oprt_status_t launch_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, RegisterShape shape, bool log,
                                       oprt_stream_t stream) {
  constexpr int kMaxPacks = kMaxElementsPerLane / P;
  if constexpr (kPacks < kMaxPacks) {
    if (shape.packs_per_lane > kPacks) {
      constexpr int kNext = P == 1 ? 2 * kPacks : kPacks + 1;
      return launch_rows_in_registers<T, P, kNext>(x, y, rows, cols, shape, log, stream);
    }
  }
  constexpr int kRows = rows_per_group<T>(kPacks);
  constexpr auto kernel = softmax_rows_in_registers<T, P, kPacks, kRows>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
  const unsigned blocks = grid_for(ceil_div(rows, kRows * (kThreads / shape.width)), wave);
  kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, rows, cols, shape.width, log);
  return check_launch("softmax_rows_in_registers", blocks, kThreads, 0);
}

// A block per row with kBlockRowPacks<P> packs per thread: the fewest threads (a power of two, at least
// kBlockRegisterMinThreads) that hold the row.
template <class T, int P, int kBlockThreads>
oprt_status_t launch_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols, bool log,
                                             oprt_stream_t stream) {
  if constexpr (kBlockThreads * kBlockRowValues * sizeof(T) < kBlockRegisterMaxBytes) {
    if (ceil_div(cols / P, kBlockRowPacks<P>) > kBlockThreads) {
      return launch_rows_in_block_registers<T, P, 2 * kBlockThreads>(x, y, rows, cols, log, stream);
    }
  }
  constexpr auto softmax_kernel = softmax_rows_in_block_registers<T, P, kBlockThreads, false>;
  constexpr auto log_kernel = softmax_rows_in_block_registers<T, P, kBlockThreads, true>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((log ? full_wave_blocks<log_kernel, kBlockThreads>(&wave)
                            : full_wave_blocks<softmax_kernel, kBlockThreads>(&wave)));
  const unsigned blocks = static_cast<unsigned>(std::min(rows, kBlockRegisterWaves * wave));
  if (log) {
    log_kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, rows, cols);
  } else {
    softmax_kernel<<<blocks, kBlockThreads, 0, to_stream(stream)>>>(x, y, rows, cols);
  }
  return check_launch("softmax_rows_in_block_registers", blocks, kBlockThreads, 0);
}

template <class T, int P, int kBlockThreads, bool kAsyncCopy>
oprt_status_t launch_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, size_t row_bytes, bool log,
                                    int64_t sm_count, oprt_stream_t stream) {
  constexpr auto kernel = softmax_rows_in_shared<T, P, kBlockThreads, kAsyncCopy>;
  OPRT_RETURN_IF_ERROR(allow_shared_bytes<kernel>(row_bytes));
  // Blocks past what the SMs hold just queue; a cap keeps the grid within limits for any row count.
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(rows, sm_count * 64));
  kernel<<<blocks, kBlockThreads, row_bytes, to_stream(stream)>>>(x, y, rows, cols, log);
  return check_launch("softmax_rows_in_shared", blocks, kBlockThreads, row_bytes);
}

#if !defined(__MACACC__)
// rows * parts blocks, all resident (the caller checked grid_tier_resident_blocks), a cooperative launch.
template <class T, int P>
oprt_status_t launch_rows_across_grid(const T *x, T *y, int64_t rows, int64_t cols, int64_t parts, void *stats_buffer,
                                      bool log, oprt_stream_t stream) {
  using C = ComputeType<T>;
  static_assert(kPartLength<T, kGridThreads> >= 2 * kMinPartLength,
                "the workspace's part stats (max_row_splits: cols / kMinPartLength) hold the grid tier's parts");
  const auto kernel = log ? softmax_rows_across_grid<T, P, true> : softmax_rows_across_grid<T, P, false>;
  OPRT_GPU(LaunchAttribute) cooperative = {};
  cooperative.id = OPRT_GPU(LaunchAttributeCooperative);
  cooperative.val.cooperative = 1;
  OPRT_GPU(LaunchConfig_t) config = {};
  config.gridDim = dim3(static_cast<unsigned>(rows * parts));
  config.blockDim = dim3(kGridThreads);
  config.stream = to_stream(stream);
  config.attrs = &cooperative;
  config.numAttrs = 1;
  auto *stats = static_cast<RowStats<C> *>(stats_buffer);
  OPRT_RETURN_IF_ERROR(
      check(OPRT_GPU(LaunchKernelEx)(&config, kernel, x, y, stats, cols, parts), "softmax_rows_across_grid"));
  return check_launch("softmax_rows_across_grid", config.gridDim, config.blockDim, 0);
}

// A cluster of kBlocks blocks per row (the kernel's compiled-in cluster size), each holding `chunk`
// elements of it; softmax takes the unmasked kernel where every part is whole (128 x 131072, 16 x 262144),
// with half-type parts held packed (PackedPart, 4 blocks per SM) where the 8-block clusters make more than a
// wave of the 3-per-SM kernel (128 x 131072; 16 x 262144 is one wave, where occupancy buys nothing and the
// second exponential costs; notes, "Session 13" and "Session 15").
// log_softmax keeps the masked one: its unmasked bf16 kernel spills at 80 registers and ran slower (notes,
// "Session 9").
template <class T, int P, int kBlocks>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t cols, int64_t chunk, bool log,
                                     int64_t sm_count, oprt_stream_t stream) {
  const bool whole = !log && chunk == kPartLength<T, kClusterThreads> && cols == kBlocks * chunk;
  constexpr bool kPackable = sizeof(T) == 2 && P * sizeof(T) == 16 && kBlocks == kClusterBlocks;
  const bool packed = kPackable && whole && rows * kBlocks > sm_count * kClusterBlocksPerSM<T, false>;
  const auto kernel = packed  ? softmax_rows_in_cluster<T, P, kBlocks, false, true, kPackable>
                      : whole ? softmax_rows_in_cluster<T, P, kBlocks, false, true>
                              : (log ? softmax_rows_in_cluster<T, P, kBlocks, true, false>
                                     : softmax_rows_in_cluster<T, P, kBlocks, false, false>);
  const unsigned blocks = static_cast<unsigned>(rows * kBlocks);
  kernel<<<blocks, kClusterBlockThreads<T>, 0, to_stream(stream)>>>(x, y, cols, chunk);
  return check_launch("softmax_rows_in_cluster", blocks, kClusterBlockThreads<T>, 0);
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

// Parts to cut dim into (1: one block per tile over all of dim): of 1 .. max_splits, the count whose
// tiles * splits blocks fill their last wave best, a larger count only where it fills it better by
// kColumnSplitMinGain (4096x4096 f16 over axis 0, 64 tiles: 6 parts, 384 blocks of a 396-block wave).
inline int64_t choose_column_splits(int64_t tiles, int64_t wave, int64_t max_splits) {
  const auto fill = [&](int64_t splits) {
    const int64_t blocks = tiles * splits;
    return static_cast<double>(blocks) / static_cast<double>(ceil_div(blocks, wave) * wave);
  };
  int64_t best = 1;
  for (int64_t splits = 2; splits <= max_splits; ++splits) {
    if (fill(splits) > fill(best) + kColumnSplitMinGain) best = splits;
  }
  return best;
}

// Softmax over a non-last axis (columns.cuh): tiles of `width` lanes of V columns each, one block per
// tile over all of dim, or dim cut into parts (choose_column_splits) and two kernels, through the
// workspace.
template <class T, int V>
oprt_status_t launch_columns(const SoftmaxPlan &plan, const T *x, T *y, void *stats_buffer, oprt_stream_t stream) {
  using C = ComputeType<T>;
  const int64_t lanes = std::max<int64_t>(1, kColumnSegmentBytes / static_cast<int64_t>(V * sizeof(T)));
  int width = std::min(group_width(ceil_div(plan.inner, V)), group_width(lanes));
  // A short dim: wider tiles (up to a warp of lanes) rather than rows of threads with no rows of x.
  while (width < kWarpSize && static_cast<int64_t>(width) * V < plan.inner && kThreads / width > plan.dim) width *= 2;
  const int64_t tiles = plan.outer * ceil_div(plan.inner, static_cast<int64_t>(width) * V);
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<softmax_column_part_stats<T, V>, kThreads>(&wave)));
  int64_t splits = choose_column_splits(tiles, wave, max_column_splits(plan));
  if (splits <= 1) {
    constexpr auto kernel = softmax_columns<T, V>;
    OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kThreads>(&wave)));
    const unsigned blocks = grid_for(tiles, wave);
    kernel<<<blocks, kThreads, 0, to_stream(stream)>>>(x, y, plan.outer, plan.dim, plan.inner, width, plan.log);
    return check_launch("softmax_columns", blocks, kThreads, 0);
  }
  const int64_t chunk = ceil_div(plan.dim, splits);
  splits = ceil_div(plan.dim, chunk);
  constexpr auto stats_kernel = softmax_column_part_stats<T, V>;
  constexpr auto output_kernel = softmax_column_part_output<T, V>;
  auto *stats = static_cast<RowStats<C> *>(stats_buffer);
  int64_t stats_wave = 0, output_wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<stats_kernel, kThreads>(&stats_wave)));
  OPRT_RETURN_IF_ERROR((full_wave_blocks<output_kernel, kThreads>(&output_wave)));
  const unsigned stats_blocks = grid_for(tiles * splits, stats_wave);
  stats_kernel<<<stats_blocks, kThreads, 0, to_stream(stream)>>>(x, stats, plan.outer, plan.dim, plan.inner, width,
                                                                  splits, chunk);
  OPRT_RETURN_IF_ERROR(check_launch("softmax_column_part_stats", stats_blocks, kThreads, 0));
  const unsigned output_blocks = grid_for(tiles * splits, output_wave);
  output_kernel<<<output_blocks, kThreads, 0, to_stream(stream)>>>(x, y, stats, plan.outer, plan.dim, plan.inner,
                                                                    width, splits, chunk, plan.log);
  return check_launch("softmax_column_part_output", output_blocks, kThreads, 0);
}

#if !defined(__MACACC__)
// A cluster of shape.blocks blocks per tile (kBlocks, the first power of two from 1 that is not fewer),
// each caching rows_per_thread packs per thread.
template <class T, int kBlocks>
oprt_status_t launch_columns_in_cluster(const SoftmaxPlan &plan, const T *x, T *y, const ClusterColumnShape &shape,
                                        oprt_stream_t stream) {
  if constexpr (kBlocks < kMaxClusterColumnBlocks) {
    if (shape.blocks > kBlocks) return launch_columns_in_cluster<T, 2 * kBlocks>(plan, x, y, shape, stream);
  }
  constexpr auto softmax_kernel = softmax_columns_in_cluster<T, kBlocks, false>;
  constexpr auto log_kernel = softmax_columns_in_cluster<T, kBlocks, true>;
  const size_t shared = static_cast<size_t>(shape.rows_per_thread) * kThreads * kVectorBytes;
  constexpr size_t kStatic = kClusterColumnStaticBytes<T, kBlocks>;
  OPRT_RETURN_IF_ERROR(plan.log ? allow_shared_bytes<log_kernel>(shared, kStatic)
                                : allow_shared_bytes<softmax_kernel>(shared, kStatic));
  const unsigned blocks = static_cast<unsigned>(shape.tiles * kBlocks), tiles = static_cast<unsigned>(shape.tiles / plan.outer);
  const auto kernel = plan.log ? log_kernel : softmax_kernel;
  kernel<<<blocks, kThreads, shared, to_stream(stream)>>>(x, y, plan.dim, plan.inner, tiles, shape.width,
                                                          shape.rows_per_thread);
  return check_launch("softmax_columns_in_cluster", blocks, kThreads, shared);
}
#endif

}  // namespace softmax_detail
}  // namespace oprt::gpu

#endif  // OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
