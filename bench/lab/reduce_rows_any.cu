// Lab reduce_rows_any: rows of 5 to 15 KB that are not a slice's exact length (half 2560 to 7680 and f32
// 1280 to 3072 values: 320 to 960 packs), which took the 64- or 128-thread row blocks until session 33
// (row_block_threads), where rows of exactly 8 KB went 4-5% faster (H100, H200) as a block of 256 threads with
// every load in flight ("Rows of a quarter slice"). Asks whether a block per row that loads all of a row at once,
// masked to its length, does the same for any length: sum_row_at_once in rows (block r sums row r). Run by
// reduce_rows_any.py; every kernel is an instantiation of ops/reduce_sum/nvidia/kernel.cuh, no copy:
//   sum_rows_by_block<T, T, B, false, Load>     today's path, B = 64 or 128 threads a row
//   sum_row_at_once<T, T, B, K, Load>           B threads of K packs each, every load issued before the first add
//   sum_slices<T, Load, 256, 2, 8, T>           today's exact 8 KB rows, against which the masked form is checked
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;

#define ROW_BLOCK(T, B) \
  template __global__ void rs::sum_rows_by_block<T, T, B, false, EvictFirstLoad>(const T *, T *, int64_t, int64_t, int64_t);
#define AT_ONCE(T, B, K) template __global__ void rs::sum_row_at_once<T, T, B, K, EvictFirstLoad>(const T *, T *, int);

// K = ceil(packs / B) for 320 to 960 packs.
#define ROWS_ANY(T)                                                                                              \
  ROW_BLOCK(T, 64) ROW_BLOCK(T, 128) AT_ONCE(T, 128, 3) AT_ONCE(T, 128, 4) AT_ONCE(T, 128, 5) AT_ONCE(T, 128, 6) \
  AT_ONCE(T, 128, 8) AT_ONCE(T, 256, 2) AT_ONCE(T, 256, 3) AT_ONCE(T, 256, 4) AT_ONCE(T, 512, 1)               \
  AT_ONCE(T, 512, 2)                                                                                             \
  template __global__ void rs::sum_slices<T, EvictFirstLoad, 256, 2, 8, T>(const T *, T *, int64_t);
ROWS_ANY(__half)
ROWS_ANY(float)
