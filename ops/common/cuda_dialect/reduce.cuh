// Warp- and block-level reductions in the compute type, for reduce_sum and softmax, and the host
// helpers both use to size their launches.
// Results are deterministic: a butterfly of shuffles leaves the same bits in every lane (the ops are
// commutative), and a block combines its warps' results in warp order.
#ifndef OPS_COMMON_CUDA_DIALECT_REDUCE_CUH_
#define OPS_COMMON_CUDA_DIALECT_REDUCE_CUH_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/runtime_api.h"

namespace oprt::gpu {

struct SumOp {
  template <class C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    return a + b;
  }
};

// Maximum that propagates NaN, as torch's max does (fmax would drop it).
struct MaxOp {
  template <class C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    return (a > b || a != a) ? a : b;
  }
};

// __shfl_xor_sync for any trivially copyable value (e.g. a struct of two floats), moved 32 bits at a time.
template <class V>
__device__ __forceinline__ V shuffle_xor(V value, int lane_mask, int width) {
  if constexpr (std::is_arithmetic_v<V>) {
    return __shfl_xor_sync(kFullLaneMask, value, lane_mask, width);
  } else {
    static_assert(sizeof(V) % sizeof(int) == 0, "shuffled values must be whole 32-bit words");
    int words[sizeof(V) / sizeof(int)];
    memcpy(words, &value, sizeof(V));
#pragma unroll
    for (int &word : words) word = __shfl_xor_sync(kFullLaneMask, word, lane_mask, width);
    memcpy(&value, words, sizeof(V));
    return value;
  }
}

// Reduces `value` over each aligned group of `width` lanes (a power of two <= kWarpSize); every lane
// of a group gets the group's result. All lanes of the warp must call it.
template <class V, class Op>
__device__ __forceinline__ V warp_reduce(V value, Op op, int width = kWarpSize) {
  for (int offset = width / 2; offset > 0; offset /= 2) value = op(value, shuffle_xor(value, offset, width));
  return value;
}

// Reduces over the lanes of a warp that share lane % stride (stride a power of two <= kWarpSize): the
// complement of warp_reduce's groups. Every lane gets its class's result.
template <class V, class Op>
__device__ __forceinline__ V warp_reduce_strided(V value, Op op, int stride) {
  for (int offset = kWarpSize / 2; offset >= stride; offset /= 2) value = op(value, shuffle_xor(value, offset, kWarpSize));
  return value;
}

// Reduces `value` over a block of kThreads threads; every thread gets the result. All threads must
// call it. The leading barrier lets a kernel call it again (e.g. once per row) on the same slots.
template <int kThreads, class V, class Op>
__device__ __forceinline__ V block_reduce(V value, Op op) {
  static_assert(kThreads % kWarpSize == 0, "blocks are whole warps");
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ V warp_results[kWarps];
  value = warp_reduce(value, op);
  if constexpr (kWarps == 1) return value;
  __syncthreads();
  if (threadIdx.x % kWarpSize == 0) warp_results[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  value = warp_results[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) value = op(value, warp_results[w]);
  return value;
}

// Reduces `value` over a block of kThreads threads (at most kWarpSize warps); only thread 0 is sure to get the
// result: warp 0 combines the warps' values with shuffles (its lanes past the last warp holding `identity`)
// instead of every thread reading them all. Call it once per kernel.
template <int kThreads, class V, class Op>
__device__ __forceinline__ V block_reduce_to_first(V value, Op op, V identity) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kWarpSize * kWarpSize, "whole warps, at most a warp of them");
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ V warp_results[kWarps];
  value = warp_reduce(value, op);
  if constexpr (kWarps == 1) return value;
  if (threadIdx.x % kWarpSize == 0) warp_results[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  if (threadIdx.x < kWarpSize) value = warp_reduce(threadIdx.x < kWarps ? warp_results[threadIdx.x] : identity, op);
  return value;
}

// log2(n) of a power of two n.
__device__ __forceinline__ int log2_of_power_of_two(int n) {
#if defined(__CUDA_ARCH__) && !defined(__MACACC__)
  return __ffs(n) - 1;
#else
  int shift = 0;
  while ((1 << shift) < n) ++shift;
  return shift;
#endif
}

// A grid of kThreads-thread blocks seen as groups of `width` lanes (a power of two <= kWarpSize), each
// group taking one row per step: for (first = first_row; first < rows; first += step) row = first + group.
// All groups of a warp step together, so every lane reaches the warp's shuffles even past the last row.
// Shifts, not divisions, by the width: a division is a few dozen instructions that the kernels would
// run before their first load.
template <int kThreads>
struct RowGroups {
  int lane;   // within the group
  int group;  // within the warp
  int64_t first_row, step;
  __device__ __forceinline__ explicit RowGroups(int width) {
    const int shift = log2_of_power_of_two(width);
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarpSize;
    lane = threadIdx.x & (width - 1);
    group = (threadIdx.x % kWarpSize) >> shift;
    first_row = warp * (kWarpSize >> shift);
    step = static_cast<int64_t>(gridDim.x) * (kThreads >> shift);
  }
};

// The P values of a pack in the compute type C. Same values as convert<C> one by one, but half types
// are widened a 32-bit word (two values) at a time: converting element by element first splits every
// word into 16-bit registers, which nearly doubles the registers holding a few packs in flight. The
// pack comes by value, so a pack read from memory is one 128-bit load (memcpy from a reference into
// global memory compiled to byte loads).
template <class C, class T, int P>
__device__ __forceinline__ void unpack(const Pack<T, P> pack, C (&values)[P]) {
  if constexpr (std::is_same_v<C, float> && sizeof(T) == 2 && P % 2 == 0) {
    uint32_t words[P / 2];
    memcpy(words, &pack, sizeof(words));
#pragma unroll
    for (int w = 0; w < P / 2; ++w) {
      if constexpr (std::is_same_v<T, bfloat16>) {  // a bfloat16 is the high half of a float's bits
        values[2 * w] = __uint_as_float(words[w] << 16);
        values[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
      } else {
#if defined(__MACACC__)  // MACA's fp16 header is not known to have the paired conversions: one at a time
        half halves[2];
        memcpy(halves, &words[w], sizeof(halves));
        values[2 * w] = convert<float>(halves[0]);
        values[2 * w + 1] = convert<float>(halves[1]);
#else
        __half2 halves;
        memcpy(&halves, &words[w], sizeof(halves));
        const float2 pair = __half22float2(halves);
        values[2 * w] = pair.x;
        values[2 * w + 1] = pair.y;
#endif
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < P; ++k) values[k] = convert<C>(pack.v[k]);
  }
}

// The pack of P values of type T rounded from the compute type C, as convert<T> one by one rounds
// them; on NVIDIA half types are narrowed two values per instruction (one F2FP pack instead of two
// conversions on the slower conversion pipe).
template <class T, int P, class C>
__device__ __forceinline__ Pack<T, P> pack(const C (&values)[P]) {
  Pack<T, P> result;
#if !defined(__MACACC__)
  if constexpr (std::is_same_v<C, float> && sizeof(T) == 2 && P % 2 == 0) {
#pragma unroll
    for (int w = 0; w < P / 2; ++w) {
      if constexpr (std::is_same_v<T, bfloat16>) {
        const __nv_bfloat162 pair = __floats2bfloat162_rn(values[2 * w], values[2 * w + 1]);
        memcpy(&result.v[2 * w], &pair, sizeof(pair));
      } else {
        const __half2 pair = __floats2half2_rn(values[2 * w], values[2 * w + 1]);
        memcpy(&result.v[2 * w], &pair, sizeof(pair));
      }
    }
  } else
#endif
  {
#pragma unroll
    for (int k = 0; k < P; ++k) result.v[k] = convert<T>(values[k]);
  }
  return result;
}

// Visits packs [start, count) of `in` with stride `step` (the number of threads sharing the range):
// each thread issues up to kUnroll loads before using any, which is what keeps enough bytes in flight
// to reach DRAM bandwidth, then calls visit(index, pack) in increasing index order (so sums keep a
// fixed order). The pack is passed by value, for the same reason as unpack's.
template <int kUnroll, class Vec, class Visit>
__device__ __forceinline__ void for_each_pack(const Vec *in, int64_t start, int64_t count, int step,
                                              Visit visit) {
  for (int64_t first = start; first < count; first += static_cast<int64_t>(step) * kUnroll) {
    Vec v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * step < count) v[u] = in[first + u * step];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * step < count) visit(first + u * step, v[u]);
    }
  }
}

// Runs items 0 .. count - 1 through two stages, fetch(buffer, i) (issue item i's loads into a buffer)
// then use(buffer, i), in increasing order, fetching item i + 1 before using item i: the next item's
// loads are in flight while the current one is used, across whatever use does (a shuffle, a store).
// Two buffers take the items in turn (the loop is unrolled by two) rather than one being copied into
// the other, as such a copy would wait for its loads to land.
template <class Buffer, class Index, class Fetch, class Use>
__device__ __forceinline__ void pipelined(Index count, Fetch fetch, Use use) {
  if (count <= 0) return;
  Buffer even, odd;
  fetch(even, Index(0));
  for (Index i = 0, left = count;;) {  // left: items not yet used
    if (left > 1) fetch(odd, i + 1);
    use(even, i++);
    if (--left == 0) break;
    if (left > 1) fetch(even, i + 1);
    use(odd, i++);
    if (--left == 0) break;
  }
}

// ---- Host helpers sizing reduction launches ----

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Smallest power of two >= n, at most a warp: the group width for n items.
inline int group_width(int64_t n) {
  int width = 1;
  while (width < n && width < kWarpSize) width *= 2;
  return width;
}

// Grid of a grid-stride kernel with `tasks` block-sized tasks: at most a few waves, so blocks stay
// busy without millions of tiny blocks.
inline unsigned grid_for(int64_t tasks, int64_t wave) { return static_cast<unsigned>(std::min(tasks, 8 * wave)); }

// Parts to split each of `tasks` tasks into so that about one wave of blocks is busy (1: do not
// split); tasks that already fill half a wave are not split.
inline int64_t choose_splits(int64_t tasks, int64_t wave, int64_t max_splits) {
  if (max_splits <= 1 || tasks * 2 > wave) return 1;
  return std::min(max_splits, wave / tasks);
}

// Workspace parts start at multiples of kWorkspaceAlignment, for 128-bit (and wider) access. The
// caller's workspace may start anywhere, so kernels align its base up and ask for that much slack.
constexpr size_t kWorkspaceAlignment = 256;

inline size_t align_up(size_t bytes) { return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment; }

inline size_t with_alignment_slack(size_t bytes) { return bytes == 0 ? 0 : bytes + kWorkspaceAlignment - 1; }

inline char *aligned_workspace(void *workspace) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(workspace);
  return reinterpret_cast<char *>(align_up(static_cast<size_t>(address)));
}

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_REDUCE_CUH_
