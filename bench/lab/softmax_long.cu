// Lab softmax_long: softmax over the last axis of few, very long rows on the H200 (128x131072, 16x262144,
// 1x1048576; log_softmax 128x131072), where QuACK's cluster-per-row kernel leads. bench/lab/softmax_long.py
// launches these kernels (one per candidate x dtype, names <candidate>_<f16|bf16|f32>[_log]), checks and
// times them. Candidates:
//   lib_cluster8  the library's cluster tier as it is (cluster_rows.cuh: 8 blocks of 256 per row, the part
//                 cached in shared memory, two block reductions, cluster.sync, three passes) -- calibration
//   lib_split     the library's split tier as it is (split_rows.cuh: part stats kernel + output kernel,
//                 x read twice) -- what 16x262144 and 1x1048576 run today (16 rows x 8 < 132 SMs)
//   creg          a cluster of CL blocks per row, the part in registers: every load of the part issued at
//                 once (ld.global.nc.L1::no_allocate), one exp per element (thread-local max, ex2.approx with
//                 log2(e) folded into an FFMA), a single exchange of per-warp (max, sum) pairs pushed into
//                 every block's shared memory with st.async (mbarrier complete_tx; no cluster barrier, whose
//                 release arrive compiles to MEMBAR.ALL.GPU), st.global.cs stores
//   tma           persistent clusters: a cluster of CL blocks owns rows cid, cid + clusters, ...; each block
//                 streams its part of each row into an NS-stage shared-memory ring with 1-D bulk copies
//                 (cp.async.bulk + mbarrier complete_tx) issued NS rows ahead, so HBM reads never stop
//                 while the block reduces / exchanges / writes the previous row; one wave, no tail (the
//                 library's 1024 blocks of 128x131072 make 1.3 waves); the row math and exchange as creg
//   gx            no clusters: G blocks per row (any G, ragged last part), the part in registers, the
//                 blocks' (max, sum) exchanged through global memory with a per-row arrival ticket
//                 (atomicAdd; the counter only grows, so it needs no reset), launched cooperatively so
//                 that all blocks are co-resident (the launch fails rather than deadlocks otherwise)
// Every wait has a 20 ms timeout that sets *err and carries on (a broken candidate reports, never hangs).
// Results are deterministic: partial stats are combined in a fixed order, butterflies are commutative.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace lab {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr unsigned long long kTimeoutNs = 20ull * 1000 * 1000;

// ---- storage types: 16-byte packs <-> floats ----

template <class T>
struct Io;

template <>
struct Io<float> {
  static constexpr int P = 4;
  static constexpr uint32_t kNegInfWord = 0xff800000u;
  __device__ __forceinline__ static void unpack(const uint4 v, float *f) {
    f[0] = __uint_as_float(v.x);
    f[1] = __uint_as_float(v.y);
    f[2] = __uint_as_float(v.z);
    f[3] = __uint_as_float(v.w);
  }
  __device__ __forceinline__ static uint4 pack(const float *f) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};

__device__ __forceinline__ uint32_t half2_bits(float a, float b) {
  const __half2 h = __floats2half2_rn(a, b);
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

__device__ __forceinline__ uint32_t bf162_bits(float a, float b) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

__device__ __forceinline__ void half2_floats(uint32_t u, float *f) {
  __half2 h;
  memcpy(&h, &u, 4);
  const float2 p = __half22float2(h);
  f[0] = p.x;
  f[1] = p.y;
}

template <>
struct Io<__half> {
  static constexpr int P = 8;
  static constexpr uint32_t kNegInfWord = 0xfc00fc00u;
  __device__ __forceinline__ static void unpack(const uint4 v, float *f) {
    half2_floats(v.x, f);
    half2_floats(v.y, f + 2);
    half2_floats(v.z, f + 4);
    half2_floats(v.w, f + 6);
  }
  __device__ __forceinline__ static uint4 pack(const float *f) {
    return make_uint4(half2_bits(f[0], f[1]), half2_bits(f[2], f[3]), half2_bits(f[4], f[5]), half2_bits(f[6], f[7]));
  }
};

template <>
struct Io<__nv_bfloat16> {
  static constexpr int P = 8;
  static constexpr uint32_t kNegInfWord = 0xff80ff80u;
  __device__ __forceinline__ static void unpack(const uint4 v, float *f) {
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      f[2 * k] = __uint_as_float(w[k] << 16);
      f[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u);
    }
  }
  __device__ __forceinline__ static uint4 pack(const float *f) {
    return make_uint4(bf162_bits(f[0], f[1]), bf162_bits(f[2], f[3]), bf162_bits(f[4], f[5]), bf162_bits(f[6], f[7]));
  }
};

// ---- PTX wrappers ----

__device__ __forceinline__ uint4 ld_stream(const void *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// The library's load of a pack read once (row_math.cuh, load_pack_once): evict-first in L1 and L2.
__device__ __forceinline__ uint4 ld_evict_first(const void *p) {
  uint4 v;
  asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

__device__ __forceinline__ void st_stream(void *p, const uint4 v) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ uint4 ld_shared_v4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}

__device__ __forceinline__ float ex2(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned long long global_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned cluster_id_x() {
  unsigned r;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned cluster_count_x() {
  unsigned r;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// st.async of (a, b) to the shared address `local` (this block's view) in block `rank` of the cluster,
// completing 8 bytes of transactions on that block's mbarrier at `bar` (this block's view).
__device__ __forceinline__ void st_async_f2(uint32_t local, uint32_t bar, unsigned rank, float a, float b) {
  uint32_t remote, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(bar), "r"(rank));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(remote),
               "f"(a), "f"(b), "r"(remote_bar)
               : "memory");
}

__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// Waits for the phase of `parity` to complete; after kTimeoutNs sets *err and returns anyway.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity, int *err) {
  if (mbar_try_wait(bar, parity)) return;
  const unsigned long long start = global_timer();
  while (!mbar_try_wait(bar, parity)) {
    if (global_timer() - start > kTimeoutNs) {
      atomicExch(err, 1);
      return;
    }
  }
}

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Spins until *p has reached target (wrapping compare); after kTimeoutNs sets *err and returns anyway.
__device__ __forceinline__ void spin_until(const unsigned *p, unsigned target, int *err) {
  if (static_cast<int>(ld_acquire(p) - target) >= 0) return;
  const unsigned long long start = global_timer();
  while (static_cast<int>(ld_acquire(p) - target) < 0) {
    if (global_timer() - start > kTimeoutNs) {
      atomicExch(err, 3);
      return;
    }
  }
}

// ---- row statistics: (max, sum of exp(x - max)), combined in any grouping ----

struct Stat {
  float m, s;
};

__device__ __forceinline__ Stat empty_stat() { return {kNegInf, 0.f}; }

// NaN rules of combine, warp_allreduce, cluster_exchange and crep_body: kNanNone (crep: fmaxf drops a NaN max,
// and with it a part of NaNs whose max was -inf), kNanInMax (crepn, session 14: the library's CombineStats rule: a
// NaN sum gives the stat a NaN max, which the combine keeps, by branches), kNanInSum (crepm, session 15: the max
// skips NaN and the NaN rides in the sum; the factor, not the product, is 0 for an all -inf part; no branches).
enum NanRule { kNanNone, kNanInMax, kNanInSum };

// Commutative (so every lane of a butterfly gets the same bits); an all -inf part adds nothing.
template <int kNan = kNanNone>
__device__ __forceinline__ Stat combine(Stat a, Stat b) {
  if constexpr (kNan == kNanInMax) {
    if (a.m != a.m || b.m != b.m) return {__int_as_float(0x7fffffff), __int_as_float(0x7fffffff)};
  }
  const float m = fmaxf(a.m, b.m);
  if constexpr (kNan == kNanInSum) {
    const float fa = ex2((a.m - m) * kLog2e), fb = ex2((b.m - m) * kLog2e);
    return {m, a.s * (a.m == kNegInf ? 0.f : fa) + b.s * (b.m == kNegInf ? 0.f : fb)};
  }
  const float sa = a.m == kNegInf ? 0.f : a.s * ex2((a.m - m) * kLog2e);
  const float sb = b.m == kNegInf ? 0.f : b.s * ex2((b.m - m) * kLog2e);
  return {m, sa + sb};
}

template <int kNan = kNanNone>
__device__ __forceinline__ Stat warp_allreduce(Stat st) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const Stat other = {__shfl_xor_sync(0xffffffffu, st.m, o), __shfl_xor_sync(0xffffffffu, st.s, o)};
    st = combine<kNan>(st, other);
  }
  return st;
}

// This thread's max m and sum of exp(x - m); for softmax f becomes exp(x - m) (one exp per element),
// for log_softmax f keeps x.
template <int N, bool LOG>
__device__ __forceinline__ Stat thread_stats(float (&f)[N]) {
  float m0 = f[0], m1 = f[1];
#pragma unroll
  for (int i = 2; i < N; i += 2) {
    m0 = fmaxf(m0, f[i]);
    m1 = fmaxf(m1, f[i + 1]);
  }
  const float m = fmaxf(m0, m1);
  const float ml = m == kNegInf ? 0.f : m * kLog2e;
  float s0 = 0.f, s1 = 0.f;
#pragma unroll
  for (int i = 0; i < N; i += 2) {
    const float e0 = ex2(fmaf(f[i], kLog2e, -ml));
    const float e1 = ex2(fmaf(f[i + 1], kLog2e, -ml));
    s0 += e0;
    s1 += e1;
    if constexpr (!LOG) {
      f[i] = e0;
      f[i + 1] = e1;
    }
  }
  return {m, s0 + s1};
}

// y = f * exp(m_thread - M) / S (softmax) or x - M - log S (log_softmax); packs j of this thread are at
// out + (j * THREADS + threadIdx.x) * P; with MASK only those below len are stored.
template <class T, int THREADS, int EPT, bool LOG, bool MASK>
__device__ __forceinline__ void normalize_store(float (&f)[EPT], float m_thread, Stat total, T *out, int len) {
  constexpr int P = Io<T>::P;
  if constexpr (LOG) {
    const float c = total.m + logf(total.s);
#pragma unroll
    for (int i = 0; i < EPT; ++i) f[i] -= c;
  } else {
    const float factor = m_thread == kNegInf ? 0.f : ex2((m_thread - total.m) * kLog2e) / total.s;
#pragma unroll
    for (int i = 0; i < EPT; ++i) f[i] *= factor;
  }
#pragma unroll
  for (int j = 0; j < EPT / P; ++j) {
    const int idx = (j * THREADS + static_cast<int>(threadIdx.x)) * P;
    if (!MASK || idx < len) st_stream(out + idx, Io<T>::pack(f + j * P));
  }
}

// Pushes this warp's stats into slot [rank * W + warp] of every block of the cluster with st.async, each
// completing 8 bytes on that block's exchange mbarrier `bar` (armed here by thread 0 with the CL * W * 8
// bytes it receives), waits for this block's phase `parity`, and combines all CL * W slots in slot order
// (every thread of every block gets the same bits). No cluster barrier, so no release fence (a
// barrier.cluster.arrive.release compiles to MEMBAR.ALL.GPU, which waits for the previous row's stores;
// so does fence.proxy.async without a state space). A slot is rewritten (row k + 2) only after every block
// has pushed row k + 1, which each does after its reads of row k's slots have returned their values.
template <int CL, int W, int kNan = kNanNone>
__device__ __forceinline__ Stat cluster_exchange(Stat warp_stat, float2 *slots, uint32_t bar, uint32_t parity,
                                                 unsigned rank, int *err) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) mbar_expect_tx(bar, CL * W * 8);
  if (lane < CL) st_async_f2(smem_addr(&slots[rank * W + warp]), bar, lane, warp_stat.m, warp_stat.s);
  mbar_wait(bar, parity, err);
  Stat total = empty_stat();
  for (int i = lane; i < CL * W; i += 32) {
    const float2 p = slots[i];
    total = combine<kNan>(total, {p.x, p.y});
  }
  return warp_allreduce<kNan>(total);
}

// ---- creg: a cluster of CL blocks per row, the part in registers, one exchange ----

// The start creg, creo and crep share: checks the row length (uniform over the grid: no block waits on another;
// false where it is not CL parts), initializes this block's exchange mbarrier `xbar`, arrives on the cluster
// barrier (this block runs and its mbarrier is initialized: waited on before the first push), and issues every
// load of this block's part of its row into v.
template <class T, int CL, int THREADS, int NV, bool kEvictFirst = false>
__device__ __forceinline__ bool load_cluster_part(const T *__restrict__ x, long long cols, int *err,
                                                  unsigned long long *xbar, uint4 (&v)[NV], unsigned *rank,
                                                  long long *row) {
  constexpr int P = Io<T>::P, CHUNK = THREADS * NV * P;
  if (cols != static_cast<long long>(CL) * CHUNK) {
    if (threadIdx.x == 0) atomicExch(err, 2);
    return false;
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_addr(xbar), 1);
    fence_mbar_init();
  }
  cluster_arrive_relaxed();
  *rank = cluster_rank();
  *row = cluster_id_x();
  const T *in = x + *row * cols + static_cast<long long>(*rank) * CHUNK;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    const T *at = in + (j * THREADS + threadIdx.x) * P;
    v[j] = kEvictFirst ? ld_evict_first(at) : ld_stream(at);
  }
  return true;
}

template <class T, int CL, int THREADS, int EPT, bool LOG>
__device__ __forceinline__ void creg_body(const T *__restrict__ x, T *__restrict__ y, long long cols, int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32, CHUNK = THREADS * EPT;
  static_assert(EPT % P == 0 && EPT % 2 == 0, "whole packs");
  __shared__ float2 slots[CL * W];
  __shared__ __align__(8) unsigned long long xbar;
  unsigned rank;
  long long row;
  uint4 v[NV];
  if (!load_cluster_part<T, CL, THREADS>(x, cols, err, &xbar, v, &rank, &row)) return;
  float f[EPT];
#pragma unroll
  for (int j = 0; j < NV; ++j) Io<T>::unpack(v[j], f + j * P);
  const Stat mine = thread_stats<EPT, LOG>(f);
  const Stat warp_stat = warp_allreduce(mine);
  cluster_wait();
  const Stat total = cluster_exchange<CL, W>(warp_stat, slots, smem_addr(&xbar), 0, rank, err);
  normalize_store<T, THREADS, EPT, LOG, false>(f, mine.m, total, y + row * cols + static_cast<long long>(rank) * CHUNK,
                                               CHUNK);
}

// ---- creo (session 13): creg with each pack exponentiated as soon as it has landed ----
// creg takes the thread's max over all its packs before the first exponential, so the MUFU work of a part
// starts once its last load has landed. Here pack j is exponentiated against the running max of packs 0..j
// (shift c_j = that max x log2 e, kept per pack), the sum rescaled by 2^(c_(j-1) - c_j) as the max grows, so the
// first packs' exponentials overlap the later packs' loads; each pack is normalized by 2^(c_j - C) / S.
// G packs share a shift (G = 1: every pack). Softmax only (log_softmax keeps x); 2 NV / G extra ex2 per thread.
template <int NV, int P, int G>
__device__ __forceinline__ Stat thread_stats_online(float (&f)[NV * P], float (&shift)[NV / G]) {
  constexpr int kGroup = G * P;  // values per group of G packs, one shift each
  float run = kNegInf, sum = 0.f, previous = 0.f;
#pragma unroll
  for (int g = 0; g < NV / G; ++g) {
    float m = f[g * kGroup];
#pragma unroll
    for (int k = 1; k < kGroup; ++k) m = fmaxf(m, f[g * kGroup + k]);
    run = fmaxf(run, m);
    const float c = run == kNegInf ? 0.f : run * kLog2e;
    if (g > 0) sum *= ex2(previous - c);  // c >= previous: a factor <= 1
    float s0 = 0.f, s1 = 0.f;
#pragma unroll
    for (int k = 0; k < kGroup; k += 2) {
      f[g * kGroup + k] = ex2(fmaf(f[g * kGroup + k], kLog2e, -c));
      f[g * kGroup + k + 1] = ex2(fmaf(f[g * kGroup + k + 1], kLog2e, -c));
      s0 += f[g * kGroup + k];
      s1 += f[g * kGroup + k + 1];
    }
    sum += s0 + s1;
    shift[g] = c;
    previous = c;
  }
  return {run, sum};
}

template <class T, int CL, int THREADS, int EPT, int G>
__device__ __forceinline__ void creo_body(const T *__restrict__ x, T *__restrict__ y, long long cols, int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32, CHUNK = THREADS * EPT;
  static_assert(EPT % P == 0 && P % 2 == 0, "whole packs of pairs");
  __shared__ float2 slots[CL * W];
  __shared__ __align__(8) unsigned long long xbar;
  unsigned rank;
  long long row;
  uint4 v[NV];
  if (!load_cluster_part<T, CL, THREADS>(x, cols, err, &xbar, v, &rank, &row)) return;
  float f[EPT], shift[NV / G];
#pragma unroll
  for (int j = 0; j < NV; ++j) Io<T>::unpack(v[j], f + j * P);
  const Stat mine = thread_stats_online<NV, P, G>(f, shift);
  const Stat warp_stat = warp_allreduce(mine);
  cluster_wait();
  const Stat total = cluster_exchange<CL, W>(warp_stat, slots, smem_addr(&xbar), 0, rank, err);
  const float row_shift = total.m * kLog2e, inverse = 1.f / total.s;
  T *out = y + row * cols + static_cast<long long>(rank) * CHUNK;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    const float factor = mine.m == kNegInf ? 0.f : ex2(shift[j / G] - row_shift) * inverse;
#pragma unroll
    for (int k = 0; k < P; ++k) f[j * P + k] *= factor;
    st_stream(out + (j * THREADS + threadIdx.x) * P, Io<T>::pack(f + j * P));
  }
}

// ---- crep (session 13): the part held as loaded (packed 16-bit values, half creg's registers), every value
// exponentiated twice: once for the stats, once for y = 2^(x log2 e - C) / S with the row's C and S. Fewer
// registers allow more blocks per SM (more loads in flight); the price is a second MUFU pass.
// crep's unpack: f16 through volatile cvt, in program order (tried against the 4-block f16 kernel's 336-byte spill,
// which it did not change: that came from the first pass's conversions, now a max on packed pairs; run 3 timed
// this form, 20.2 us, where the library's PackedPart with __half22float2 took 21.6).
template <class T>
__device__ __forceinline__ void unpack_in_order(const uint4 v, float *f) {
  if constexpr (std::is_same_v<T, __half>) {
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      unsigned short lo = static_cast<unsigned short>(w[k] & 0xffffu), hi = static_cast<unsigned short>(w[k] >> 16);
      asm volatile("cvt.f32.f16 %0, %1;" : "=f"(f[2 * k]) : "h"(lo));
      asm volatile("cvt.f32.f16 %0, %1;" : "=f"(f[2 * k + 1]) : "h"(hi));
    }
  } else {
    Io<T>::unpack(v, f);
  }
}

// Hides the packs' values from the optimizer, so that each pass unpacks them again instead of keeping an earlier
// pass's floats alive (which, at 64 registers, spilled).
template <int NV>
__device__ __forceinline__ void launder(uint4 (&v)[NV]) {
#pragma unroll
  for (int j = 0; j < NV; ++j) asm volatile("" : "+r"(v[j].x), "+r"(v[j].y), "+r"(v[j].z), "+r"(v[j].w));
}

// kNan (NanRule): crepn and crepm make a row with a part of NaNs (max -inf by __hmax2, sum NaN) NaN, as the library.
template <class T, int CL, int THREADS, int EPT, bool kEvictFirst = false, int kNan = kNanNone>
__device__ __forceinline__ void crep_body(const T *__restrict__ x, T *__restrict__ y, long long cols, int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32, CHUNK = THREADS * EPT;
  static_assert(EPT % P == 0 && P % 2 == 0, "whole packs of pairs");
  __shared__ float2 slots[CL * W];
  __shared__ __align__(8) unsigned long long xbar;
  unsigned rank;
  long long row;
  uint4 v[NV];
  if (!load_cluster_part<T, CL, THREADS, NV, kEvictFirst>(x, cols, err, &xbar, v, &rank, &row)) return;
  float m;
  if constexpr (std::is_same_v<T, __half>) {  // the max of packed halves, no conversions
    __half2 mh = __half2(__ushort_as_half(0xfc00u), __ushort_as_half(0xfc00u));
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const uint32_t w[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        __half2 h;
        memcpy(&h, &w[k], 4);
        mh = __hmax2(mh, h);
      }
    }
    m = fmaxf(__low2float(mh), __high2float(mh));
  } else {
    float m0 = kNegInf, m1 = kNegInf;
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      float f[P];
      unpack_in_order<T>(v[j], f);
#pragma unroll
      for (int k = 0; k < P; k += 2) {
        m0 = fmaxf(m0, f[k]);
        m1 = fmaxf(m1, f[k + 1]);
      }
    }
    m = fmaxf(m0, m1);
  }
  const float c = m == kNegInf ? 0.f : m * kLog2e;
  launder(v);
  float s0 = 0.f, s1 = 0.f;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    float f[P];
    unpack_in_order<T>(v[j], f);
#pragma unroll
    for (int k = 0; k < P; k += 2) {
      s0 += ex2(fmaf(f[k], kLog2e, -c));
      s1 += ex2(fmaf(f[k + 1], kLog2e, -c));
    }
  }
  const float sum = s0 + s1;
  const Stat warp_stat = warp_allreduce<kNan>({kNan == kNanInMax && sum != sum ? sum : m, sum});
  cluster_wait();
  const Stat total = cluster_exchange<CL, W, kNan>(warp_stat, slots, smem_addr(&xbar), 0, rank, err);
  const float row_shift = total.m * kLog2e, inverse = 1.f / total.s;
  T *out = y + row * cols + static_cast<long long>(rank) * CHUNK;
  launder(v);
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    float f[P];
    unpack_in_order<T>(v[j], f);
#pragma unroll
    for (int k = 0; k < P; ++k) f[k] = ex2(fmaf(f[k], kLog2e, -row_shift)) * inverse;
    st_stream(out + (j * THREADS + threadIdx.x) * P, Io<T>::pack(f));
  }
}

// ---- cpa: creg with QuACK's loads: the part goes global -> shared memory by cp.async (16 bytes a
// copy, no registers held while in flight), then each thread reads back its own packs ----

template <class T, int CL, int THREADS, int EPT, bool LOG>
__device__ __forceinline__ void cpa_body(const T *__restrict__ x, T *__restrict__ y, long long cols, int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32, CHUNK = THREADS * EPT;
  static_assert(EPT % P == 0 && EPT % 2 == 0, "whole packs");
  extern __shared__ __align__(16) unsigned char staged[];
  __shared__ float2 slots[CL * W];
  __shared__ __align__(8) unsigned long long xbar;
  if (cols != static_cast<long long>(CL) * CHUNK) {
    if (threadIdx.x == 0) atomicExch(err, 2);
    return;
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_addr(&xbar), 1);
    fence_mbar_init();
  }
  cluster_arrive_relaxed();
  const unsigned rank = cluster_rank();
  const long long row = cluster_id_x();
  const T *in = x + row * cols + static_cast<long long>(rank) * CHUNK;
  const uint32_t base = smem_addr(staged) + threadIdx.x * 16;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(base + j * THREADS * 16),
                 "l"(in + (j * THREADS + threadIdx.x) * P)
                 : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  float f[EPT];
#pragma unroll
  for (int j = 0; j < NV; ++j) Io<T>::unpack(ld_shared_v4(base + j * THREADS * 16), f + j * P);
  const Stat mine = thread_stats<EPT, LOG>(f);
  const Stat warp_stat = warp_allreduce(mine);
  cluster_wait();
  const Stat total = cluster_exchange<CL, W>(warp_stat, slots, smem_addr(&xbar), 0, rank, err);
  normalize_store<T, THREADS, EPT, LOG, false>(f, mine.m, total, y + row * cols + static_cast<long long>(rank) * CHUNK,
                                               CHUNK);
}

// ---- tma: persistent clusters, each block streams its part of its rows through an NS-stage ring ----

template <class T, int CL, int THREADS, int EPT, int NS, bool LOG>
__device__ __forceinline__ void tma_body(const T *__restrict__ x, T *__restrict__ y, long long rows, long long cols,
                                         int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32, CHUNK = THREADS * EPT;
  constexpr uint32_t kChunkBytes = CHUNK * sizeof(T);
  constexpr uint32_t kPiece = kChunkBytes < 16384 ? kChunkBytes : 16384;
  static_assert(kChunkBytes % kPiece == 0 && kPiece % 16 == 0, "whole pieces");
  static_assert(EPT % P == 0 && EPT % 2 == 0, "whole packs");
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) unsigned long long full[NS];
  __shared__ __align__(8) unsigned long long xbar[2];  // exchange of rows with k & 1 == b: xbar[b], slots[b]
  __shared__ float2 slots[2][CL * W];
  if (cols != static_cast<long long>(CL) * CHUNK) {
    if (threadIdx.x == 0) atomicExch(err, 2);
    return;
  }
  const unsigned tid = threadIdx.x;
  const unsigned rank = cluster_rank(), cid = cluster_id_x(), clusters = cluster_count_x();
  const long long nk = static_cast<long long>(cid) < rows ? (rows - 1 - cid) / clusters + 1 : 0;
  const uint32_t ring0 = smem_addr(ring);
  if (tid == 0) {
#pragma unroll
    for (int s = 0; s < NS; ++s) mbar_init(smem_addr(&full[s]), 1);
    mbar_init(smem_addr(&xbar[0]), 1);
    mbar_init(smem_addr(&xbar[1]), 1);
    fence_mbar_init();
  }
  __syncthreads();
  const auto issue = [&](long long k) {  // row k of this cluster into stage k % NS (thread 0)
    const int s = static_cast<int>(k % NS);
    const long long row = cid + k * clusters;
    const char *src = reinterpret_cast<const char *>(x + row * cols + static_cast<long long>(rank) * CHUNK);
    const uint32_t bar = smem_addr(&full[s]), dst = ring0 + s * kChunkBytes;
    mbar_expect_tx(bar, kChunkBytes);
#pragma unroll
    for (uint32_t o = 0; o < kChunkBytes; o += kPiece) bulk_load(dst + o, src + o, kPiece, bar);
  };
  if (tid == 0) {
    for (long long k = 0; k < NS && k < nk; ++k) issue(k);
  }
  cluster_arrive_relaxed();  // every block of the cluster runs (and has its mbarriers) before any push
  cluster_wait();
  for (long long k = 0; k < nk; ++k) {
    const int s = static_cast<int>(k % NS);
    mbar_wait(smem_addr(&full[s]), static_cast<uint32_t>((k / NS) & 1), err);
    float f[EPT];
    const uint32_t base = ring0 + s * kChunkBytes + tid * 16;
#pragma unroll
    for (int j = 0; j < NV; ++j) Io<T>::unpack(ld_shared_v4(base + j * THREADS * 16), f + j * P);
    __syncthreads();  // stage s is read: refill it with row k + NS
    if (tid == 0 && k + NS < nk) {
      fence_proxy_async();
      issue(k + NS);
    }
    const Stat mine = thread_stats<EPT, LOG>(f);
    const Stat warp_stat = warp_allreduce(mine);
    // slots[b] / xbar[b], b = k & 1: a block pushes row k + 2 only after it has every block's push of row
    // k + 1, which each block makes after reading its slots of row k; so no block is two rows ahead.
    const Stat total =
        cluster_exchange<CL, W>(warp_stat, slots[k & 1], smem_addr(&xbar[k & 1]), (k >> 1) & 1, rank, err);
    const long long row = cid + k * clusters;
    normalize_store<T, THREADS, EPT, LOG, false>(f, mine.m, total,
                                                 y + row * cols + static_cast<long long>(rank) * CHUNK, CHUNK);
  }
}

// ---- gx: G blocks per row, stats exchanged through global memory (co-resident blocks only) ----

template <class T, int THREADS, int EPT, bool LOG>
__device__ __forceinline__ void gx_body(const T *__restrict__ x, T *__restrict__ y, long long cols, int parts,
                                        long long chunk, float2 *ws, unsigned *counters, int *err) {
  constexpr int P = Io<T>::P, NV = EPT / P, W = THREADS / 32;
  static_assert(EPT % P == 0 && EPT % 2 == 0, "whole packs");
  __shared__ float2 warp_slots[W];
  if (chunk > static_cast<long long>(THREADS) * EPT || chunk % P != 0) {  // uniform
    if (threadIdx.x == 0) atomicExch(err, 2);
    return;
  }
  const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
  const long long row = blockIdx.x / parts;
  const int part = blockIdx.x % parts;
  const long long begin = part * chunk;
  const int len = static_cast<int>(max(0ll, min(chunk, cols - begin)));
  const T *in = x + row * cols + begin;
  uint4 v[NV];
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    const int idx = (j * THREADS + static_cast<int>(tid)) * P;
    v[j] = make_uint4(Io<T>::kNegInfWord, Io<T>::kNegInfWord, Io<T>::kNegInfWord, Io<T>::kNegInfWord);
    if (idx < len) v[j] = ld_stream(in + idx);
  }
  float f[EPT];
#pragma unroll
  for (int j = 0; j < NV; ++j) Io<T>::unpack(v[j], f + j * P);
  const Stat mine = thread_stats<EPT, LOG>(f);
  const Stat warp_stat = warp_allreduce(mine);
  if (lane == 0) warp_slots[warp] = make_float2(warp_stat.m, warp_stat.s);
  __syncthreads();
  if (tid == 0) {
    Stat block = empty_stat();
#pragma unroll
    for (int w = 0; w < W; ++w) block = combine(block, {warp_slots[w].x, warp_slots[w].y});
    __stcg(&ws[row * parts + part], make_float2(block.m, block.s));
    __threadfence();
    unsigned *counter = counters + row * 32;
    const unsigned old = atomicAdd(counter, 1u);
    // Every launch adds `parts` per row, so a launch starts at a multiple of parts; wait for the next one.
    const unsigned target = (old / static_cast<unsigned>(parts) + 1u) * static_cast<unsigned>(parts);
    spin_until(counter, target, err);
    __threadfence();
  }
  __syncthreads();
  Stat total = empty_stat();
  for (int i = lane; i < parts; i += 32) {
    const float2 p = __ldcg(&ws[row * parts + i]);
    total = combine(total, {p.x, p.y});
  }
  total = warp_allreduce(total);
  normalize_store<T, THREADS, EPT, LOG, true>(f, mine.m, total, y + row * cols + begin, len);
}

}  // namespace lab

// ---- the library's tiers, reproduced (calibration against recorded_ours) ----
// A faithful copy of the device code of cluster_rows.cuh and split_rows.cuh with the helpers they use
// (block_shared_rows.cuh, row_math.cuh, reduce.cuh): the same loops (for_each_pack, kUnroll = 4 loads in
// flight), the same reductions, __expf, plain 128-bit loads and stores. (The library headers cannot be
// included here: dtype.cuh needs include/ on the include path, which build.sh does not pass.)

namespace lib {

constexpr int kThreads = 256, kUnroll = 4;

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return (a > b || a != a) ? a : b; }
};
struct SumOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

struct RowStats {
  float max, sum;
};
__device__ __forceinline__ RowStats empty_stats() { return {lab::kNegInf, 0.f}; }
__device__ __forceinline__ float rescaled_sum(const RowStats &s, float max) {
  return s.max == lab::kNegInf ? 0.f : s.sum * __expf(s.max - max);
}
struct CombineStats {
  __device__ __forceinline__ RowStats operator()(const RowStats &a, const RowStats &b) const {
    const float max = MaxOp{}(a.max, b.max);
    return {max, rescaled_sum(a, max) + rescaled_sum(b, max)};
  }
};
template <int n>
__device__ __forceinline__ void accumulate(RowStats &stats, const float (&values)[n]) {
  float max = stats.max;
#pragma unroll
  for (int k = 0; k < n; ++k) max = MaxOp{}(max, values[k]);
  float sum = rescaled_sum(stats, max);
#pragma unroll
  for (int k = 0; k < n; ++k) {
    if (values[k] != lab::kNegInf) sum += __expf(values[k] - max);
  }
  stats = {max, sum};
}
struct Normalizer {
  float max, factor;
  bool log;
  __device__ __forceinline__ Normalizer(float row_max, float sum, bool log_softmax)
      : max(row_max), factor(log_softmax ? logf(sum) : 1.f / sum), log(log_softmax) {}
  __device__ __forceinline__ float operator()(float x) const {
    const float shifted = x - max;
    return log ? shifted - factor : __expf(shifted) * factor;
  }
};

template <class V>
__device__ __forceinline__ V shuffle_xor(V value, int mask) {
  int words[sizeof(V) / 4];
  memcpy(words, &value, sizeof(V));
#pragma unroll
  for (int &w : words) w = __shfl_xor_sync(0xffffffffu, w, mask);
  memcpy(&value, words, sizeof(V));
  return value;
}
template <class V, class Op>
__device__ __forceinline__ V warp_reduce(V value, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, shuffle_xor(value, offset));
  return value;
}
template <int kBlockThreads, class V, class Op>
__device__ __forceinline__ V block_reduce(V value, Op op) {
  constexpr int kWarps = kBlockThreads / 32;
  __shared__ V warp_results[kWarps];
  value = warp_reduce(value, op);
  __syncthreads();
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = value;
  __syncthreads();
  value = warp_results[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w) value = op(value, warp_results[w]);
  return value;
}

template <int U, class Visit>
__device__ __forceinline__ void for_each_pack(const uint4 *in, int64_t start, int64_t count, int step, Visit visit) {
  for (int64_t first = start; first < count; first += static_cast<int64_t>(step) * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + u * step < count) v[u] = in[first + u * step];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + u * step < count) visit(first + u * step, v[u]);
    }
  }
}

// cluster_rows.cuh's softmax_rows_in_cluster<T, P, 256>, the cluster size fixed at compile time (the
// library sets it at launch) so that a plain cuLaunchKernel makes clusters.
template <class T>
__device__ __forceinline__ void cluster_body(const T *x, T *y, int64_t cols, int64_t chunk, bool log) {
  namespace cg = cooperative_groups;
  constexpr int P = lab::Io<T>::P;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  __shared__ RowStats part_stats;
  uint4 *cache = reinterpret_cast<uint4 *>(shared_bytes);
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), rank = cluster.block_rank();
  const int64_t row = blockIdx.x / parts, begin = rank * chunk;
  const int64_t packs = max(int64_t(0), min(chunk, cols - begin)) / P;
  float max = lab::kNegInf;
  for_each_pack<kUnroll>(reinterpret_cast<const uint4 *>(x + row * cols + begin), threadIdx.x, packs, kThreads,
                         [&](int64_t i, const uint4 v) {
                           cache[i] = v;
                           float values[P];
                           lab::Io<T>::unpack(v, values);
#pragma unroll
                           for (int k = 0; k < P; ++k) max = MaxOp{}(max, values[k]);
                         });
  max = block_reduce<kThreads>(max, MaxOp{});
  float sum = 0.f;
  for (int64_t i = threadIdx.x; i < packs; i += kThreads) {
    float values[P];
    lab::Io<T>::unpack(cache[i], values);
#pragma unroll
    for (int k = 0; k < P; ++k) sum += __expf(values[k] - max);
  }
  sum = block_reduce<kThreads>(sum, SumOp{});
  if (threadIdx.x == 0) part_stats = {max, sum};
  cluster.sync();
  const CombineStats combine;
  RowStats total = empty_stats();
  for (unsigned r = 0; r < parts; ++r) total = combine(total, *cluster.map_shared_rank(&part_stats, r));
  cluster.barrier_arrive();
  const Normalizer normalize(total.max, total.sum, log);
  uint4 *out = reinterpret_cast<uint4 *>(y + row * cols + begin);
  for (int64_t i = threadIdx.x; i < packs; i += kThreads) {
    float values[P];
    lab::Io<T>::unpack(cache[i], values);
#pragma unroll
    for (int k = 0; k < P; ++k) values[k] = normalize(values[k]);
    out[i] = lab::Io<T>::pack(values);
  }
  cluster.barrier_wait();
}

// split_rows.cuh's softmax_part_stats<T, P> and softmax_part_output<T, P>.
template <class T>
__device__ __forceinline__ void part_stats_body(const T *x, RowStats *stats, int64_t rows, int64_t cols,
                                                int64_t splits, int64_t chunk) {
  constexpr int P = lab::Io<T>::P;
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    const int64_t packs = max(int64_t(0), min(chunk, cols - begin)) / P;
    const uint4 *in = reinterpret_cast<const uint4 *>(x + row * cols + begin);
    RowStats part = empty_stats();
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t, const uint4 v) {
      float values[P];
      lab::Io<T>::unpack(v, values);
      accumulate(part, values);
    });
    part = block_reduce<kThreads>(part, CombineStats{});
    if (threadIdx.x == 0) stats[task] = part;
  }
}

template <class T>
__device__ __forceinline__ void part_output_body(const T *x, T *y, const RowStats *stats, int64_t rows, int64_t cols,
                                                 int64_t splits, int64_t chunk, bool log) {
  constexpr int P = lab::Io<T>::P;
  const CombineStats combine;
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    RowStats total = empty_stats();
    for (int64_t part = threadIdx.x % 32; part < splits; part += 32) total = combine(total, stats[row * splits + part]);
    total = warp_reduce(total, combine);
    const Normalizer normalize(total.max, total.sum, log);
    const int64_t packs = max(int64_t(0), min(chunk, cols - begin)) / P;
    const uint4 *in = reinterpret_cast<const uint4 *>(x + row * cols + begin);
    uint4 *out = reinterpret_cast<uint4 *>(y + row * cols + begin);
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t i, const uint4 v) {
      float values[P];
      lab::Io<T>::unpack(v, values);
#pragma unroll
      for (int k = 0; k < P; ++k) values[k] = normalize(values[k]);
      out[i] = lab::Io<T>::pack(values);
    });
  }
}
}  // namespace lib

// ---- the kernels (extern "C": cupy finds them by plain name) ----

#define LAB_DTYPES(X) X(f16, __half) X(bf16, __nv_bfloat16) X(f32, float)

// Library calibration kernels (log is a run-time flag there).
#define LIB_KERNELS(sfx, T)                                                                                      \
  extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256)                                   \
      lib_cluster8_##sfx(const T *x, T *y, long long cols, long long chunk, int log) {                          \
    lib::cluster_body<T>(x, y, cols, chunk, log != 0);                                     \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) lib_split_stats_##sfx(                                      \
      const T *x, lib::RowStats *stats, long long rows, long long cols, long long splits, long long chunk) {     \
    lib::part_stats_body<T>(x, stats, rows, cols, splits, chunk);                                \
  }                                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) lib_split_output_##sfx(                                     \
      const T *x, T *y, const lib::RowStats *stats, long long rows, long long cols, long long splits,            \
      long long chunk, int log) {                                                                                \
    lib::part_output_body<T>(x, y, stats, rows, cols, splits, chunk, log != 0);                  \
  }
LAB_DTYPES(LIB_KERNELS)

// creg<CL, THREADS, EPT>: name creg<CL>_t<THREADS>_<dtype>[_log].
#define CREG_KERNEL(name, sfx, T, CL, THREADS, EPT, MINB, LOG)                                                   \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, int *err) {                                                \
    lab::creg_body<T, CL, THREADS, EPT, LOG>(x, y, cols, err);                                                   \
  }
// tma<CL, THREADS, EPT, NS>: NS depends on the dtype (the ring fills ~192 KB, or ~96 KB at 2 blocks per SM).
#define TMA_KERNEL(name, sfx, T, CL, THREADS, EPT, NS, MINB, LOG)                                                \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long rows, long long cols, int *err) {                                \
    lab::tma_body<T, CL, THREADS, EPT, NS, LOG>(x, y, rows, cols, err);                                          \
  }
#define GX_KERNEL(name, sfx, T, THREADS, EPT, MINB, LOG)                                                         \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB) name##_##sfx(                                     \
      const T *x, T *y, long long cols, int parts, long long chunk, float2 *ws, unsigned *counters, int *err) {  \
    lab::gx_body<T, THREADS, EPT, LOG>(x, y, cols, parts, chunk, ws, counters, err);                            \
  }

// Stages of the rings, by element size (parts of 32 KB for 16-bit types, 64 KB for f32): NS_BIG fills ~192 KB
// at 1 block per SM, NS_SMALL is the same kernel with a shallower ring (is the depth needed?), NS_HALF fits
// 2 blocks per SM, NS_16 is for cluster 16 (parts of 16 / 32 KB).
#define NS_BIG(T) (sizeof(T) == 2 ? 6 : 3)
#define NS_HALF(T) (sizeof(T) == 2 ? 3 : 1)
#define NS_SMALL(T) (sizeof(T) == 2 ? 3 : 2)
#define NS_16(T) (sizeof(T) == 2 ? 12 : 6)

#define NEW_KERNELS(sfx, T)                                                                                      \
  /* 128x131072: a part of 16384 per block */                                                                   \
  CREG_KERNEL(creg8_t512, sfx, T, 8, 512, 32, 2, false)                                                          \
  CREG_KERNEL(creg8_t512_log, sfx, T, 8, 512, 32, 2, true)                                                       \
  TMA_KERNEL(tma8_t512, sfx, T, 8, 512, 32, NS_BIG(T), 1, false)                                                 \
  TMA_KERNEL(tma8_t512_log, sfx, T, 8, 512, 32, NS_BIG(T), 1, true)                                              \
  TMA_KERNEL(tma8_t512_ns3, sfx, T, 8, 512, 32, NS_SMALL(T), 1, false)                                           \
  TMA_KERNEL(tma8x2_t512, sfx, T, 8, 512, 32, NS_HALF(T), 2, false)                                              \
  TMA_KERNEL(tma8x2_t512_log, sfx, T, 8, 512, 32, NS_HALF(T), 2, true)                                           \
  TMA_KERNEL(tma16_t512, sfx, T, 16, 512, 16, NS_16(T), 1, false)                                                \
  /* 16x262144: a part of 32768 (cluster 8) or 16384 (cluster 16) per block */                                  \
  CREG_KERNEL(creg8_t1024, sfx, T, 8, 1024, 32, 1, false)                                                        \
  CREG_KERNEL(creg16_t512, sfx, T, 16, 512, 32, 2, false)                                                        \
  TMA_KERNEL(tma8_t1024, sfx, T, 8, 1024, 32, 1, 1, false)                                                       \
  /* 16x262144 and 1x1048576: G blocks per row */                                                               \
  GX_KERNEL(gx_t1024e32, sfx, T, 1024, 32, 1, false)                                                             \
  GX_KERNEL(gx_t512e32, sfx, T, 512, 32, 2, false)                                                               \
  GX_KERNEL(gx_t256e32, sfx, T, 256, 32, 4, false)                                                               \
  GX_KERNEL(gx_t256e16, sfx, T, 256, 16, 4, false)
LAB_DTYPES(NEW_KERNELS)

// ---- session 6: QuACK's shapes (256 threads, 64 values each) and the library's cluster tier itself ----

#define CPA_KERNEL(name, sfx, T, CL, THREADS, EPT, MINB, LOG)                                                    \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, int *err) {                                                \
    lab::cpa_body<T, CL, THREADS, EPT, LOG>(x, y, cols, err);                                                    \
  }


#include "ops/softmax/nvidia/cluster_rows.cuh"

// The library's cluster tier (ops/softmax/nvidia/cluster_rows.cuh, softmax_part_in_cluster) at the
// library's shape (libc8_t512: 512 threads, kPartPacks packs) and others; args (x, y, cols, chunk).
// WHOLE: softmax_part_in_cluster's kWhole (no masks; only for rows of whole parts): LIBW_KERNEL.
#define LIB_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG, WHOLE)                                          \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, long long chunk) {                                          \
    constexpr int P = 16 / sizeof(T);                                                                            \
    oprt::gpu::softmax_detail::softmax_part_in_cluster<T, P, CL, THREADS, VALUES / P, LOG, WHOLE>(x, y, cols,    \
                                                                                                  chunk);        \
  }
#define LIBC_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG) \
  LIB_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG, false)
#define LIBW_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG) \
  LIB_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG, true)

// The same without __cluster_dims__ (args as LIBC_KERNEL): launched with a cluster attribute, as the library.
#define LIBX_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB, LOG)                                                \
  extern "C" __global__ void __launch_bounds__(THREADS, MINB)                                                   \
      name##_##sfx(const T *x, T *y, long long cols, long long chunk) {                                          \
    constexpr int P = 16 / sizeof(T);                                                                            \
    oprt::gpu::softmax_detail::softmax_part_in_cluster<T, P, CL, THREADS, VALUES / P, LOG>(x, y, cols, chunk);   \
  }

#define SESSION6_KERNELS(sfx, T)                                                                                 \
  CREG_KERNEL(creg8_t256, sfx, T, 8, 256, 64, 2, false)                                                          \
  CREG_KERNEL(creg16_t256, sfx, T, 16, 256, 64, 2, false)                                                        \
  CPA_KERNEL(cpa8_t256, sfx, T, 8, 256, 64, 2, false)                                                            \
  CPA_KERNEL(cpa8_t512, sfx, T, 8, 512, 32, 2, false)                                                            \
  CPA_KERNEL(cpa16_t256, sfx, T, 16, 256, 64, 2, false)                                                          \
  LIBC_KERNEL(libc8_t512, sfx, T, 8, 512, 32, 2, false)                                                          \
  LIBC_KERNEL(libc8_t512_log, sfx, T, 8, 512, 32, 2, true)                                                       \
  LIBC_KERNEL(libc8_t256, sfx, T, 8, 256, 64, 2, false)                                                          \
  LIBC_KERNEL(libc8_t1024, sfx, T, 8, 1024, 16, 1, false)                                                        \
  LIBC_KERNEL(libc16_t256, sfx, T, 16, 256, 64, 2, false)                                                        \
  LIBC_KERNEL(libc16_t512, sfx, T, 16, 512, 32, 2, false)                                                       \
  LIBX_KERNEL(libx8_t512, sfx, T, 8, 512, 32, 2, false)                                                          \
  LIBX_KERNEL(libx16_t512, sfx, T, 16, 512, 32, 2, false)
LAB_DTYPES(SESSION6_KERNELS)

// Session 8: QuACK's half-type kernel for 128 x 131072 has 3 blocks of 256 per SM (80 registers, ncu:
// bench/results/h200-session8/), ours 2 (90 registers): the same kernels compiled for 3 blocks per SM.
#define SESSION8_KERNELS(sfx, T)                                                                                 \
  CREG_KERNEL(creg8_t256_b3, sfx, T, 8, 256, 64, 3, false)                                                       \
  CPA_KERNEL(cpa8_t256_b3, sfx, T, 8, 256, 64, 3, false)                                                         \
  LIBC_KERNEL(libc8_t256_b3, sfx, T, 8, 256, 64, 3, false)
SESSION8_KERNELS(f16, __half)
SESSION8_KERNELS(bf16, __nv_bfloat16)

// Session 9: 16-block clusters for 16 x 262144 again, now at QuACK's shape there too (ncu: 16 x 16 blocks of
// 256, clusters of 16, 80 registers, 3 blocks per SM); session 6 tried them at 2 blocks per SM only.
#define SESSION9_KERNELS(sfx, T)                                                                                 \
  CREG_KERNEL(creg16_t256_b3, sfx, T, 16, 256, 64, 3, false)                                                     \
  CPA_KERNEL(cpa16_t256_b3, sfx, T, 16, 256, 64, 3, false)                                                       \
  LIBC_KERNEL(libc16_t256_b3, sfx, T, 16, 256, 64, 3, false)                                                     \
  LIBC_KERNEL(libc16_t256_b3_log, sfx, T, 16, 256, 64, 3, true)                                                 \
  LIBW_KERNEL(libw16_t256_b3, sfx, T, 16, 256, 64, 3, false)                                                     \
  LIBW_KERNEL(libw8_t256_b3, sfx, T, 8, 256, 64, 3, false)
SESSION9_KERNELS(f16, __half)
SESSION9_KERNELS(bf16, __nv_bfloat16)

// Session 12: the library's unmasked f16 kernel with natural stats (exp(x - max): kBase2 off), against libw8_t256_b3
// and libw16_t256_b3, which have the library's base-2 stats for f16 (row_math.cuh, kBase2Stats).
#define LIBN_KERNEL(name, CL, THREADS, VALUES, MINB)                                                             \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_f16(const __half *x, __half *y, long long cols, long long chunk) {                                   \
    oprt::gpu::softmax_detail::softmax_part_in_cluster<__half, 8, CL, THREADS, VALUES / 8, false, true, false>(  \
        x, y, cols, chunk);                                                                                      \
  }
LIBN_KERNEL(libn8_t256_b3, 8, 256, 64, 3)
LIBN_KERNEL(libn16_t256_b3, 16, 256, 64, 3)

// Session 13: creo (each pack, or group of G packs, exponentiated as it lands, against a running max) at
// creg's shapes; crep (the part held packed, exponentiated twice) at 3 and 4 blocks per SM.
#define CREO_KERNEL(name, sfx, T, CL, THREADS, EPT, MINB, G)                                                     \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, int *err) {                                                \
    lab::creo_body<T, CL, THREADS, EPT, G>(x, y, cols, err);                                                     \
  }
#define CREP_KERNEL(name, sfx, T, CL, THREADS, EPT, MINB)                                                        \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, int *err) {                                                \
    lab::crep_body<T, CL, THREADS, EPT>(x, y, cols, err);                                                        \
  }
#define SESSION13_KERNELS(sfx, T)                                                                                \
  CREO_KERNEL(creo8_t256_b3, sfx, T, 8, 256, 64, 3, 1)                                                           \
  CREO_KERNEL(creo8g2_t256_b3, sfx, T, 8, 256, 64, 3, 2)                                                         \
  CREO_KERNEL(creo8g4_t256_b3, sfx, T, 8, 256, 64, 3, 4)                                                         \
  CREO_KERNEL(creo16_t256_b3, sfx, T, 16, 256, 64, 3, 1)                                                         \
  CREO_KERNEL(creo16g2_t256_b3, sfx, T, 16, 256, 64, 3, 2)                                                       \
  CREP_KERNEL(crep8_t256_b3, sfx, T, 8, 256, 64, 3)                                                              \
  CREP_KERNEL(crep8_t256_b4, sfx, T, 8, 256, 64, 4)                                                              \
  CREP_KERNEL(crep16_t256_b4, sfx, T, 16, 256, 64, 4)
SESSION13_KERNELS(f16, __half)
SESSION13_KERNELS(bf16, __nv_bfloat16)

// Session 14: crep with the library's evict-first loads (ld.global.cs) in place of ld.global.nc.L1::no_allocate, and
// crepn: crepcs with the library's NaN rules (the candidate to port).
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    crepcs8_t256_b4_f16(const __half *x, __half *y, long long cols, int *err) {
  lab::crep_body<__half, 8, 256, 64, true>(x, y, cols, err);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    crepn8_t256_b4_f16(const __half *x, __half *y, long long cols, int *err) {
  lab::crep_body<__half, 8, 256, 64, true, lab::kNanInMax>(x, y, cols, err);
}
// Session 15: crepm: crepcs with the NaN carried in the sum (branch-free; the library's PackedPart now does so).
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    crepm8_t256_b4_f16(const __half *x, __half *y, long long cols, int *err) {
  lab::crep_body<__half, 8, 256, 64, true, lab::kNanInSum>(x, y, cols, err);
}

// Session 13: the library's cluster kernel with its parts held packed (cluster_rows.cuh, PackedPart), 4 blocks per SM.
#define LIBP_KERNEL(name, sfx, T, CL, THREADS, VALUES, MINB)                                                     \
  extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB)                        \
      name##_##sfx(const T *x, T *y, long long cols, long long chunk) {                                          \
    constexpr int P = 16 / sizeof(T);                                                                            \
    oprt::gpu::softmax_detail::softmax_part_in_cluster<T, P, CL, THREADS, VALUES / P, false, true,               \
                                                       oprt::gpu::softmax_detail::kBase2Stats<T, false>, true>(  \
        x, y, cols, chunk);                                                                                      \
  }
LIBP_KERNEL(libp8_t256_b4, f16, __half, 8, 256, 64, 4)
LIBP_KERNEL(libp8_t256_b4, bf16, __nv_bfloat16, 8, 256, 64, 4)

// Session 14: the library's softmax_part_in_cluster for whole parts held packed, its mailbox opened (mbarrier
// initialized, relaxed cluster arrive) after the loads instead of before them: crep, fastest in run 4, is compiled with
// its cluster arrive after its first pass, the library's with the cluster wait right behind the loads.
template <class T, int P, int kBlocks, int kBlockThreads, int kPacks, bool kBase2>
__device__ __forceinline__ void packed_part_open_late(const T *x, T *y, int64_t cols, int64_t chunk) {
  namespace sd = oprt::gpu::softmax_detail;
  using C = float;
  using Vec = oprt::gpu::Pack<T, P>;
  constexpr int kWarps = kBlockThreads / 32;
  __shared__ oprt::gpu::ClusterMailbox<sd::RowStats<C>, kBlocks * kWarps> mailbox;
  const unsigned rank = oprt::gpu::cluster_block_rank();
  const int64_t row = oprt::gpu::cluster_index(), begin = rank * chunk;
  sd::PackedPart<kBlockThreads, kPacks, T, P, kBase2> part;
  part.template load<true>(reinterpret_cast<const Vec *>(x + row * cols + begin), nullptr, 0, false);
  mailbox.open();
  const typename decltype(part)::Combine combine;
  const sd::RowStats<C> warp = oprt::gpu::warp_reduce(part.stats, combine);
  const unsigned lane = threadIdx.x % 32;
  oprt::gpu::cluster_wait();
  if (lane < kBlocks) mailbox.send(warp, rank * kWarps + threadIdx.x / 32, lane);
  const sd::RowStats<C> *slots = mailbox.receive();
  sd::RowStats<C> total = sd::empty_stats<C>();
  for (unsigned slot = lane; slot < kBlocks * kWarps; slot += 32) total = combine(total, slots[slot]);
  part.template store<true>(reinterpret_cast<Vec *>(y + row * cols + begin), 0, oprt::gpu::warp_reduce(total, combine),
                            false);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpo8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  packed_part_open_late<__half, 8, 8, 256, 8, true>(x, y, cols, chunk);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpno8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  packed_part_open_late<__half, 8, 8, 256, 8, false>(x, y, cols, chunk);
}

// Session 14, bisecting crepcs against PackedPart: the library's part (its loads, passes and stores) with the lab's
// exchange instead of the library's (crep's: one (max, sum) per warp into every block, folded without NaN rules).
// Both stats forms keep the raw max, so the lab's combine takes them as they are. kCrepStore (base 2 only): crep's
// store pass (the packs laundered once, each value widened by a volatile cvt, exponentiated with the lab's ex2,
// stored with st.global.cs pack by pack) in place of PackedPart::store.
__device__ int lab_exchange_timeouts;  // cluster_exchange's timeout flag for kernels launched without one

template <bool kBase2, bool kCrepStore>
__device__ __forceinline__ void packed_part_lab_exchange(const __half *x, __half *y, int64_t cols, int64_t chunk) {
  static_assert(kBase2 || !kCrepStore, "crep's store pass is in base 2");
  namespace sd = oprt::gpu::softmax_detail;
  constexpr int P = 8, kBlocks = 8, kThreads = 256, kWarps = kThreads / 32, kPacks = 8;
  using Vec = oprt::gpu::Pack<__half, P>;
  __shared__ float2 slots[kBlocks * kWarps];
  __shared__ __align__(8) unsigned long long xbar;
  if (threadIdx.x == 0) {
    lab::mbar_init(lab::smem_addr(&xbar), 1);
    lab::fence_mbar_init();
  }
  lab::cluster_arrive_relaxed();
  const unsigned rank = lab::cluster_rank();
  const int64_t row = lab::cluster_id_x(), begin = rank * chunk;
  sd::PackedPart<kThreads, kPacks, __half, P, kBase2> part;
  part.template load<true>(reinterpret_cast<const Vec *>(x + row * cols + begin), nullptr, 0, false);
  const lab::Stat warp_stat = lab::warp_allreduce({part.stats.max, part.stats.sum});
  lab::cluster_wait();
  const lab::Stat total = lab::cluster_exchange<kBlocks, kWarps>(warp_stat, slots, lab::smem_addr(&xbar), 0, rank,
                                                                 &lab_exchange_timeouts);
  if constexpr (kCrepStore) {
    const float row_shift = total.m * lab::kLog2e, inverse = 1.f / total.s;
    uint4 v[kPacks];
    memcpy(v, part.packs, sizeof(v));
    lab::launder(v);
    __half *out = y + row * cols + begin;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      float f[P];
      lab::unpack_in_order<__half>(v[j], f);
#pragma unroll
      for (int k = 0; k < P; ++k) f[k] = lab::ex2(fmaf(f[k], lab::kLog2e, -row_shift)) * inverse;
      lab::st_stream(out + (j * kThreads + threadIdx.x) * P, lab::Io<__half>::pack(f));
    }
  } else {
    part.template store<true>(reinterpret_cast<Vec *>(y + row * cols + begin), 0, sd::RowStats<float>{total.m, total.s},
                              false);
  }
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpx8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  packed_part_lab_exchange<true, false>(x, y, cols, chunk);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpnx8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  packed_part_lab_exchange<false, false>(x, y, cols, chunk);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpxs8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  packed_part_lab_exchange<true, true>(x, y, cols, chunk);
}

// Session 14: PackedPart for f16 with natural stats (exp(x - max), bf16's form) instead of f16's base-2 ones.
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256, 4)
    libpn8_t256_b4_f16(const __half *x, __half *y, long long cols, long long chunk) {
  oprt::gpu::softmax_detail::softmax_part_in_cluster<__half, 8, 8, 256, 8, false, true, false, true>(x, y, cols, chunk);
}
