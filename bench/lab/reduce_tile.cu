// Lab reduce_tile: half-type row sums of 256 and 512 columns (16384x256, 8192x512). Session 10 found a "tile"
// kernel in the manner of softmax's tile tier ahead of the library's streamed group kernel and made it the
// library's tier (sum_rows_in_tiles: kTileThreads threads, groups of 8 or 16 lanes of kStreamUnroll packs); on the
// H100 torch.compile's persistent reduction (4096 one-warp blocks, a few rows per warp, a pack of each row per lane)
// led it by 1-3% until session 36 rebuilt it from this lab's fastest shapes (64-thread blocks, two rows a 16-lane
// group, a row's loads then its adds) and an exact form. The library's kernel here is that exact form.
// Candidates: tile shapes, every size a compile-time constant, no loop, the grid covering the rows exactly; a group
// of kLanes lanes takes kRows rows, each lane kPacks packs of every one of them, all loads issued before the first
// add, the rows' shuffles interleaved. bench/lab/reduce_tile.py times
// them interleaved with torch.compile and the library's own kernel (found by its mangled name). Session 34 found
// torch.compile's short-row kernels loading plainly (no eviction policy) where ours load evict-first: the library's
// kernel and torch.compile's shapes are also compiled with plain loads ("_plain").
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;
using oprt::gpu::kPackSize;
using oprt::gpu::Pack;
using oprt::gpu::shuffle_xor;

#define LIBRARY_KERNEL(T, W)                                                                           \
  template __global__ void rs::sum_rows_in_tiles<T, W, EvictFirstLoad, true>(const T *, T *, int64_t); \
  template __global__ void rs::sum_rows_in_tiles<T, W, PlainLoad, true>(const T *, T *, int64_t);
LIBRARY_KERNEL(__half, 8)
LIBRARY_KERNEL(__half, 16)
LIBRARY_KERNEL(__nv_bfloat16, 8)
LIBRARY_KERNEL(__nv_bfloat16, 16)

namespace lab {

// Rows [r0, r0 + kRows) of group g of block b, r0 = (b * groups_per_block + g) * kRows; lane l of the group
// loads packs l + k * kLanes (k < kPacks) of each. cols == kLanes * kPacks * P (a tile is whole).
template <class T, int kLanes, int kPacks, int kRows, int kBlock, class Load = EvictFirstLoad>
__device__ __forceinline__ void sum_tile(const T *x, T *y, int cols) {
  using Vec = Pack<T, kPackSize<T>>;
  constexpr int kGroups = kBlock / kLanes;
  const Load load{};
  const int lane = threadIdx.x % kLanes;
  const int64_t first_row = (static_cast<int64_t>(blockIdx.x) * kGroups + threadIdx.x / kLanes) * kRows;
  const Vec *base = reinterpret_cast<const Vec *>(x + first_row * cols) + lane;
  const int row_packs = cols / kPackSize<T>;
  Vec v[kRows][kPacks];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int k = 0; k < kPacks; ++k) v[r][k] = load(base + r * row_packs + k * kLanes);
  }
  float sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    sum[r] = 0.f;
#pragma unroll
    for (int k = 0; k < kPacks; ++k) sum[r] += rs::pack_sum<float>(v[r][k]);
  }
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) sum[r] += shuffle_xor(sum[r], offset, kLanes);
  }
  if (lane < kRows) {
    float mine = sum[0];
#pragma unroll
    for (int r = 1; r < kRows; ++r) mine = lane == r ? sum[r] : mine;
    y[first_row + lane] = oprt::gpu::convert<T>(mine);
  }
}

}  // namespace lab

// One candidate kernel, named tile_l<L>_k<K>_r<R>_b<B>_<DT><SUFFIX> (reduce_tile.py finds it by that name).
#define TILE_WITH(DT, T, L, K, R, B, LOAD, SUFFIX)                                                  \
  extern "C" __global__ void __launch_bounds__(B)                                                  \
      tile_l##L##_k##K##_r##R##_b##B##_##DT##SUFFIX(const T *x, T *y, int cols) {                  \
    lab::sum_tile<T, L, K, R, B, LOAD>(x, y, cols);                                                \
  }
#define TILE(DT, T, L, K, R, B) TILE_WITH(DT, T, L, K, R, B, EvictFirstLoad, )
#define TILE_PLAIN(DT, T, L, K, R, B) TILE_WITH(DT, T, L, K, R, B, PlainLoad, _plain)

// 256 half columns = 32 packs; 512 = 64 packs.
#define TILES(DT, T)                                                          \
  TILE(DT, T, 8, 4, 1, 64) TILE(DT, T, 8, 4, 1, 128) TILE(DT, T, 8, 4, 2, 64)   \
  TILE(DT, T, 16, 2, 2, 32) TILE(DT, T, 16, 2, 2, 64) TILE(DT, T, 32, 1, 4, 32) \
  TILE(DT, T, 32, 1, 4, 64) TILE(DT, T, 32, 1, 2, 32) TILE(DT, T, 4, 8, 1, 64)  \
  TILE(DT, T, 16, 4, 1, 64) TILE(DT, T, 16, 4, 1, 128) TILE(DT, T, 16, 4, 2, 64) \
  TILE(DT, T, 32, 2, 2, 32) TILE(DT, T, 32, 2, 2, 64) TILE(DT, T, 32, 2, 1, 32)  \
  TILE(DT, T, 8, 8, 1, 64) TILE(DT, T, 32, 2, 4, 32)

TILES(f16, __half)
TILES(bf16, __nv_bfloat16)
// torch.compile's launches (4096 one-warp blocks: 4 rows of 256 or 2 of 512 columns a warp), plain loads.
TILE_PLAIN(f16, __half, 32, 1, 4, 32) TILE_PLAIN(f16, __half, 32, 2, 2, 32)
TILE_PLAIN(bf16, __nv_bfloat16, 32, 1, 4, 32) TILE_PLAIN(bf16, __nv_bfloat16, 32, 2, 2, 32)
