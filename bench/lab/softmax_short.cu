// Lab softmax_short: softmax / log_softmax over the last axis of short rows (128 .. 1024 columns), many
// rows, H200. Run by softmax_short.py (which reads the config lists below from this file).
//
// Candidates:
//   lib_warp_*   our library's warp tier as it is (warp_rows.cuh: 256-thread blocks, `width` lanes per row,
//                kRows rows per group, __expf / 1/s / logf, grid-stride capped at 8 waves), the calibration.
//   lib_block_*  our library's block-register tier (block_register_rows.cuh: a block per row, 2 packs per
//                thread, block_reduce), which 1024-column rows take; also with fast math and cache hints.
//   sm_* / ls_*  the new tile kernel (softmax / log_softmax): a CTA of BLOCK threads holds BLOCK/TPR row
//                groups x RPT rows; a group of TPR lanes (TPR = COLS / (VEC * pack)) holds a row, each lane
//                VEC 16-byte vectors of it (lane, lane + TPR, ...), all loads of all rows issued before the
//                first shuffle; exact grid (one tile per CTA), or persistent (one wave of CTAs striding over
//                tiles, the next tile's loads issued before the current tile's shuffles).
//                Fast math: e = ex2.approx.ftz(fma(x, log2e, -max * log2e)) (one FFMA + one MUFU per value),
//                y = e * __frcp_rn(s); log: y = (x - max) - __logf(s). FAST = 0 keeps the library's math.
//   bsm_* / bls_* the bulk tile kernel: the same layout and math, but a CTA's whole tile (PASSES x the rows
//                above, 8-16 KB, contiguous) comes in by one cp.async.bulk (TMA) into shared memory counted by
//                an mbarrier, then is read back in PASSES passes: bytes in flight cost no registers.
// Sums are in a fixed order (4 accumulators and a tree per lane, then xor butterflies), so results repeat bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace lab {

constexpr unsigned kFull = 0xffffffffu;
constexpr float kLog2e = 1.4426950408889634f;

// ---- 16-byte loads and stores with cache hints ----
// LD: 0 plain ld.global (as the library), 1 ld.global.nc.L1::no_allocate, 2 ld.global.cs (evict first),
//     3 ld.global.nc.L1::no_allocate.L2::256B (L2 prefetches the 256-byte block), 4 the reductions' EvictFirstLoad
//     (ld.global.L1::evict_first.L2::cache_hint with an L2 evict_first policy; session 20).
// ST: 0 st.global (as the library's store_pack), 1 st.global.cs (streaming, evict first).
template <int LD>
__device__ __forceinline__ uint4 load16(const void *p) {
  uint4 r;
  if constexpr (LD == 0) {
    r = *reinterpret_cast<const uint4 *>(p);
  } else if constexpr (LD == 1) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  } else if constexpr (LD == 2) {
    asm("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (LD == 4) {
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p), "l"(policy));
  } else {
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  }
  return r;
}

template <int ST>
__device__ __forceinline__ void store16(void *p, uint4 v) {
  if constexpr (ST == 0) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else {
    asm volatile("st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}

// ---- 16-byte vector <-> f32 values (as the library's unpack / pack: half types a word at a time) ----
template <class T>
constexpr int kPack = 16 / static_cast<int>(sizeof(T));

template <class T>
__device__ __forceinline__ void unpack(const uint4 r, float *v) {
  const uint32_t w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (std::is_same_v<T, float>) {
      v[k] = __uint_as_float(w[k]);
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      v[2 * k] = __uint_as_float(w[k] << 16);
      v[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u);
    } else {
      __half2 h;
      memcpy(&h, &w[k], 4);
      const float2 f = __half22float2(h);
      v[2 * k] = f.x;
      v[2 * k + 1] = f.y;
    }
  }
}

template <class T>
__device__ __forceinline__ uint4 pack(const float *v) {
  uint32_t w[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (std::is_same_v<T, float>) {
      w[k] = __float_as_uint(v[k]);
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      const __nv_bfloat162 b = __floats2bfloat162_rn(v[2 * k], v[2 * k + 1]);
      memcpy(&w[k], &b, 4);
    } else {
      const __half2 h = __floats2half2_rn(v[2 * k], v[2 * k + 1]);
      memcpy(&w[k], &h, 4);
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ float ex2(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

// In-place pairwise tree over N (a power of two) values: a fixed order, depth log2(N). Recursion on N
// (not a loop halving a runtime stride) so that every index is a constant and t stays in registers.
template <int N>
struct Tree {
  template <class Op>
  __device__ static __forceinline__ float run(float *t, Op op) {
#pragma unroll
    for (int i = 0; i < N / 2; ++i) t[i] = op(t[i], t[i + N / 2]);
    return Tree<N / 2>::run(t, op);
  }
};
template <>
struct Tree<1> {
  template <class Op>
  __device__ static __forceinline__ float run(float *t, Op) {
    return t[0];
  }
};

template <int N, class Op>
__device__ __forceinline__ float tree(float (&t)[N], Op op) {
  return Tree<N>::run(t, op);
}

__host__ __device__ constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }

struct Max {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Add {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// ---- The new tile kernel ----
template <class T, int COLS, int VEC, int RPT, int BLOCK, int LD, int ST, bool LOG, bool FAST>
struct Tile {
  static constexpr int P = kPack<T>;
  static constexpr int TPR = COLS / (VEC * P);  // lanes per row
  static constexpr int E = VEC * P;             // values per lane per row
  static constexpr int GROUPS = BLOCK / TPR;    // row groups per CTA
  static constexpr int RPB = GROUPS * RPT;      // rows per CTA tile
  static_assert(TPR * VEC * P == COLS, "a row is TPR lanes x VEC vectors");
  static_assert(TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR a power of two <= 32");
  static_assert(BLOCK % 32 == 0, "whole warps");
  static_assert((E & (E - 1)) == 0, "E a power of two (tree)");

  // Row r of this group in tile `tile`: tile * RPB + r * GROUPS + g, so for each r a warp reads
  // 32 / TPR consecutive rows.
  __device__ static __forceinline__ void load(const T *x, long long rows, long long tile, int g, int lane,
                                              uint4 (&raw)[RPT][VEC]) {
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      const long long row = tile * RPB + r * GROUPS + g;
      if (row < rows) {
        const T *p = x + row * COLS + lane * P;
#pragma unroll
        for (int j = 0; j < VEC; ++j) raw[r][j] = load16<LD>(p + j * TPR * P);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) raw[r][j] = make_uint4(0, 0, 0, 0);
      }
    }
  }

  __device__ static __forceinline__ void compute_store(T *y, long long rows, long long tile, int g, int lane,
                                                       const uint4 (&raw)[RPT][VEC]) {
    float v[RPT][E];
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) unpack<T>(raw[r][j], &v[r][j * P]);
    }
    // A accumulators per row (value k into k % A), then a tree over them: a fixed order, short chains,
    // and no second copy of the row's values (the log kernels keep x and need its exponentials only summed).
    constexpr int A = E < 4 ? E : 4;
    float m[RPT];
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      float t[A];
#pragma unroll
      for (int k = 0; k < A; ++k) t[k] = v[r][k];
#pragma unroll
      for (int k = A; k < E; ++k) t[k % A] = fmaxf(t[k % A], v[r][k]);
      m[r] = tree(t, Max{});
    }
#pragma unroll
    for (int step = 0; step < log2_of(TPR); ++step) {
      const int off = TPR >> (step + 1);
#pragma unroll
      for (int r = 0; r < RPT; ++r) m[r] = fmaxf(m[r], __shfl_xor_sync(kFull, m[r], off));
    }
    float s[RPT];
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      float t[A];
      const float ml = m[r] * kLog2e;
#pragma unroll
      for (int k = 0; k < E; ++k) {
        const float e = FAST ? ex2(fmaf(v[r][k], kLog2e, -ml)) : __expf(v[r][k] - m[r]);
        t[k % A] = k < A ? e : t[k % A] + e;
        if (!LOG) v[r][k] = e;
      }
      s[r] = tree(t, Add{});
    }
#pragma unroll
    for (int step = 0; step < log2_of(TPR); ++step) {
      const int off = TPR >> (step + 1);
#pragma unroll
      for (int r = 0; r < RPT; ++r) s[r] += __shfl_xor_sync(kFull, s[r], off);
    }
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      const long long row = tile * RPB + r * GROUPS + g;
      if (row < rows) {
        if (LOG) {
          const float ls = FAST ? __logf(s[r]) : logf(s[r]);
#pragma unroll
          for (int k = 0; k < E; ++k) v[r][k] = (v[r][k] - m[r]) - ls;
        } else {
          const float inv = FAST ? __frcp_rn(s[r]) : 1.0f / s[r];
#pragma unroll
          for (int k = 0; k < E; ++k) v[r][k] *= inv;
        }
        T *p = y + row * COLS + lane * P;
#pragma unroll
        for (int j = 0; j < VEC; ++j) store16<ST>(p + j * TPR * P, pack<T>(&v[r][j * P]));
      }
    }
  }
};

template <class T, int COLS, int VEC, int RPT, int BLOCK, int LD, int ST, bool LOG, bool FAST, bool PERSIST>
__device__ __forceinline__ void tile_rows(const T *x, T *y, long long rows) {
  using K = Tile<T, COLS, VEC, RPT, BLOCK, LD, ST, LOG, FAST>;
  const int lane = threadIdx.x % K::TPR;
  const int g = threadIdx.x / K::TPR;
  const long long tiles = (rows + K::RPB - 1) / K::RPB;
  long long tile = blockIdx.x;
  if (tile >= tiles) return;  // whole CTA
  if constexpr (!PERSIST) {
    uint4 raw[RPT][VEC];
    K::load(x, rows, tile, g, lane, raw);
    K::compute_store(y, rows, tile, g, lane, raw);
  } else {
    uint4 cur[RPT][VEC], nxt[RPT][VEC];
    K::load(x, rows, tile, g, lane, cur);
    for (; tile < tiles; tile += gridDim.x) {
      const long long next = tile + gridDim.x;
      if (next < tiles) K::load(x, rows, next, g, lane, nxt);  // in flight through this tile's shuffles
      K::compute_store(y, rows, tile, g, lane, cur);
#pragma unroll
      for (int r = 0; r < RPT; ++r) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) cur[r][j] = nxt[r][j];
      }
    }
  }
}

// ---- The bulk-copy tile kernel (Hopper TMA, non-tensor cp.async.bulk) ----
// One CTA per tile of PASSES * RPB consecutive rows (contiguous bytes): thread 0 starts one bulk copy of
// the whole tile into shared memory (an mbarrier counts its bytes), every thread waits on the barrier,
// then processes the tile in PASSES passes of the Tile layout, reading its vectors from shared memory and
// storing its outputs straight to global. The loads of a CTA cost no registers, so an SM holds as many
// tiles in flight as its shared memory fits (8-16 KB each: 100-200 KB per SM), against the 32-64 KB of
// 16-byte register loads of 2048 threads; the grid is exact (one tile per CTA).
__device__ __forceinline__ unsigned shared_address(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <class T, int COLS, int VEC, int RPT, int BLOCK, int PASSES, int ST, bool LOG>
__device__ __forceinline__ void bulk_rows(const T *x, T *y, long long rows) {
  using K = Tile<T, COLS, VEC, RPT, BLOCK, 0, ST, LOG, true>;
  constexpr int kTileRows = K::RPB * PASSES;
  constexpr unsigned kRowBytes = COLS * sizeof(T);
  constexpr unsigned kChunk = 8192;  // bytes per bulk copy instruction
  static_assert(kRowBytes % 16 == 0, "bulk copies move multiples of 16 bytes");
  extern __shared__ __align__(128) uint4 tile[];  // kTileRows * kRowBytes bytes (dynamic)
  __shared__ __align__(8) unsigned long long barrier;
  const long long first = static_cast<long long>(blockIdx.x) * kTileRows;
  if (first >= rows) return;  // whole CTA
  const long long left = rows - first;
  const int n = left < kTileRows ? static_cast<int>(left) : kTileRows;
  const unsigned bytes = static_cast<unsigned>(n) * kRowBytes;
  const unsigned bar = shared_address(&barrier);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    const char *src = reinterpret_cast<const char *>(x + first * COLS);
    const unsigned dst = shared_address(tile);
    for (unsigned off = 0; off < bytes; off += kChunk) {
      const unsigned size = bytes - off < kChunk ? bytes - off : kChunk;
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst + off),
          "l"(src + off), "r"(size), "r"(bar)
          : "memory");
    }
  }
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(0)
        : "memory");
  } while (!done);
  const int lane = threadIdx.x % K::TPR;
  const int g = threadIdx.x / K::TPR;
#pragma unroll 1
  for (int pass = 0; pass < PASSES; ++pass) {
    uint4 raw[RPT][VEC];
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
      const int local = pass * K::RPB + r * K::GROUPS + g;  // row within the tile
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        raw[r][j] = local < n ? tile[local * (COLS / K::P) + j * K::TPR + lane] : make_uint4(0, 0, 0, 0);
      }
    }
    // Row of (r, g) in Tile's numbering: (blockIdx.x * PASSES + pass) * RPB + r * GROUPS + g.
    K::compute_store(y, rows, static_cast<long long>(blockIdx.x) * PASSES + pass, g, lane, raw);
  }
}

// ---- The library's warp tier, reproduced (warp_rows.cuh softmax_rows_in_registers, kThreads = 256) ----
template <class T, int kPacks, int kRows, bool FAST>
__device__ __forceinline__ void lib_warp(const T *x, T *y, long long rows, long long cols, int width, int log) {
  constexpr int kThreads = 256;
  constexpr int P = kPack<T>;
  // RowGroups<kThreads>(width)
  const long long thread = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  const int lane = threadIdx.x % width;
  const int group = threadIdx.x % 32 / width;
  const long long first_row = thread / 32 * (32 / width);
  const long long step = static_cast<long long>(gridDim.x) * (kThreads / width);
  const long long groups_per_warp = 32 / width;
  const long long packs = cols / P;
  const long long row_stride = groups_per_warp * cols / P;  // in packs
  for (long long first = first_row * kRows; first < rows; first += step * kRows) {
    const long long row0 = first + group;
    int valid_rows = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) valid_rows += row0 + r * groups_per_warp < rows;
    const long long offset = valid_rows > 0 ? row0 * cols : 0;
    const uint4 *in = reinterpret_cast<const uint4 *>(x + offset);
    uint4 *out = reinterpret_cast<uint4 *>(y + offset);
    float v[kRows][kPacks][P];
    float mx[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      mx[r] = -INFINITY;
#pragma unroll
      for (int j = 0; j < kPacks; ++j) {
        const long long i = static_cast<long long>(j) * width + lane;
        if (r < valid_rows && i < packs) {
          unpack<T>(in[r * row_stride + i], v[r][j]);
#pragma unroll
          for (int k = 0; k < P; ++k) mx[r] = fmaxf(mx[r], v[r][j][k]);
        } else {
#pragma unroll
          for (int k = 0; k < P; ++k) v[r][j][k] = -INFINITY;
        }
      }
    }
    for (int offs = width / 2; offs > 0; offs /= 2) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) mx[r] = fmaxf(mx[r], __shfl_xor_sync(kFull, mx[r], offs, width));
    }
    float sum[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      sum[r] = 0;
      const float ml = mx[r] * kLog2e;
#pragma unroll
      for (int j = 0; j < kPacks; ++j) {
#pragma unroll
        for (int k = 0; k < P; ++k) {
          const float e = FAST ? ex2(fmaf(v[r][j][k], kLog2e, -ml)) : __expf(v[r][j][k] - mx[r]);
          if (!log) v[r][j][k] = e;
          sum[r] += e;
        }
      }
    }
    for (int offs = width / 2; offs > 0; offs /= 2) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] += __shfl_xor_sync(kFull, sum[r], offs, width);
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (r < valid_rows) {
        const float factor = log ? (FAST ? __logf(sum[r]) : logf(sum[r])) : (FAST ? __frcp_rn(sum[r]) : 1.0f / sum[r]);
#pragma unroll
        for (int j = 0; j < kPacks; ++j) {
          const long long i = static_cast<long long>(j) * width + lane;
          if (i < packs) {
#pragma unroll
            for (int k = 0; k < P; ++k) v[r][j][k] = log ? (v[r][j][k] - mx[r]) - factor : v[r][j][k] * factor;
            store16<0>(out + r * row_stride + i, pack<T>(v[r][j]));
          }
        }
      }
    }
  }
}

// ---- The library's block-register tier, reproduced (block_register_rows.cuh, kBlockRowPacks = 2) ----
template <int kThreads>
__device__ __forceinline__ float block_reduce_max(float value, float *slots) {
  constexpr int kWarps = kThreads / 32;
#pragma unroll
  for (int o = 16; o > 0; o /= 2) value = fmaxf(value, __shfl_xor_sync(kFull, value, o));
  if constexpr (kWarps == 1) return value;
  __syncthreads();
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = value;
  __syncthreads();
  value = slots[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) value = fmaxf(value, slots[w]);
  return value;
}

template <int kThreads>
__device__ __forceinline__ float block_reduce_sum(float value, float *slots) {
  constexpr int kWarps = kThreads / 32;
#pragma unroll
  for (int o = 16; o > 0; o /= 2) value += __shfl_xor_sync(kFull, value, o);
  if constexpr (kWarps == 1) return value;
  __syncthreads();
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = value;
  __syncthreads();
  value = slots[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) value += slots[w];
  return value;
}

template <class T, int kThreads, int LD, int ST, bool FAST>
__device__ __forceinline__ void lib_block(const T *x, T *y, long long rows, long long cols, int log) {
  constexpr int P = kPack<T>;
  constexpr int kPacks = 2;
  __shared__ float slots[kThreads / 32];
  const long long packs = cols / P;
  const int lane = threadIdx.x;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T *in = x + row * cols;
    T *out = y + row * cols;
    float v[kPacks][P];
    float mx = -INFINITY;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const long long i = static_cast<long long>(j) * kThreads + lane;
      if (i < packs) {
        unpack<T>(load16<LD>(in + i * P), v[j]);
#pragma unroll
        for (int k = 0; k < P; ++k) mx = fmaxf(mx, v[j][k]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] = -INFINITY;
      }
    }
    mx = block_reduce_max<kThreads>(mx, slots);
    float sum = 0;
    const float ml = mx * kLog2e;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const float e = FAST ? ex2(fmaf(v[j][k], kLog2e, -ml)) : __expf(v[j][k] - mx);
        if (!log) v[j][k] = e;
        sum += e;
      }
    }
    sum = block_reduce_sum<kThreads>(sum, slots);
    const float factor = log ? (FAST ? __logf(sum) : logf(sum)) : (FAST ? __frcp_rn(sum) : 1.0f / sum);
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const long long i = static_cast<long long>(j) * kThreads + lane;
      if (i < packs) {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] = log ? (v[j][k] - mx) - factor : v[j][k] * factor;
        store16<ST>(out + i * P, pack<T>(v[j]));
      }
    }
  }
}

}  // namespace lab

// ---- Instantiations ----
#define DT_f16 __half
#define DT_bf16 __nv_bfloat16
#define DT_f32 float

// sm_<dt>_c<COLS>_v<VEC>_r<RPT>_b<BLOCK>_o<MINB>_l<LD>_s<ST>_f<FAST>_p<PERSIST> (softmax), ls_... (log_softmax).
// MINB is __launch_bounds__' minimum CTAs per SM (a register cap of 65536 / (BLOCK * MINB)).
#define TILE_KERNEL(DT, OPN, LOGV, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)                          \
  extern "C" __global__ void __launch_bounds__(BLOCK, MINB)                                                  \
      OPN##_##DT##_c##COLS##_v##VEC##_r##RPT##_b##BLOCK##_o##MINB##_l##LD##_s##ST##_f##FAST##_p##PERS(       \
          const DT_##DT *x, DT_##DT *y, long long rows) {                                                    \
    lab::tile_rows<DT_##DT, COLS, VEC, RPT, BLOCK, LD, ST, LOGV, FAST != 0, PERS != 0>(x, y, rows);         \
  }

// The candidate configs, one X(COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERSIST) per line (the .py
// parses these lines). Half configs are built for f16 and bf16, f32 configs for f32; each as softmax and
// log_softmax. TPR = COLS / (VEC * 8) for half types, COLS / (VEC * 4) for f32.
// clang-format off
#define HALF_CONFIGS(X) \
  X(128, 2, 1, 128, 16, 4, 0, 0, 0) \
  X(256, 2, 1, 128, 16, 4, 0, 0, 0) \
  X(128, 1, 1, 128, 16, 0, 0, 1, 0) \
  X(128, 1, 1, 128, 16, 0, 0, 0, 0) \
  X(128, 1, 2, 128, 16, 0, 0, 1, 0) \
  X(128, 1, 4, 128, 8, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 0, 0, 0, 0) \
  X(128, 2, 2, 128, 8, 0, 0, 1, 0) \
  X(128, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(128, 2, 1, 256, 8, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 1, 1, 1, 0) \
  X(128, 2, 1, 256, 4, 0, 0, 1, 1) \
  X(256, 1, 1, 128, 16, 0, 0, 1, 0) \
  X(256, 1, 2, 128, 8, 0, 0, 1, 0) \
  X(256, 2, 1, 128, 16, 0, 0, 1, 0) \
  X(256, 2, 1, 128, 16, 0, 0, 0, 0) \
  X(256, 2, 2, 128, 8, 0, 0, 1, 0) \
  X(256, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(256, 2, 1, 256, 8, 0, 0, 1, 0) \
  X(256, 2, 1, 128, 16, 1, 1, 1, 0) \
  X(256, 2, 1, 128, 16, 3, 1, 1, 0) \
  X(256, 2, 1, 128, 8, 0, 0, 1, 1) \
  X(512, 2, 1, 128, 16, 0, 0, 1, 0) \
  X(512, 2, 2, 128, 8, 0, 0, 1, 0) \
  X(512, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(512, 2, 1, 64, 32, 0, 0, 1, 0) \
  X(512, 2, 1, 64, 32, 0, 0, 0, 0) \
  X(512, 2, 1, 64, 32, 2, 0, 0, 0) \
  X(512, 2, 1, 64, 32, 4, 0, 0, 0) \
  X(512, 2, 1, 64, 32, 0, 1, 0, 0) \
  X(512, 2, 1, 64, 32, 2, 1, 0, 0) \
  X(512, 2, 1, 64, 32, 4, 1, 0, 0) \
  X(512, 2, 1, 256, 8, 0, 0, 1, 0) \
  X(512, 4, 1, 256, 4, 0, 0, 1, 0) \
  X(512, 2, 1, 128, 16, 1, 1, 1, 0) \
  X(512, 4, 1, 128, 8, 3, 1, 1, 0) \
  X(1024, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(1024, 4, 1, 256, 4, 0, 0, 1, 0) \
  X(1024, 4, 2, 128, 4, 0, 0, 1, 0) \
  X(1024, 8, 1, 128, 4, 0, 0, 1, 0) \
  X(1024, 4, 1, 128, 8, 1, 1, 1, 0) \
  X(1024, 4, 1, 128, 8, 0, 1, 1, 0) \
  X(1024, 4, 1, 128, 8, 0, 0, 1, 1)

#define F32_CONFIGS(X) \
  X(128, 4, 1, 128, 8, 0, 0, 0, 0) \
  X(128, 4, 1, 128, 8, 4, 0, 0, 0) \
  X(256, 4, 1, 128, 8, 0, 0, 0, 0) \
  X(256, 4, 1, 128, 8, 4, 0, 0, 0) \
  X(512, 4, 1, 64, 16, 0, 0, 0, 0) \
  X(512, 4, 1, 64, 16, 4, 0, 0, 0) \
  X(1024, 8, 1, 64, 8, 0, 0, 0, 0) \
  X(1024, 8, 1, 64, 8, 4, 0, 0, 0) \
  X(128, 1, 1, 128, 16, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 0, 0, 0, 0) \
  X(128, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(128, 1, 2, 128, 16, 0, 0, 1, 0) \
  X(128, 2, 2, 128, 8, 0, 0, 1, 0) \
  X(128, 2, 1, 256, 8, 0, 0, 1, 0) \
  X(128, 2, 1, 128, 16, 1, 1, 1, 0) \
  X(128, 2, 1, 256, 4, 0, 0, 1, 1) \
  X(256, 2, 1, 128, 16, 0, 0, 1, 0) \
  X(256, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(256, 8, 1, 128, 4, 0, 0, 1, 0) \
  X(256, 2, 2, 128, 8, 0, 0, 1, 0) \
  X(256, 4, 1, 256, 4, 0, 0, 1, 0) \
  X(256, 2, 1, 128, 16, 1, 1, 1, 0) \
  X(256, 4, 1, 128, 8, 3, 1, 1, 0) \
  X(512, 4, 1, 128, 8, 0, 0, 1, 0) \
  X(512, 8, 1, 128, 4, 0, 0, 1, 0) \
  X(512, 4, 2, 128, 4, 0, 0, 1, 0) \
  X(512, 4, 1, 256, 4, 0, 0, 1, 0) \
  X(512, 4, 1, 64, 16, 0, 0, 1, 0) \
  X(512, 4, 1, 128, 8, 1, 1, 1, 0) \
  X(1024, 8, 1, 128, 4, 0, 0, 1, 0) \
  X(1024, 8, 1, 256, 2, 0, 0, 1, 0) \
  X(1024, 8, 1, 64, 8, 0, 0, 1, 0) \
  X(1024, 8, 1, 128, 4, 1, 1, 1, 0) \
  X(1024, 8, 1, 128, 4, 0, 1, 1, 0) \
  X(1024, 8, 1, 128, 4, 0, 0, 1, 1)
// clang-format on

#define HALF_INST(COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)                \
  TILE_KERNEL(f16, sm, false, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)    \
  TILE_KERNEL(bf16, sm, false, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)   \
  TILE_KERNEL(f16, ls, true, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)     \
  TILE_KERNEL(bf16, ls, true, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)
#define F32_INST(COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)                 \
  TILE_KERNEL(f32, sm, false, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)    \
  TILE_KERNEL(f32, ls, true, COLS, VEC, RPT, BLOCK, MINB, LD, ST, FAST, PERS)

HALF_CONFIGS(HALF_INST)
F32_CONFIGS(F32_INST)

// Bulk kernels: bsm_/bls_<dt>_c<COLS>_v<VEC>_r<RPT>_b<BLOCK>_o<MINB>_n<PASSES>_s<ST>, dynamic shared memory
// PASSES * (BLOCK / TPR) * RPT * COLS * sizeof(T) bytes. One Y(COLS, VEC, RPT, BLOCK, MINB, PASSES, ST) per line.
#define BULK_KERNEL(DT, OPN, LOGV, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)                                    \
  extern "C" __global__ void __launch_bounds__(BLOCK, MINB)                                                  \
      OPN##_##DT##_c##COLS##_v##VEC##_r##RPT##_b##BLOCK##_o##MINB##_n##PASSES##_s##ST(const DT_##DT *x,       \
                                                                                     DT_##DT *y, long long rows) { \
    lab::bulk_rows<DT_##DT, COLS, VEC, RPT, BLOCK, PASSES, ST, LOGV>(x, y, rows);                            \
  }

// clang-format off
#define BULK_HALF_CONFIGS(Y) \
  Y(128, 1, 1, 128, 16, 4, 0) \
  Y(128, 1, 1, 128, 16, 8, 0) \
  Y(128, 2, 1, 128, 16, 2, 0) \
  Y(128, 1, 1, 256, 8, 4, 0) \
  Y(256, 1, 1, 128, 16, 4, 0) \
  Y(256, 2, 1, 128, 12, 4, 0) \
  Y(512, 2, 1, 128, 16, 2, 0) \
  Y(512, 2, 1, 128, 12, 4, 0) \
  Y(1024, 4, 1, 128, 8, 2, 0) \
  Y(1024, 4, 1, 128, 8, 1, 1)

#define BULK_F32_CONFIGS(Y) \
  Y(128, 1, 1, 128, 16, 4, 0) \
  Y(128, 2, 1, 128, 16, 4, 0) \
  Y(128, 1, 1, 128, 16, 8, 0) \
  Y(256, 2, 1, 128, 16, 2, 0) \
  Y(256, 2, 1, 128, 12, 4, 0) \
  Y(512, 4, 1, 128, 8, 1, 0) \
  Y(512, 4, 1, 128, 8, 2, 0) \
  Y(1024, 8, 1, 128, 4, 1, 0) \
  Y(1024, 8, 1, 128, 4, 1, 1)
// clang-format on

#define BULK_HALF_INST(COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)               \
  BULK_KERNEL(f16, bsm, false, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)       \
  BULK_KERNEL(bf16, bsm, false, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)      \
  BULK_KERNEL(f16, bls, true, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)        \
  BULK_KERNEL(bf16, bls, true, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)
#define BULK_F32_INST(COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)                \
  BULK_KERNEL(f32, bsm, false, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)       \
  BULK_KERNEL(f32, bls, true, COLS, VEC, RPT, BLOCK, MINB, PASSES, ST)

BULK_HALF_CONFIGS(BULK_HALF_INST)
BULK_F32_CONFIGS(BULK_F32_INST)

// lib_warp_<dt>_k<kPacks>_r<kRows>_f<FAST>(x, y, rows, cols, int width, int log): 256-thread blocks, as the library.
#define LIB_WARP(DT, KP, KR, FAST)                                                                               \
  extern "C" __global__ void __launch_bounds__(256)                                                             \
      lib_warp_##DT##_k##KP##_r##KR##_f##FAST(const DT_##DT *x, DT_##DT *y, long long rows, long long cols,       \
                                              int width, int log) {                                             \
    lab::lib_warp<DT_##DT, KP, KR, FAST != 0>(x, y, rows, cols, width, log);                                     \
  }
LIB_WARP(f16, 1, 4, 0)
LIB_WARP(bf16, 1, 4, 0)
LIB_WARP(f16, 2, 2, 0)
LIB_WARP(bf16, 2, 2, 0)
LIB_WARP(f32, 1, 4, 0)
LIB_WARP(f32, 2, 2, 0)
LIB_WARP(f32, 4, 1, 0)
LIB_WARP(f16, 1, 4, 1)
LIB_WARP(bf16, 1, 4, 1)
LIB_WARP(f32, 1, 4, 1)

// lib_block_<dt>_t<threads>_l<LD>_s<ST>_f<FAST>(x, y, rows, cols, int log): a block per row, 2 packs per thread.
#define LIB_BLOCK(DT, TH, LD, ST, FAST)                                                                          \
  extern "C" __global__ void __launch_bounds__(TH)                                                              \
      lib_block_##DT##_t##TH##_l##LD##_s##ST##_f##FAST(const DT_##DT *x, DT_##DT *y, long long rows,             \
                                                       long long cols, int log) {                               \
    lab::lib_block<DT_##DT, TH, LD, ST, FAST != 0>(x, y, rows, cols, log);                                       \
  }
LIB_BLOCK(f16, 64, 0, 0, 0)
LIB_BLOCK(bf16, 64, 0, 0, 0)
LIB_BLOCK(f32, 128, 0, 0, 0)
LIB_BLOCK(f16, 64, 1, 1, 1)
LIB_BLOCK(bf16, 64, 1, 1, 1)
LIB_BLOCK(f32, 128, 1, 1, 1)

// Session 12: the library's tile tier itself (tile_rows.cuh, softmax_rows_of_tile) at the shape tile_shape gives
// each row length, softmax only: lib_tile_<dt>_c<COLS>(x, y, rows, cols).
#include "ops/softmax/nvidia/tile_rows.cuh"

#define LIB_TILE(DT, COLS, LANES, PACKS, BLOCK, MINB)                                                            \
  extern "C" __global__ void __launch_bounds__(BLOCK, MINB)                                                     \
      lib_tile_##DT##_c##COLS(const DT_##DT *x, DT_##DT *y, long long rows, long long cols) {                   \
    oprt::gpu::softmax_detail::softmax_rows_of_tile<DT_##DT, 16 / sizeof(DT_##DT), LANES, PACKS, BLOCK, false>( \
        x, y, rows, cols);                                                                                      \
  }
#define LIB_TILE_HALF(COLS, LANES, PACKS, BLOCK, MINB) \
  LIB_TILE(f16, COLS, LANES, PACKS, BLOCK, MINB)       \
  LIB_TILE(bf16, COLS, LANES, PACKS, BLOCK, MINB)
LIB_TILE_HALF(128, 8, 2, 128, 16)
LIB_TILE_HALF(256, 16, 2, 128, 16)
LIB_TILE_HALF(512, 32, 2, 64, 32)
LIB_TILE(f32, 512, 32, 4, 64, 16)

// Session 15: the same tiles unmasked (softmax_rows_of_tile's kWhole: full tiles of whole rows).
#define LIB_TILE_WHOLE(DT, COLS, LANES, PACKS, BLOCK, MINB)                                                      \
  extern "C" __global__ void __launch_bounds__(BLOCK, MINB)                                                     \
      lib_tilew_##DT##_c##COLS(const DT_##DT *x, DT_##DT *y, long long rows, long long cols) {                  \
    oprt::gpu::softmax_detail::softmax_rows_of_tile<DT_##DT, 16 / sizeof(DT_##DT), LANES, PACKS, BLOCK, false,  \
                                                    true>(x, y, rows, cols);                                    \
  }
LIB_TILE_WHOLE(f16, 128, 8, 2, 128, 16)
LIB_TILE_WHOLE(bf16, 128, 8, 2, 128, 16)
LIB_TILE_WHOLE(f16, 256, 16, 2, 128, 16)
LIB_TILE_WHOLE(bf16, 256, 16, 2, 128, 16)
LIB_TILE_WHOLE(f16, 512, 32, 2, 64, 32)
LIB_TILE_WHOLE(bf16, 512, 32, 2, 64, 32)
LIB_TILE_WHOLE(f32, 512, 32, 4, 64, 16)

// Session 16: half rows of 512 in 128-thread blocks of the unmasked tile (4 rows a block; tile_shape gives 64).
#define LIB_TILE_WHOLE_128(DT)                                                                                  \
  extern "C" __global__ void __launch_bounds__(128, 16)                                                         \
      lib_tilew128_##DT##_c512(const DT_##DT *x, DT_##DT *y, long long rows, long long cols) {                  \
    oprt::gpu::softmax_detail::softmax_rows_of_tile<DT_##DT, 8, 32, 2, 128, false, true>(x, y, rows, cols);     \
  }
LIB_TILE_WHOLE_128(f16)
LIB_TILE_WHOLE_128(bf16)
