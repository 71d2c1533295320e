// Lab: reduce_sum over the last axis (row sums) and to a scalar, f16 / bf16 / f32 (f32 accumulation,
// output in the input dtype). Run by bench/lab/reduce_rows.py; see that file for the candidates.
//
// Two families of kernels:
//   cur_*  : a faithful copy of ops/reduce_sum/nvidia/kernel.cuh's row kernels (sum_rows_by_group,
//            sum_rows_by_block, split rows + a second pass), with one extra knob, the load's cache
//            policy (POL 0 is exactly the library's plain 128-bit load; registers match the library's
//            build: 51/48 short, 76/79 warp, 72/68/71 block, 80/71 split for half/f32). The .py replicates
//            the library's dispatch (launch_rows / row_splits) so these calibrate the lab against
//            recorded_ours.
//   st_*   : "stream" kernels: every thread walks a flat list of (task, chunk) items with two register
//            buffers, so the next item's loads (the next chunk, or the next row's first chunk) are in
//            flight while the current item is summed and reduced. Modes:
//              grp: a group of W lanes (W <= 32, a template parameter) per row, rows grid-strided
//              blk: a block of B threads per row, rows grid-strided; one __syncthreads per row
//              tk : rows split into S parts (a block each); the last block of a row to finish (ticket
//                   counter, __threadfence) sums the row's S partials in a fixed order: ONE kernel
//              sp : the same split, partials written to a workspace, summed by a second kernel
//            All adds are in a fixed order (no float atomics): results repeat bit for bit.
// Self-contained (dtype.cuh is not includable with build.sh's include path: it needs include/).
// Tested on the CPU through the repo's SIMT emulator (tools/metax_standin/simt, 32-lane warps) with plain
// loads (POL 0): every mode's sums, warp-uniform shuffles, block-uniform barriers, determinism, ticket
// reset; the emulator runs blocks one after another, so the ticket's cross-block ordering is not tested.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace lab {

constexpr int kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};
template <class T>
constexpr int kPack = 16 / static_cast<int>(sizeof(T));

template <class To, class From>
__device__ __forceinline__ To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(value));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(value));
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(value));
  } else {
    return static_cast<To>(value);
  }
}

// ---- Loads with a cache policy ----
// POL 0: plain ld.global (the library's); 1: ld.global.nc.L1::no_allocate; 2: Triton's evict_first
// (ld.global.L1::evict_first.L2::cache_hint with a createpolicy.fractional.L2::evict_first policy);
// 3: ld.global.cs (__ldcs: evict-first streaming).
template <int POL>
__device__ __forceinline__ uint64_t make_policy() {
  uint64_t policy = 0;
  if constexpr (POL == 2) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <int POL, class Vec>
__device__ __forceinline__ Vec load_pack(const Vec *p, uint64_t policy) {
  static_assert(sizeof(Vec) == 16, "128-bit packs");
  if constexpr (POL == 0) {
    return *p;
  } else {
    uint4 r;
    if constexpr (POL == 1) {
      asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
          : "l"(p));
    } else if constexpr (POL == 2) {
      asm("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
          : "l"(p), "l"(policy));
    } else {
      asm("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    }
    Vec v;
    memcpy(&v, &r, sizeof(v));
    return v;
  }
}

// ---- Copied from ops/common/cuda_dialect/reduce.cuh (NVIDIA paths) ----
template <class V>
__device__ __forceinline__ V warp_reduce(V value, int width = kWarp) {
  for (int offset = width / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(kFull, value, offset, width);
  return value;
}

template <int kThreads, class V>
__device__ __forceinline__ V block_reduce(V value) {
  constexpr int kWarps = kThreads / kWarp;
  __shared__ V warp_results[kWarps];
  value = warp_reduce(value);
  if constexpr (kWarps == 1) return value;
  __syncthreads();
  if (threadIdx.x % kWarp == 0) warp_results[threadIdx.x / kWarp] = value;
  __syncthreads();
  value = warp_results[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) value += warp_results[w];
  return value;
}

template <int kThreads>
struct RowGroups {
  int lane, group;
  int64_t first_row, step;
  __device__ __forceinline__ explicit RowGroups(int width) {
    const int64_t thread = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    lane = threadIdx.x % width;
    group = threadIdx.x % kWarp / width;
    first_row = thread / kWarp * (kWarp / width);
    step = static_cast<int64_t>(gridDim.x) * (kThreads / width);
  }
};

template <class C, class T, int P>
__device__ __forceinline__ void unpack(const Pack<T, P> pack, C (&values)[P]) {
  if constexpr (std::is_same_v<C, float> && sizeof(T) == 2 && P % 2 == 0) {
    uint32_t words[P / 2];
    memcpy(words, &pack, sizeof(words));
#pragma unroll
    for (int w = 0; w < P / 2; ++w) {
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        values[2 * w] = __uint_as_float(words[w] << 16);
        values[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
      } else {
        __half2 halves;
        memcpy(&halves, &words[w], sizeof(halves));
        const float2 pair = __half22float2(halves);
        values[2 * w] = pair.x;
        values[2 * w + 1] = pair.y;
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < P; ++k) values[k] = convert<C>(pack.v[k]);
  }
}

// ---- Copied from ops/reduce_sum/nvidia/kernel.cuh ----
constexpr int kThreads = 256;
constexpr int kLongUnroll = 8;

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

template <int kUnroll, int POL, class C, class Index = int64_t, class In>
__device__ __forceinline__ C thread_partial_sum(const In *row, Index n, int thread, int threads, uint64_t policy) {
  constexpr int P = kPack<In>;
  using Vec = Pack<In, P>;
  C sum = 0;
  const Index misalignment = static_cast<Index>(reinterpret_cast<uintptr_t>(row) % 16 / sizeof(In));
  const Index head = misalignment == 0 ? 0 : (n < P - misalignment ? n : P - misalignment);
  for (Index i = thread; i < head; i += threads) sum += convert<C>(row[i]);
  const Vec *packs = reinterpret_cast<const Vec *>(row + head);
  const Index pack_count = (n - head) / P;
  for (Index first = thread; first < pack_count; first += static_cast<Index>(threads) * kUnroll) {
    Vec v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * threads < pack_count) v[u] = load_pack<POL>(&packs[first + u * threads], policy);  // index first, as the library
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * threads < pack_count) sum += pack_sum<C>(v[u]);
    }
  }
  for (Index i = head + pack_count * P + thread; i < n; i += threads) sum += convert<C>(row[i]);
  return sum;
}

// sum_rows_by_group's body.
template <class In, class Out, int kUnroll, class Index, int kWidth, int POL>
__device__ __forceinline__ void cur_group(const In *x, Out *y, int64_t rows, int64_t length, int width) {
  const uint64_t policy = make_policy<POL>();
  if constexpr (kWidth > 0) width = kWidth;
  const RowGroups<kThreads> groups(width);
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    const int64_t row = first + groups.group;
    float sum = row < rows ? thread_partial_sum<kUnroll, POL, float, Index>(x + row * length, static_cast<Index>(length),
                                                                           groups.lane, width, policy)
                           : 0.f;
    sum = warp_reduce(sum, width);
    if (row < rows && groups.lane == 0) y[row] = convert<Out>(sum);
  }
}

// sum_rows_by_block's body.
template <class In, class Out, int kBlock, bool kSplit, int POL>
__device__ __forceinline__ void cur_block(const In *x, Out *y, int64_t rows, int64_t length, int64_t splits) {
  const uint64_t policy = make_policy<POL>();
  if constexpr (!kSplit) splits = 1;
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, part = task % splits;
    float sum = thread_partial_sum<kLongUnroll, POL, float>(x + row * length, length,
                                                            static_cast<int>(part) * kBlock + threadIdx.x,
                                                            static_cast<int>(splits) * kBlock, policy);
    sum = block_reduce<kBlock>(sum);
    if (threadIdx.x == 0) y[task] = convert<Out>(sum);
  }
}

// ---- Stream kernels ----
enum Mode { kGroupMode = 0, kBlockMode = 1, kTicketMode = 2, kPartialsMode = 3 };

// Rows of `length` elements (length % pack == 0, x 16-byte aligned: the host checks). MODE:
//   kGroupMode   : groups of W lanes (power of two <= 32) per row; task = row.
//   kBlockMode   : the block (W = B) per row; task = row.
//   kTicketMode  : the block per part; task = row * S + part; a part takes chunks part, part + S, ...
//                  of the row (a chunk = B * U packs); the last part to finish sums the row.
//   kPartialsMode: as kTicketMode, but y (float) gets the S partials of each row.
// Tasks are grid-strided; each unit (group or block) runs `count` tasks of `cpt` chunks, an item each,
// loading item i + 1 before it sums item i.
template <class T, class Out, int B, int W, int U, int MODE, int POL>
__device__ __forceinline__ void stream_rows(const T *__restrict__ x, Out *__restrict__ y, float *partials,
                                            unsigned *counters, int64_t rows, int64_t length, int64_t S) {
  constexpr int P = kPack<T>;
  using Vec = Pack<T, P>;
  constexpr bool kGroup = MODE == kGroupMode;
  constexpr bool kSplit = MODE == kTicketMode || MODE == kPartialsMode;
  constexpr int kWarps = B / kWarp;
  static_assert(kGroup ? (W >= 1 && W <= kWarp && (W & (W - 1)) == 0) : W == B, "group: W <= 32; block: W == B");
  __shared__ float red[2][kWarps];
  __shared__ float red2[kWarps];
  __shared__ int last_flag;

  const uint64_t policy = make_policy<POL>();
  const int packs = static_cast<int>(length / P);
  const Vec *xv = reinterpret_cast<const Vec *>(x);
  constexpr int width = W;
  const int lane = static_cast<int>(threadIdx.x % W);
  constexpr int chunk_packs = W * U;
  const int total_chunks = (packs + chunk_packs - 1) / chunk_packs;
  const int64_t parts = kSplit ? S : 1;  // parts per row

  int64_t first, step, ntasks, count;
  int cpt;
  if constexpr (kGroup) {
    const int64_t per_warp = kWarp / W;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * B + threadIdx.x) / kWarp;
    const int64_t warp_first = warp * per_warp;
    first = warp_first + (threadIdx.x % kWarp) / W;
    step = static_cast<int64_t>(gridDim.x) * kWarps * per_warp;
    ntasks = rows;
    count = warp_first < ntasks ? (ntasks - warp_first + step - 1) / step : 0;  // the same for the whole warp
    cpt = total_chunks;
  } else {
    first = blockIdx.x;
    step = gridDim.x;
    ntasks = rows * parts;
    count = first < ntasks ? (ntasks - first + step - 1) / step : 0;
    cpt = static_cast<int>((total_chunks + parts - 1) / parts);
  }
  if (count == 0 || cpt == 0) return;

  struct Cursor {
    int64_t task;
    int64_t row;  // kSplit only (else the row is the task)
    int part, j;  // part: kSplit only
  };
  auto start = [&](Cursor &c, int64_t task) {
    c.task = task;
    c.j = 0;
    if constexpr (kSplit) {
      c.row = task / parts;
      c.part = static_cast<int>(task - c.row * parts);
    }
  };
  auto row_of = [&](const Cursor &c) -> int64_t {
    if constexpr (kSplit) {
      return c.row;
    } else {
      return c.task;
    }
  };
  auto advance = [&](Cursor &c) {
    if (++c.j == cpt) start(c, c.task + step);
  };
  auto load = [&](Vec(&buf)[U], const Cursor &c) {
    int chunk = c.j;
    if constexpr (kSplit) chunk = c.part + c.j * static_cast<int>(parts);
    const bool ok = c.task < ntasks;
    const int offset = chunk * chunk_packs + lane;
    const Vec *base = xv + row_of(c) * packs + offset;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (ok && offset + u * width < packs) {
        buf[u] = load_pack<POL>(base + u * width, policy);
      } else {
        buf[u] = Vec{};
      }
    }
  };
  float acc = 0.f;
  int parity = 0;
  auto consume = [&](const Vec(&buf)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) acc += pack_sum<float>(buf[u]);
  };
  auto finish = [&](const Cursor &c) {
    if constexpr (kGroup) {
      const float v = warp_reduce(acc, W);
      if (lane == 0 && c.task < ntasks) y[c.task] = convert<Out>(v);
    } else {
      const float v = warp_reduce(acc);
      if (threadIdx.x % kWarp == 0) red[parity][threadIdx.x / kWarp] = v;
      __syncthreads();
      float total = 0.f;
      if (threadIdx.x == 0) {
        total = red[parity][0];
#pragma unroll
        for (int w = 1; w < kWarps; ++w) total += red[parity][w];
      }
      parity ^= 1;
      if constexpr (MODE == kBlockMode) {
        if (threadIdx.x == 0) y[c.task] = convert<Out>(total);
      } else if constexpr (MODE == kPartialsMode) {
        if (threadIdx.x == 0) y[c.task] = total;
      } else {
        if (threadIdx.x == 0) {
          partials[c.task] = total;
          __threadfence();
          const unsigned ticket = atomicAdd(&counters[c.row], 1u);
          last_flag = ticket == static_cast<unsigned>(parts - 1);
        }
        __syncthreads();
        if (last_flag) {
          __threadfence();
          float s = 0.f;
          const float *row_partials = partials + c.row * parts;
          for (int64_t i = threadIdx.x; i < parts; i += B) s += __ldcg(row_partials + i);
          s = warp_reduce(s);
          if (threadIdx.x % kWarp == 0) red2[threadIdx.x / kWarp] = s;
          __syncthreads();
          if (threadIdx.x == 0) {
            float t = red2[0];
#pragma unroll
            for (int w = 1; w < kWarps; ++w) t += red2[w];
            y[c.row] = convert<Out>(t);
            counters[c.row] = 0u;  // ready for the next launch
          }
        }
      }
    }
    acc = 0.f;
  };

  Vec a[U], b[U];
  Cursor lc, cc;
  start(lc, first);
  cc = lc;
  int64_t remaining = count * cpt;
  load(a, lc);
  advance(lc);
  for (;;) {
    if (remaining > 1) {
      load(b, lc);
      advance(lc);
    }
    consume(a);
    if (cc.j == cpt - 1) finish(cc);
    advance(cc);
    if (--remaining == 0) break;
    if (remaining > 1) {
      load(a, lc);
      advance(lc);
    }
    consume(b);
    if (cc.j == cpt - 1) finish(cc);
    advance(cc);
    if (--remaining == 0) break;
  }
}

}  // namespace lab

// ---- Kernels (extern "C": cupy finds them by plain name) ----
// (LAB_NO_KERNELS: the templates alone, for a host test through tools/metax_standin/simt.)
#ifndef LAB_NO_KERNELS
// The library's signatures (width is an int: pass np.int32 from Python; everything else int64):
// cur_short_<dt>_p<POL>   : sum_rows_by_group<T, T, 4, 1, int, 0>      (x, y, rows, length, int width)
// cur_warp_<dt>_p<POL>    : sum_rows_by_group<T, T, 8, 1, int64_t, 32> (x, y, rows, length, int width)
// cur_block<B>_<dt>_p<POL>: sum_rows_by_block<T, T, B, false>         (x, y, rows, length, splits)
// cur_split_<dt>_p<POL>   : sum_rows_by_block<T, float, 256, true>    (x, partials, rows, length, splits)
// cur_fin_<dt>            : sum_rows_by_group<float, T, 4, 1, int, 0>  (partials, y, rows, splits, int width)
#define CUR_GROUP_KERNELS(DT, T, POL)                                                                               \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                              \
      cur_short_##DT##_p##POL(const T *x, T *y, int64_t rows, int64_t length, int width) {                          \
    lab::cur_group<T, T, 4, int, 0, POL>(x, y, rows, length, width);                                                \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                              \
      cur_warp_##DT##_p##POL(const T *x, T *y, int64_t rows, int64_t length, int width) {                           \
    lab::cur_group<T, T, 8, int64_t, 32, POL>(x, y, rows, length, width);                                           \
  }                                                                                                                 \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                              \
      cur_split_##DT##_p##POL(const T *x, float *y, int64_t rows, int64_t length, int64_t splits) {                 \
    lab::cur_block<T, float, 256, true, POL>(x, y, rows, length, splits);                                           \
  }
#define CUR_BLOCK_KERNEL(DT, T, B, POL)                                                                             \
  extern "C" __global__ void __launch_bounds__(B, 256 / B)                                                          \
      cur_block##B##_##DT##_p##POL(const T *x, T *y, int64_t rows, int64_t length, int64_t splits) {                \
    lab::cur_block<T, T, B, false, POL>(x, y, rows, length, splits);                                                \
  }
#define CUR_FIN_KERNEL(DT, T)                                                                                       \
  extern "C" __global__ void __launch_bounds__(256, 1)                                                              \
      cur_fin_##DT(const float *x, T *y, int64_t rows, int64_t length, int width) {                                 \
    lab::cur_group<float, T, 4, int, 0, 0>(x, y, rows, length, width);                                              \
  }

// Stream kernels: (x, y, partials, counters, rows, length, S), all 64-bit.
//   st_grp_w<W>_u<U>_p<POL>_<dt>: groups of W lanes per row, blocks of 256
//   st_blk_b<B>_u<U>_p<POL>_<dt>: a block of B per row
//   st_tk_b<B>_u<U>_p<POL>_<dt> : split rows, last block sums (one kernel)
//   st_sp_b<B>_u<U>_p<POL>_<dt> : split rows, partials to y (float), for cur_fin_<dt>
// Registers allow 1024 threads per SM for U <= 4 (64 registers), 512 for U = 8 (128).
#define ST_MINB(B, U) (((U) <= 4 ? 1024 : 512) / (B))
#define ST_GRP(W, U, POL, DT, T)                                                                                    \
  extern "C" __global__ void __launch_bounds__(256, ST_MINB(256, U))                                                \
      st_grp_w##W##_u##U##_p##POL##_##DT(const T *x, T *y, float *partials, unsigned *counters, int64_t rows,       \
                                         int64_t length, int64_t S) {                                               \
    lab::stream_rows<T, T, 256, W, U, lab::kGroupMode, POL>(x, y, partials, counters, rows, length, S);             \
  }
#define ST_BLK(NAME, MODE, B, U, POL, DT, T, OUT)                                                                   \
  extern "C" __global__ void __launch_bounds__(B, ST_MINB(B, U))                                                    \
      st_##NAME##_b##B##_u##U##_p##POL##_##DT(const T *x, OUT *y, float *partials, unsigned *counters,              \
                                               int64_t rows, int64_t length, int64_t S) {                           \
    lab::stream_rows<T, OUT, B, B, U, MODE, POL>(x, y, partials, counters, rows, length, S);                        \
  }

#define ALL_KERNELS(DT, T)                                     \
  CUR_GROUP_KERNELS(DT, T, 0)                                  \
  CUR_GROUP_KERNELS(DT, T, 2)                                  \
  CUR_GROUP_KERNELS(DT, T, 1)                                  \
  CUR_GROUP_KERNELS(DT, T, 3)                                  \
  CUR_BLOCK_KERNEL(DT, T, 64, 0)                               \
  CUR_BLOCK_KERNEL(DT, T, 128, 0)                              \
  CUR_BLOCK_KERNEL(DT, T, 256, 0)                              \
  CUR_BLOCK_KERNEL(DT, T, 64, 2)                               \
  CUR_BLOCK_KERNEL(DT, T, 128, 2)                              \
  CUR_BLOCK_KERNEL(DT, T, 256, 2)                              \
  CUR_BLOCK_KERNEL(DT, T, 128, 1)                              \
  CUR_BLOCK_KERNEL(DT, T, 256, 1)                              \
  CUR_BLOCK_KERNEL(DT, T, 128, 3)                              \
  CUR_BLOCK_KERNEL(DT, T, 256, 3)                              \
  CUR_FIN_KERNEL(DT, T)                                        \
  ST_GRP(8, 2, 2, DT, T)                                       \
  ST_GRP(16, 2, 2, DT, T)                                      \
  ST_GRP(32, 2, 2, DT, T)                                      \
  ST_GRP(4, 4, 2, DT, T)                                       \
  ST_GRP(8, 4, 2, DT, T)                                       \
  ST_GRP(16, 4, 2, DT, T)                                      \
  ST_GRP(32, 4, 2, DT, T)                                      \
  ST_GRP(2, 8, 2, DT, T)                                       \
  ST_GRP(4, 8, 2, DT, T)                                       \
  ST_GRP(8, 8, 2, DT, T)                                       \
  ST_GRP(16, 8, 2, DT, T)                                      \
  ST_BLK(blk, lab::kBlockMode, 128, 4, 2, DT, T, T)            \
  ST_BLK(blk, lab::kBlockMode, 256, 4, 2, DT, T, T)            \
  ST_BLK(tk, lab::kTicketMode, 256, 4, 2, DT, T, T)            \
  ST_BLK(tk, lab::kTicketMode, 256, 4, 0, DT, T, T)            \
  ST_BLK(tk, lab::kTicketMode, 256, 8, 2, DT, T, T)            \
  ST_BLK(sp, lab::kPartialsMode, 256, 4, 2, DT, T, float)

ALL_KERNELS(f16, __half)
ALL_KERNELS(bf16, __nv_bfloat16)
ALL_KERNELS(f32, float)
#endif  // LAB_NO_KERNELS
