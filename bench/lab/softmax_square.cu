// Lab softmax_square: softmax over the last axis of 4096- and 8192-column rows (4096x4096, 8192x8192), f16 /
// bf16 / f32, on the H200, where Liger-Kernel's one-program-per-row Triton kernel leads us by 1-12%.
//
// Two reproductions of the library (for calibration against bench/results/h200-peers.json):
//   lib_reg_<dt>   block_register_rows.cuh: a block of 256 per row, 2 packs per thread, grid-stride,
//                  two block_reduce round trips (each with its leading barrier), __expf, 1/sum.
//   lib_shm_<dt>   block_shared_rows.cuh: a block of 256 per row, the row cached in dynamic shared memory,
//                  kUnroll = 4 loads in flight, max / exp-sum / normalize passes (exp computed twice),
//                  __launch_bounds__(256, kSharedMinBlocks = 8 for half types, 6 for f32).
//   lib_reg_cs_<dt>, lib_shm_cs_<dt>: the same kernels with st.global.cs stores (Liger's .cs), the
//                  smallest change to the library.
// The candidates (sq_<dt>_t<threads>_p<packs>_b<minblocks>_r<red>_l<load>_s<store>_f<persistent>):
//   the whole row in registers, a block of <threads> per row, <packs> 16-byte packs per thread
//   (pack j of thread t is pack j * threads + t, so every load instruction of a warp reads 512
//   contiguous bytes), __launch_bounds__(threads, minblocks);
//   red 0: two block round trips (max, then sum of exp), no leading barrier (one row per block);
//   red 1: one round trip: each warp reduces its own max and sum of exp(x - warp max) with shuffles,
//          then the block combines the warps' (max, sum) pairs online after a single barrier; each
//          thread rescales its e = exp(x - warp max) by exp(warp max - row max) / row sum (one exp per
//          element, as red 0);
//   load 0 ld.global, 1 ld.global.nc, 2 ld.global.nc.L1::no_allocate,
//        3 ld.global.cs (evict-first), 4 ld.global.nc.L1::no_allocate.L2::256B, 5 ld.global.ca (Liger's
//        `.ca`: ptxas makes it LDG.E.128.STRONG.SM, not the plain LDG.E.128 of load 0, which session 5
//        had taken for the same);
//   store 0 st.global, 1 st.global.cs (Liger's .cs);
//   persistent 0: grid = rows, one row per block; 1: grid = resident blocks, a block loops over rows
//          and loads its next row before reducing the current one.
// exp(x - m) = ex2.approx.ftz(x * log2e - m * log2e) (one FFMA + MUFU per element), f32 accumulation,
// max-subtracted, sums in a fixed order (bitwise repeatable). Packs past `packs` read as -inf and are
// not written, so any cols that is a multiple of the pack and at most threads * packs * pack works.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sq {

constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float neg_inf() { return __uint_as_float(0xff800000u); }

template <class T>
constexpr int kPack = 16 / static_cast<int>(sizeof(T));

// ---- 16-byte loads and stores ----

template <int LD>
__device__ __forceinline__ uint4 load16(const uint4 *p) {
  uint4 r;
  if constexpr (LD == 0) {
    asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (LD == 1) {
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (LD == 2) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  } else if constexpr (LD == 3) {
    asm("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (LD == 5) {
    asm("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else {
    static_assert(LD == 4, "load variants 0..5");
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  }
  return r;
}

template <int ST>
__device__ __forceinline__ void store16(uint4 *p, uint4 v) {
  if constexpr (ST == 0) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else {
    static_assert(ST == 1, "store variants 0..1");
    asm volatile("st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}

// ---- packs <-> f32 ----

template <class T>
__device__ __forceinline__ void unpack(const uint4 &r, float (&v)[kPack<T>]) {
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
      memcpy(&h, &w[k], sizeof(h));
      const float2 f = __half22float2(h);
      v[2 * k] = f.x;
      v[2 * k + 1] = f.y;
    }
  }
}

template <class T>
__device__ __forceinline__ uint4 pack(const float (&v)[kPack<T>]) {
  uint32_t w[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (std::is_same_v<T, float>) {
      w[k] = __float_as_uint(v[k]);
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      const __nv_bfloat162 b = __floats2bfloat162_rn(v[2 * k], v[2 * k + 1]);
      memcpy(&w[k], &b, sizeof(b));
    } else {
      const __half2 h = __floats2half2_rn(v[2 * k], v[2 * k + 1]);
      memcpy(&w[k], &h, sizeof(h));
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Butterflies within aligned groups of WIDTH lanes: every lane gets the same bits (commutative ops).
template <int WIDTH>
__device__ __forceinline__ float group_max(float v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <int WIDTH>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---- The candidates ----

// Loads this thread's packs of a row (-inf past `packs`).
template <class T, int THREADS, int PACKS, int LD>
__device__ __forceinline__ void load_row(const uint4 *in, int packs, uint4 (&raw)[PACKS]) {
#pragma unroll
  for (int j = 0; j < PACKS; ++j) {
    const int i = j * THREADS + static_cast<int>(threadIdx.x);
    if (i < packs) raw[j] = load16<LD>(in + i);
  }
}

template <class T, int THREADS, int PACKS>
__device__ __forceinline__ void unpack_row(const uint4 (&raw)[PACKS], int packs, float (&v)[PACKS][kPack<T>]) {
#pragma unroll
  for (int j = 0; j < PACKS; ++j) {
    const int i = j * THREADS + static_cast<int>(threadIdx.x);
    if (i < packs) {
      unpack<T>(raw[j], v[j]);
    } else {
#pragma unroll
      for (int k = 0; k < kPack<T>; ++k) v[j][k] = neg_inf();
    }
  }
}

// Softmax of the row held in v (this thread's packs), written to out. `red` is 32 float2 of shared
// memory that no other thread touches between this row's first barrier and the caller's next row on
// the other buffer (the persistent kernels alternate two).
template <class T, int THREADS, int PACKS, int RED, int ST>
__device__ __forceinline__ void finish_row(float (&v)[PACKS][kPack<T>], uint4 *out, int packs, float2 *red) {
  constexpr int P = kPack<T>;
  constexpr int W = THREADS / 32;
  static_assert(THREADS % 32 == 0 && W <= 32, "whole warps, at most 1024 threads");
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  float m = neg_inf();
#pragma unroll
  for (int j = 0; j < PACKS; ++j) {
    float mj = v[j][0];
#pragma unroll
    for (int k = 1; k < P; ++k) mj = fmaxf(mj, v[j][k]);
    m = fmaxf(m, mj);
  }
  m = group_max<32>(m);

  float scale;
  if constexpr (RED == 0) {
    float *rm = reinterpret_cast<float *>(red);
    float *rs = rm + 32;
    if constexpr (W > 1) {
      if (lane == 0) rm[warp] = m;
      __syncthreads();
      m = group_max<W>(rm[lane % W]);
    }
    // An all -inf row: fma(-inf, l2e, inf) = NaN, so every output is NaN, as torch has it.
    const float ms = m * kLog2e;
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < PACKS; ++j) {
      float sj = 0.f;
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[j][k] = ex2(fmaf(v[j][k], kLog2e, -ms));
        sj += v[j][k];
      }
      s += sj;
    }
    s = group_sum<32>(s);
    if constexpr (W > 1) {
      if (lane == 0) rs[warp] = s;
      __syncthreads();
      s = group_sum<W>(rs[lane % W]);
    }
    scale = __frcp_rn(s);
  } else {
    // Warp-local softmax statistics; an all -inf warp part takes 0 as its reference (its e are 0).
    const float ref = m == neg_inf() ? 0.f : m;
    const float ms = ref * kLog2e;
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < PACKS; ++j) {
      float sj = 0.f;
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[j][k] = ex2(fmaf(v[j][k], kLog2e, -ms));
        sj += v[j][k];
      }
      s += sj;
    }
    s = group_sum<32>(s);
    if constexpr (W > 1) {
      if (lane == 0) red[warp] = make_float2(m, s);
      __syncthreads();
      const float2 t = red[lane % W];
      const float row_max = group_max<W>(t.x);
      // -inf parts add nothing; a +inf max or an all -inf row gives NaN (inf - inf, 0 / 0), as torch.
      const float term = t.x == neg_inf() ? 0.f : t.y * ex2((t.x - row_max) * kLog2e);
      const float row_sum = group_sum<W>(term);
      const float mine = m == neg_inf() ? 0.f : ex2((m - row_max) * kLog2e);
      scale = __fdividef(mine, row_sum);
    } else {
      scale = __frcp_rn(s);
    }
  }

#pragma unroll
  for (int j = 0; j < PACKS; ++j) {
    const int i = j * THREADS + static_cast<int>(threadIdx.x);
    if (i < packs) {
      float o[P];
#pragma unroll
      for (int k = 0; k < P; ++k) o[k] = v[j][k] * scale;
      store16<ST>(out + i, pack<T>(o));
    }
  }
}

// One row per block (grid = rows).
template <class T, int THREADS, int PACKS, int RED, int LD, int ST>
__device__ __forceinline__ void row_per_block(const T *x, T *y, int64_t rows, int64_t cols) {
  __shared__ float2 red[32];
  const int64_t row = blockIdx.x;
  if (row >= rows) return;
  const int packs = static_cast<int>(cols / kPack<T>);
  const uint4 *in = reinterpret_cast<const uint4 *>(x + row * cols);
  uint4 *out = reinterpret_cast<uint4 *>(y + row * cols);
  uint4 raw[PACKS];
  load_row<T, THREADS, PACKS, LD>(in, packs, raw);
  float v[PACKS][kPack<T>];
  unpack_row<T, THREADS, PACKS>(raw, packs, v);
  finish_row<T, THREADS, PACKS, RED, ST>(v, out, packs, red);
}

// Persistent: a block loops over rows blockIdx.x, + gridDim.x, ..., loading the next row's packs into
// registers before the current row's reductions (its bytes stay in flight through the barriers).
template <class T, int THREADS, int PACKS, int RED, int LD, int ST>
__device__ __forceinline__ void rows_persistent(const T *x, T *y, int64_t rows, int64_t cols) {
  __shared__ float2 red[2][32];
  int64_t row = blockIdx.x;
  if (row >= rows) return;
  const int packs = static_cast<int>(cols / kPack<T>);
  uint4 raw[PACKS];
  load_row<T, THREADS, PACKS, LD>(reinterpret_cast<const uint4 *>(x + row * cols), packs, raw);
  for (int it = 0; row < rows; row += gridDim.x, ++it) {
    float v[PACKS][kPack<T>];
    unpack_row<T, THREADS, PACKS>(raw, packs, v);
    const int64_t next = row + gridDim.x;
    if (next < rows) load_row<T, THREADS, PACKS, LD>(reinterpret_cast<const uint4 *>(x + next * cols), packs, raw);
    finish_row<T, THREADS, PACKS, RED, ST>(v, reinterpret_cast<uint4 *>(y + row * cols), packs, red[it & 1]);
  }
}

// ---- Reproductions of the library's kernels (calibration) ----

// block_reduce<kThreads>: butterfly, leading barrier, warp slots, thread-serial combine in warp order.
template <int THREADS, int TAG, class Op>
__device__ __forceinline__ float lib_block_reduce(float value, Op op) {
  constexpr int W = THREADS / 32;
  __shared__ float warp_results[W];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) value = op(value, __shfl_xor_sync(0xffffffffu, value, o));
  __syncthreads();
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = value;
  __syncthreads();
  value = warp_results[0];
#pragma unroll
  for (int w = 1; w < W; ++w) value = op(value, warp_results[w]);
  return value;
}

struct FMax {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct FAdd {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// softmax_rows_in_block_registers<T, P, 256> with kBlockRowPacks = 2 (softmax_row_in_registers body).
template <class T, int ST>
__device__ __forceinline__ void lib_reg(const T *x, T *y, int64_t rows, int64_t cols) {
  constexpr int kThreads = 256, kPacks = 2, P = kPack<T>;
  const int64_t packs = cols / P;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const uint4 *in = reinterpret_cast<const uint4 *>(x + row * cols);
    uint4 *out = reinterpret_cast<uint4 *>(y + row * cols);
    float v[kPacks][P];
    float max = neg_inf();
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const int64_t i = static_cast<int64_t>(j) * kThreads + threadIdx.x;
      if (i < packs) {
        unpack<T>(in[i], v[j]);
#pragma unroll
        for (int k = 0; k < P; ++k) max = fmaxf(max, v[j][k]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] = neg_inf();
      }
    }
    max = lib_block_reduce<kThreads, 0>(max, FMax{});
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const float e = __expf(v[j][k] - max);
        v[j][k] = e;
        sum += e;
      }
    }
    sum = lib_block_reduce<kThreads, 1>(sum, FAdd{});
    const float factor = 1.0f / sum;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const int64_t i = static_cast<int64_t>(j) * kThreads + threadIdx.x;
      if (i < packs) {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] *= factor;
        store16<ST>(out + i, pack<T>(v[j]));
      }
    }
  }
}

// softmax_rows_in_shared<T, P, 256>: cache_and_max (kUnroll = 4), cached_exp_sum, write_normalized.
template <class T, int ST>
__device__ __forceinline__ void lib_shm(const T *x, T *y, int64_t rows, int64_t cols) {
  constexpr int kThreads = 256, kUnroll = 4, P = kPack<T>;
  extern __shared__ uint4 cache[];
  const int64_t packs = cols / P;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const uint4 *in = reinterpret_cast<const uint4 *>(x + row * cols);
    uint4 *out = reinterpret_cast<uint4 *>(y + row * cols);
    float max = neg_inf();
    for (int64_t first = threadIdx.x; first < packs; first += static_cast<int64_t>(kThreads) * kUnroll) {
      uint4 r[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) r[u] = in[first + u * kThreads];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + u * kThreads < packs) {
          cache[first + u * kThreads] = r[u];
          float v[P];
          unpack<T>(r[u], v);
#pragma unroll
          for (int k = 0; k < P; ++k) max = fmaxf(max, v[k]);
        }
      }
    }
    max = lib_block_reduce<kThreads, 2>(max, FMax{});
    float sum = 0.f;
    for (int64_t i = threadIdx.x; i < packs; i += kThreads) {
      float v[P];
      unpack<T>(cache[i], v);
#pragma unroll
      for (int k = 0; k < P; ++k) sum += __expf(v[k] - max);
    }
    sum = lib_block_reduce<kThreads, 3>(sum, FAdd{});
    const float factor = 1.0f / sum;
    for (int64_t i = threadIdx.x; i < packs; i += kThreads) {
      float v[P];
      unpack<T>(cache[i], v);
#pragma unroll
      for (int k = 0; k < P; ++k) v[k] = __expf(v[k] - max) * factor;
      if constexpr (ST == 0) {
        out[i] = pack<T>(v);  // the library's plain struct store
      } else {
        store16<ST>(out + i, pack<T>(v));
      }
    }
  }
}

}  // namespace sq

// ---- extern "C" kernels ----

// lib_<reg|shm>_<dt>: the library as it is; lib_<reg|shm>_cs_<dt>: the same with st.global.cs stores.
#define SQ_LIB(dt, T, MINB_SHM)                                                                                    \
  extern "C" __global__ void __launch_bounds__(256) lib_reg_##dt(const T *x, T *y, long long rows,              \
                                                                 long long cols) {                              \
    sq::lib_reg<T, 0>(x, y, rows, cols);                                                                         \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) lib_reg_cs_##dt(const T *x, T *y, long long rows,           \
                                                                    long long cols) {                           \
    sq::lib_reg<T, 1>(x, y, rows, cols);                                                                         \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(256, MINB_SHM) lib_shm_##dt(const T *x, T *y, long long rows,    \
                                                                           long long cols) {                    \
    sq::lib_shm<T, 0>(x, y, rows, cols);                                                                         \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(256, MINB_SHM) lib_shm_cs_##dt(const T *x, T *y, long long rows, \
                                                                              long long cols) {                 \
    sq::lib_shm<T, 1>(x, y, rows, cols);                                                                         \
  }

SQ_LIB(f16, __half, 8)
SQ_LIB(bf16, __nv_bfloat16, 8)
SQ_LIB(f32, float, 6)

// sq_<dt>_t<THREADS>_p<PACKS>_b<MINB>_r<RED>_l<LD>_s<ST>_f<PERSIST>
#define SQ_K(dt, T, THREADS, PACKS, MINB, RED, LD, ST, PERSIST)                                                  \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB)                                                   \
      sq_##dt##_t##THREADS##_p##PACKS##_b##MINB##_r##RED##_l##LD##_s##ST##_f##PERSIST(const T *x, T *y,         \
                                                                                     long long rows,           \
                                                                                     long long cols) {         \
    if constexpr (PERSIST) {                                                                                    \
      sq::rows_persistent<T, THREADS, PACKS, RED, LD, ST>(x, y, rows, cols);                                    \
    } else {                                                                                                    \
      sq::row_per_block<T, THREADS, PACKS, RED, LD, ST>(x, y, rows, cols);                                      \
    }                                                                                                           \
  }

// 4096 columns, half types (512 packs of 8).
#define SQ_4096_HALF(dt, T)                 \
  SQ_K(dt, T, 256, 2, 8, 0, 0, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 0, 0, 0, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 0, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 1, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 2, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 3, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 4, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 1, 0, 0, 0)        \
  SQ_K(dt, T, 512, 1, 4, 1, 0, 1, 0)        \
  SQ_K(dt, T, 512, 1, 4, 0, 0, 1, 0)        \
  SQ_K(dt, T, 128, 4, 10, 1, 0, 1, 0)       \
  SQ_K(dt, T, 256, 2, 6, 1, 0, 1, 1)        \
  SQ_K(dt, T, 256, 2, 8, 0, 5, 1, 0)        \
  SQ_K(dt, T, 256, 2, 8, 0, 5, 0, 0)

// 8192 columns, half types (1024 packs of 8).
#define SQ_8192_HALF(dt, T)                 \
  SQ_K(dt, T, 512, 2, 4, 0, 0, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 0, 0, 0, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 0, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 1, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 2, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 3, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 4, 1, 0)        \
  SQ_K(dt, T, 512, 2, 4, 1, 0, 0, 0)        \
  SQ_K(dt, T, 1024, 1, 2, 1, 0, 1, 0)       \
  SQ_K(dt, T, 256, 4, 5, 1, 0, 1, 0)        \
  SQ_K(dt, T, 1024, 1, 2, 0, 0, 1, 0)       \
  SQ_K(dt, T, 512, 2, 3, 1, 0, 1, 1)

SQ_4096_HALF(f16, __half)
SQ_4096_HALF(bf16, __nv_bfloat16)
SQ_8192_HALF(f16, __half)
SQ_8192_HALF(bf16, __nv_bfloat16)

// 4096 columns, f32 (1024 packs of 4).
SQ_K(f32, float, 256, 4, 8, 0, 0, 1, 0)
SQ_K(f32, float, 256, 4, 8, 0, 0, 0, 0)
SQ_K(f32, float, 256, 4, 8, 1, 0, 1, 0)
SQ_K(f32, float, 256, 4, 8, 1, 1, 1, 0)
SQ_K(f32, float, 256, 4, 8, 1, 2, 1, 0)
SQ_K(f32, float, 256, 4, 8, 1, 3, 1, 0)
SQ_K(f32, float, 256, 4, 8, 1, 4, 1, 0)
SQ_K(f32, float, 256, 4, 8, 1, 0, 0, 0)
SQ_K(f32, float, 512, 2, 4, 1, 0, 1, 0)
SQ_K(f32, float, 1024, 1, 2, 1, 0, 1, 0)
SQ_K(f32, float, 128, 8, 8, 1, 0, 1, 0)
SQ_K(f32, float, 256, 4, 4, 1, 0, 1, 1)
SQ_K(f32, float, 256, 4, 8, 0, 5, 1, 0)
SQ_K(f32, float, 256, 4, 8, 0, 5, 0, 0)

// 8192 columns, f32 (2048 packs of 4).
SQ_K(f32, float, 512, 4, 4, 0, 0, 1, 0)
SQ_K(f32, float, 512, 4, 4, 0, 0, 0, 0)
SQ_K(f32, float, 512, 4, 4, 1, 0, 1, 0)
SQ_K(f32, float, 512, 4, 4, 1, 1, 1, 0)
SQ_K(f32, float, 512, 4, 4, 1, 2, 1, 0)
SQ_K(f32, float, 512, 4, 4, 1, 3, 1, 0)
SQ_K(f32, float, 512, 4, 4, 1, 4, 1, 0)
SQ_K(f32, float, 512, 4, 4, 1, 0, 0, 0)
SQ_K(f32, float, 1024, 2, 2, 1, 0, 1, 0)
SQ_K(f32, float, 256, 8, 4, 1, 0, 1, 0)
SQ_K(f32, float, 512, 4, 2, 1, 0, 1, 1)
