// softmax / log_softmax on the device, computed in f32 for half types (f64 for f64):
//   m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), y = exp(x - m) / s  or  (x - m) - log(s),
// which gives torch's special values as in the CPU reference: an all -inf row has m = -inf and
// x - m = NaN; a +inf makes s NaN; a NaN makes m NaN (or s, where the max skips NaN).
//
// This file is the dispatcher (softmax_rows picks a tier by row length and count) and the launchers.
// Each tier is one kernel in its own file; the math they share is row_math.cuh, the tuning constants
// tuning.cuh (measurements: bench/notes/softmax-tuning.md):
//   warp_rows.cuh            rows up to kRegisterCols: a warp (or less) per row, the row in registers
//   block_register_rows.cuh  rows of 1024 columns up to 8 KiB, or 32 KiB where the rows fill the SMs: a
//                            block per row, the row in registers
//   block_shared_rows.cuh    longer rows, enough of them to fill the SMs: a block per row in shared memory
//   cluster_rows.cuh         few or very long rows: a cluster of blocks per row (NVIDIA, sm_90 only)
//   split_rows.cuh           otherwise: rows cut into parts, a block per part, two kernels
//   columns.cuh              softmax over a non-last axis (inner > 1): 2-D tiles along inner x dim, dim split
//                            across blocks (two kernels) where the tiles fill the SMs poorly
// Non-contiguous x or y go through a dense buffer (gather_run_scatter): x is gathered into it (y
// itself when y is contiguous), softmax runs in place there, and the result is scattered into y.
//
// Files here include each other by bare name, so a copy of this directory compiles against its own files.
#ifndef OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
#define OPS_SOFTMAX_NVIDIA_KERNEL_CUH_

#include <algorithm>
#include <cstdint>

#include "block_register_rows.cuh"
#include "block_shared_rows.cuh"
#include "cluster_rows.cuh"
#include "columns.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/common/cuda_dialect/strided_copy.cuh"
#include "ops/runtime/todo.h"
#include "ops/softmax/softmax.h"
#include "row_math.cuh"
#include "split_rows.cuh"
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

// Rows a group of the warp tier holds at once (notes: "Short rows"): loads of several rows in flight
// before the first shuffle. On 32-lane warps one pack per lane is a row of up to 512 bytes, two up to 1 KiB.
template <class T>
constexpr int rows_per_group(int packs_per_lane) {
  if (sizeof(ComputeType<T>) == 8) return kGroupRowsOfDoubles;
  if (packs_per_lane == 1) return kGroupRowsOfOnePack;
  if (packs_per_lane == 2) return kGroupRowsOfTwoPacks;
  return 1;
}

// The launchers, one per tier (defined below the dispatcher).
template <class T, int P, int kPacks = 1>
oprt_status_t launch_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, RegisterShape shape, bool log,
                                       oprt_stream_t stream);
template <class T, int P, int kBlockThreads = kBlockRegisterMinThreads>
oprt_status_t launch_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols, bool log,
                                             oprt_stream_t stream);
template <class T, int P, int kBlockThreads>
oprt_status_t launch_rows_in_shared(const T *x, T *y, int64_t rows, int64_t cols, size_t row_bytes, bool log,
                                    int64_t sm_count, oprt_stream_t stream);
#if !defined(__MACACC__)
template <class T, int P>
oprt_status_t launch_rows_in_cluster(const T *x, T *y, int64_t rows, int64_t cols, int64_t chunk, bool log,
                                     oprt_stream_t stream);

// Whether the current device runs kKernel from code compiled for sm_90 or newer (PTX version >= 90):
// only such code has the cluster kernel's body. False for a build without sm_90 code (cuda_archs=80 or
// 89), for compute_80 PTX JIT-compiled on an H200 (its __CUDA_ARCH__ was 800), and on devices below
// sm_90 (they cannot load sm_90 code). Asked once per device and kernel.
template <auto kKernel>
Error query_hopper_code(int, bool *has) {
  OPRT_GPU(FuncAttributes) attributes = {};
  const Error error = OPRT_GPU(FuncGetAttributes)(&attributes, reinterpret_cast<const void *>(kKernel));
  *has = error == OPRT_GPU(Success) && attributes.ptxVersion >= 90;
  return error;
}

template <class T, int P>
oprt_status_t cluster_tier_available(bool *available) {
  return once_per_device<bool, query_hopper_code<softmax_rows_in_cluster<T, P, kThreads>>>(
      available, "querying the architecture of softmax's cluster kernel");
}
#endif
template <class T, int P>
oprt_status_t launch_rows_in_parts(const T *x, T *y, int64_t rows, int64_t cols, void *stats_buffer, bool log,
                                   oprt_stream_t stream);

template <class T, int V>
oprt_status_t launch_columns(const SoftmaxPlan &plan, const T *x, T *y, void *stats_buffer, oprt_stream_t stream);

// ---- The dispatcher ----

// Softmax of each row of x ([rows, cols], dense) into y, which is x or does not overlap it.
template <class T, int P>
oprt_status_t softmax_rows(const T *x, T *y, int64_t rows, int64_t cols, void *stats, bool log,
                           oprt_stream_t stream) {
  // block_register_rows.cuh: 1024 columns up to 8 KiB at any row count (longer rows below), f32 and half
  // types (f64 was not measured there).
  if constexpr (sizeof(T) <= 4 && P > 1) {
    if (cols >= kBlockRegisterMinCols &&
        cols * static_cast<int64_t>(sizeof(T)) <= kBlockRegisterFewRowsBytes) {
      return launch_rows_in_block_registers<T, P>(x, y, rows, cols, log, stream);
    }
  }
  // warp_rows.cuh: rows up to kRegisterCols, rows_per_group(packs per lane) rows per group.
  if (cols <= kRegisterCols) {
    return launch_rows_in_registers<T, P>(x, y, rows, cols, register_shape(ceil_div(cols, P)), log, stream);
  }
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  // Dynamic shared memory a block may take, next to its static slots (block_reduce's, the stats').
  const size_t usable = static_cast<size_t>(limits.max_shared_bytes_per_block - kStaticSharedBytes);
  const size_t row_bytes = static_cast<size_t>(cols) * sizeof(T);
  // block_register_rows.cuh: rows up to 32 KiB when they fill the SMs (fewer go to the cluster tier).
  if constexpr (sizeof(T) <= 4 && P > 1) {
    if (rows >= limits.sm_count && row_bytes <= static_cast<size_t>(kBlockRegisterMaxBytes)) {
      return launch_rows_in_block_registers<T, P>(x, y, rows, cols, log, stream);
    }
  }
  // block_shared_rows.cuh: a row fits in one block's shared memory and the rows fill the SMs.
  if (rows >= limits.sm_count && row_bytes <= usable) {
    return row_bytes <= kShortRowBytes
               ? launch_rows_in_shared<T, P, kShortRowThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count,
                                                                stream)
               : launch_rows_in_shared<T, P, kThreads>(x, y, rows, cols, row_bytes, log, limits.sm_count, stream);
  }
#if !defined(__MACACC__)
  // cluster_rows.cuh: a part of the row per block of a cluster fits in shared memory, the clusters fill
  // the SMs, and the loaded code is sm_90's. Parts are whole packs, so every part starts aligned.
  const int64_t chunk = ceil_div(ceil_div(cols, kClusterBlocks), P) * P;
  if (rows * kClusterBlocks >= limits.sm_count && static_cast<size_t>(chunk) * sizeof(T) <= usable) {
    bool available = false;
    OPRT_RETURN_IF_ERROR((cluster_tier_available<T, P>(&available)));
    if (available) return launch_rows_in_cluster<T, P>(x, y, rows, cols, chunk, log, stream);
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
// exceed the default.
template <auto kKernel>
oprt_status_t allow_shared_bytes(size_t bytes) {
  if (bytes + kStaticSharedBytes <= static_cast<size_t>(kDefaultSharedBytes)) return OPRT_STATUS_SUCCESS;
  return check(OPRT_GPU(FuncSetAttribute)(reinterpret_cast<const void *>(kKernel),
                                          OPRT_GPU(FuncAttributeMaxDynamicSharedMemorySize), static_cast<int>(bytes)),
               "raising softmax's shared memory limit");
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
  constexpr auto kernel = softmax_rows_in_block_registers<T, P, kBlockThreads>;
  int64_t wave = 0;
  OPRT_RETURN_IF_ERROR((full_wave_blocks<kernel, kBlockThreads>(&wave)));
  const unsigned blocks = static_cast<unsigned>(std::min(rows, kBlockRegisterWaves * wave));
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

}  // namespace softmax_detail
}  // namespace oprt::gpu

#endif  // OPS_SOFTMAX_NVIDIA_KERNEL_CUH_
