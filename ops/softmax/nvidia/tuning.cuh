// The tuning constants of softmax's tiers, one line each; the measurements behind them are in
// bench/notes/softmax-tuning.md.
#ifndef OPS_SOFTMAX_NVIDIA_TUNING_CUH_
#define OPS_SOFTMAX_NVIDIA_TUNING_CUH_

#include <cstddef>
#include <cstdint>

namespace oprt::gpu::softmax_detail {

constexpr int kThreads = 256;                        // block size of most kernels (notes: "Block sizes")
constexpr int kShortRowThreads = 128;                // shared-memory tier, rows up to kShortRowBytes (notes)
constexpr int kAsyncCopyThreads = 128;               // shared-memory tier by cp.async (notes: "Session 41")
template <class T>                                   // its shortest row: half 8 KiB, f32 16 KiB (notes: "Session 42")
constexpr size_t kAsyncCopyMinBytes = sizeof(T) == 2 ? 8 * 1024 : 16 * 1024;
constexpr size_t kShortRowBytes = 8 * 1024;          // (notes: "Block sizes")
constexpr int kClusterBlocks = 8;                    // blocks per row in the cluster tier: the portable maximum
constexpr int kLargeClusterBlocks = 16;              // and for half types where the device runs it (notes: "Session 9")
constexpr int kClusterThreads = 512;                 // cluster tier's blocks for f32 and f64 (notes: "Few long rows")
constexpr int kClusterHalfThreads = 256;             // and for half types: 64 values a thread (notes: "Few long rows")
constexpr int kClusterMinBlocks = 2;                 // cluster tier: blocks per SM it is compiled for (f32, f64: 64 registers)
constexpr int kClusterHalfMinBlocks = 3;             // and for half types (80 registers; notes: "Few long rows", session 8)
constexpr int kClusterPackedMinBlocks = 4;           // and for half types held packed (64 registers; notes: "Session 13")
constexpr int kGridThreads = 256;                    // grid tier's blocks: parts of 8192 (notes: "Few long rows")
constexpr int kGridMinBlocks = 4;                    // grid tier: blocks per SM it is compiled for (64 registers)
constexpr int kPartValues = 32;                      // grid and cluster tiers: f32 values per thread (f64: half)
constexpr int kUnroll = 4;                           // loads in flight per thread in the streaming loops
constexpr int kMaxThreadsPerSM = 2048;               // thread slots of a Hopper SM (notes: "kSharedMinBlocks")
constexpr int kRegistersPerSM = 64 * 1024;           // 32-bit registers of a Hopper SM (tile_shape's __launch_bounds__)
constexpr int64_t kMaxGridBlocks = 0x7fffffff;       // the grid's x limit
constexpr int kRegisterCols = 1024;                  // longest row held in a warp's registers
constexpr int kMaxElementsPerLane = 32;              // so kRegisterCols = kWarpSize * 32 on 32-wide warps
constexpr int kTileLaneValues = 16;                  // tile tier: values a lane holds (notes: "Short rows")
constexpr int kTileThreads = 128;                    // tile tier: block size, halved for rows of a whole warp (notes)
constexpr int kTileRegistersPerPack = 16;            // tile tier: register cap per 16-byte pack a lane holds (notes)
constexpr int64_t kTileEvictFirstMaxBytes = int64_t{16} << 20;  // tile tier: largest f32 x read evict-first (notes: "Session 22")
constexpr int kGroupRowsOfOnePack = 4;               // warp tier, rows of 1 pack per lane: 4 loads in flight (notes: "Warp tier rows")
constexpr int kGroupRowsOfTwoPacks = 2;              // warp tier, rows of 2 packs per lane: 4 loads in flight (notes: "Warp tier rows")
constexpr int kGroupRowsOfDoubles = 1;               // warp tier, f64: 2 rows spilled, 4 took 108 registers (notes: "Warp tier rows")
constexpr int kBlockRowValues = 16;                  // block-register tier: values per thread, 2 packs of half, 4 of f32 (notes)
constexpr int64_t kBlockRegisterMinCols = 1024;      // block-register tier's row range (notes)
constexpr int64_t kBlockRegisterMaxBytes = 32 * 1024;  // (notes: "Rows in a block's registers")
constexpr int64_t kBlockRegisterFewRowsBytes = 8 * 1024;  // longest row it takes where the rows do not fill the SMs
constexpr int64_t kBlockRegisterLongMinCols = 8192;  // shortest row past 8 KiB it takes: f32 4096 was slower (notes)
constexpr int kBlockRegisterMinThreads = 64;         // smallest block of the block-register tier
constexpr int64_t kBlockRegisterWaves = 32;          // its grid: a block per row up to 32 waves, then blocks loop (notes)
constexpr int64_t kMinPartLength = 2048;             // shortest part of a split row
constexpr int64_t kDefaultSharedBytes = 48 * 1024;   // above this a kernel must opt in
// columns.cuh (softmax over a non-last axis; notes: "Columns"):
constexpr int kColumnSegmentBytes = 128;             // bytes of a tile's row: lanes along inner * pack bytes
constexpr double kColumnSplitMinGain = 0.1;          // wave fill a split of dim must add (kernel.cuh, choose_column_splits)
constexpr int kColumnMinBlocks = 3;                  // blocks per SM the column kernels are compiled for (registers)
constexpr int64_t kMinColumnPartRows = 512;          // shortest part of a split dim
constexpr int64_t kMaxColumnSplits = 32;             // most parts of a split dim
constexpr int64_t kMaxColumnSplitBlocks = 4096;      // most (tile, part) blocks when splitting (workspace bound)
// cluster_columns.cuh (a non-last axis, x read once; notes: "Columns in a cluster"):
constexpr int kClusterColumnRowsPerThread = 16;      // packs a thread caches: 64 KiB of tile per block, 3 blocks per SM
constexpr int kClusterColumnCopyGroups = 4;          // cp.async groups per thread: the max starts on the first quarter
constexpr int64_t kMaxClusterColumnBlocks = 8;       // most blocks per tile (a cluster): the portable maximum
constexpr int64_t kStaticSharedBytes = 1024;         // block_reduce's slots, within the per-block limit

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_TUNING_CUH_
