// The row math every softmax tier shares, in the compute type: exp/log, the max, and the online
// (max, sum of exponentials) statistics of a row or part of one, which combine in any grouping:
//   accumulate(stats, values)  folds values in with one rescale of the sum;
//   CombineStats{}(a, b)       merges two parts' stats (for warp/block/cluster reductions);
//   Normalizer(max, sum, log)  turns x into y once a row's stats are known;
//   exponentiate(values, log)  a part's stats, its values (held in registers) exponentiated once;
//   exponential_after(value, shift_offset(shift))  exp(value - shift), in base 2 for f16's part stats;
//   PartNormalizer(part, row, log)  turns those into y.
// "notes" below: bench/notes/softmax-tuning.md.
#ifndef OPS_SOFTMAX_NVIDIA_ROW_MATH_CUH_
#define OPS_SOFTMAX_NVIDIA_ROW_MATH_CUH_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"

namespace oprt::gpu::softmax_detail {

// ---- Math in the compute type ----

constexpr float kLog2e = 1.4426950408889634f;

// exp: exp for f64; in f32 __expf's 2^(v * log2(e)) on the hardware exp2 (faster, error under 6e-6
// relative; notes: "exponential"). On NVIDIA through fast_exp2 (host_device.h), results below FLT_MIN
// flushed to 0: the build keeps subnormals, and __expf then takes three more instructions to make them.
template <class C>
__device__ __forceinline__ C exponential(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return exp(v);
  } else {
#if defined(__MACACC__)
    return __expf(v);
#else
    return fast_exp2(v * kLog2e);
#endif
  }
}

template <class C>
__device__ __forceinline__ C logarithm(C v) {
  if constexpr (std::is_same_v<C, double>) {
    return log(v);
  } else {
    return logf(v);
  }
}

// Max that skips NaN (IEEE maxNum: one instruction where MaxOp takes four; notes: "MaxSkippingNaN").
// Where a block or warp holds a whole row, the row's max may skip NaN: a NaN still makes its
// exp(x - max) and so the sum and every output NaN, as torch has it (an all-NaN row has max -inf and
// exp(NaN) terms). Stats of parts that are combined later need MaxOp: a part of NaN and -inf only
// would pass for an all -inf part.
struct MaxSkippingNaN {
  template <class C>
  __device__ __forceinline__ C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, float>) {
      return fmaxf(a, b);
    } else {
      return fmax(a, b);
    }
  }
};

// The max and sum of exp(x - max) of part of a row. {-inf, 0} is the empty part.
template <class C>
struct RowStats {
  C max;
  C sum;
};

template <class C>
__device__ __forceinline__ RowStats<C> empty_stats() {
  return {negative_infinity<C>(), C(0)};
}

// Base-2 stats (f16 softmax parts in registers: the grid and cluster tiers). There a part's exponentials
// are 2^(x log2(e) - c) with c = max log2(e) rounded once (base2_shift): one FFMA before the hardware exp2,
// where exp(x - max) takes an add and a multiply. c's rounding error is common to a part's values and its
// sum, and every rescale between parts goes through the same c of each max, so it cancels in y. c must stay
// finite: f16's maxima (|max| <= 65504) keep it under 94,505, where bf16 and f32 maxima past 2.4e38 would
// overflow it; and log_softmax's y = x - max - log(sum) would carry c's error, so it keeps the natural form.
template <class T, bool kLog>
constexpr bool kBase2Stats = std::is_same_v<T, half> && !kLog;

// Rounded on its own (__fmul_rn: never contracted into an FFMA), so that equal maxima give equal shifts and
// c(a) - c(b) is 0 for a == b: a contracted max * log2(e) - c(max) is that product's rounding error instead.
__device__ __forceinline__ float base2_shift(float max) {
#if defined(__MACACC__)
  return max * kLog2e;
#else
  return __fmul_rn(max, kLog2e);
#endif
}

// exp(part max - max): what rescales a part's sum to a new max, through the same shifts as the part's
// exponentials (base2_shift where kBase2).
template <bool kBase2, class C>
__device__ __forceinline__ C max_shift_factor(C part_max, C max) {
  if constexpr (kBase2) {
    static_assert(std::is_same_v<C, float>, "base-2 stats are f16's");
    return fast_exp2(base2_shift(part_max) - base2_shift(max));
  } else {
    return exponential(part_max - max);
  }
}

// `stats.sum` rescaled to a new max (>= stats.max or NaN). An all -inf part contributes nothing
// (skipping exp(-inf - -inf) = NaN); a NaN max makes the sum NaN.
template <bool kBase2 = false, class C>
__device__ __forceinline__ C rescaled_sum(const RowStats<C> &stats, C max) {
  if (stats.max == negative_infinity<C>()) return C(0);
  return stats.sum * max_shift_factor<kBase2>(stats.max, max);
}

// Folds n values into `stats` with one rescale: the new max first, then their exponentials. A -inf
// value adds nothing; +inf adds exp(inf - inf) = NaN, as in the two-pass formula.
template <int n, class C>
__device__ __forceinline__ void accumulate(RowStats<C> &stats, const C (&values)[n]) {
  C max = stats.max;
#pragma unroll
  for (int k = 0; k < n; ++k) max = MaxOp{}(max, values[k]);
  C sum = rescaled_sum(stats, max);
#pragma unroll
  for (int k = 0; k < n; ++k) {
    if (values[k] != negative_infinity<C>()) sum += exponential(values[k] - max);
  }
  stats = {max, sum};
}

// Merges the stats of two parts (commutative, so shuffle butterflies give every lane the same bits).
// Max and rescaled: the same merge in two phases (reduce_stats_in_two_phases below).
template <class C, bool kBase2 = false>
struct CombineStats {
  using Max = MaxOp;
  __device__ __forceinline__ RowStats<C> operator()(const RowStats<C> &a, const RowStats<C> &b) const {
    const C max = MaxOp{}(a.max, b.max);
    return {max, rescaled_sum<kBase2>(a, max) + rescaled_sum<kBase2>(b, max)};
  }
  static __device__ __forceinline__ C rescaled(const RowStats<C> &part, C max) { return rescaled_sum<kBase2>(part, max); }
};

// CombineStats for stats whose max skips NaN (PackedPart's): a NaN among a part's values rides in its sum
// alone, so the merge needs neither MaxOp's NaN test nor rescaled_sum's early return: the factor, not the
// product, is 0 for an all -inf part, so that part's NaN sum (NaN and -inf values only) still makes the row's
// NaN. Branch-free: with CombineStats's branches the lab's packed kernel ran slower (notes: "Session 15";
// RegisterPart keeps CombineStats: this one gained it nothing and spilled its masked kernels).
template <class C, bool kBase2 = false>
struct CombineStatsCarryingNaNInSum {
  using Max = MaxSkippingNaN;
  __device__ __forceinline__ RowStats<C> operator()(const RowStats<C> &a, const RowStats<C> &b) const {
    const C max = MaxSkippingNaN{}(a.max, b.max);
    return {max, a.sum * factor(a.max, max) + b.sum * factor(b.max, max)};
  }
  static __device__ __forceinline__ C rescaled(const RowStats<C> &part, C max) { return part.sum * factor(part.max, max); }
  // exp(part max - max), 0 for an all -inf part (whose exp(-inf - -inf) would be NaN).
  static __device__ __forceinline__ C factor(C part_max, C max) {
    const C scale = max_shift_factor<kBase2>(part_max, max);
    return part_max == negative_infinity<C>() ? C(0) : scale;
  }
};

// The stats of a warp's lanes (each lane's own, folded with `extra` more of `slots` first where given),
// reduced as Combine merges them but in two phases: the max over every lane and slot, then each part's sum
// rescaled to it once and added. A butterfly of Combine steps costs an exponential and Combine's selects at
// each of its dependent steps; here the steps are a max and an add (notes: "Session 15"). Every lane gets the
// same bits (each step is commutative), and every warp that folds the same slots in the same order gets them too.
template <class Combine, class C>
__device__ __forceinline__ RowStats<C> reduce_stats_in_two_phases(const RowStats<C> *parts, int count, int stride) {
  using Max = typename Combine::Max;
  C max = negative_infinity<C>();
  for (int i = 0; i < count; ++i) max = Max{}(max, parts[i * stride].max);
  max = warp_reduce(max, Max{});
  C sum = C(0);
  for (int i = 0; i < count; ++i) sum += Combine::rescaled(parts[i * stride], max);
  return {max, warp_reduce(sum, SumOp{})};
}

// y (in the compute type) from x once a row's max and sum are known.
template <class C>
struct Normalizer {
  C max;
  C factor;  // 1 / sum, or log(sum) for log_softmax
  bool log;
  __device__ __forceinline__ Normalizer(C row_max, C sum, bool log_softmax)
      : max(row_max), factor(log_softmax ? logarithm(sum) : C(1) / sum), log(log_softmax) {}
  __device__ __forceinline__ C operator()(C x) const {
    const C shifted = x - max;
    return log ? shifted - factor : exponential(shifted) * factor;
  }
};

// exp(value - shift) for a part's values: exponential_after<kBase2>(value, shift_offset<kBase2>(shift)), in
// base 2 where kBase2 (2^(value log2(e) - base2_shift(shift))), the shift's offset taken once per pass.
template <bool kBase2, class C>
__device__ __forceinline__ C shift_offset(C shift) {
  if constexpr (kBase2) {
    return base2_shift(shift);
  } else {
    return shift;
  }
}

template <bool kBase2, class C>
__device__ __forceinline__ C exponential_after(C value, C offset) {
  if constexpr (kBase2) {
    return fast_exp2(fmaf(value, kLog2e, -offset));
  } else {
    return exponential(value - offset);
  }
}

// ---- A part of a row in registers, each value exponentiated once (grid and cluster tiers) ----
// A thread exponentiates its values against its own max before the row's is known; the row's stats
// then rescale them: y = exp(x - thread max) * exp(thread max - row max) / row sum.

// Stats of `values`, which become exp(value - their max) unless `keep_values` (log_softmax needs x
// only); kBase2: 2^(value log2(e) - base2_shift(their max)), stats in base 2. Where all are -inf the shift
// is 0, so they become 0 rather than exp(-inf - -inf) = NaN. A NaN sum (a NaN or +inf among them) makes
// the max NaN, which the max itself skips (MaxSkippingNaN): these stats are combined with others', where a
// part of NaN and -inf only would pass for an all -inf part.
template <bool kBase2 = false, int kPacks, int P, class C>
__device__ __forceinline__ RowStats<C> exponentiate(C (&values)[kPacks][P], bool keep_values) {
  // Four running maxima and sums (value i goes to chain i % 4): a single chain of 32 dependent
  // max / add instructions per thread left the grid and cluster tiers latency-bound (notes: "Few long rows").
  constexpr int kChains = 4;
  C max[kChains], sum[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) max[c] = negative_infinity<C>(), sum[c] = C(0);
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
#pragma unroll
    for (int k = 0; k < P; ++k) max[(j * P + k) % kChains] = MaxSkippingNaN{}(max[(j * P + k) % kChains], values[j][k]);
  }
  const C row_max = MaxSkippingNaN{}(MaxSkippingNaN{}(max[0], max[1]), MaxSkippingNaN{}(max[2], max[3]));
  const C offset = shift_offset<kBase2>(row_max == negative_infinity<C>() ? C(0) : row_max);
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
#pragma unroll
    for (int k = 0; k < P; ++k) {
      const C e = exponential_after<kBase2>(values[j][k], offset);
      if (!keep_values) values[j][k] = e;
      sum[(j * P + k) % kChains] += e;
    }
  }
  const C total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
  return {total != total ? total : row_max, total};
}

// y from a value left by exponentiate (exp(x - part max), or x for log_softmax) once the row's stats
// are known. The softmax factor exp(part max - row max) / row sum is 0 for an all -inf part, and 0 / 0
// = NaN for an all -inf row, as the two-pass formula gives; log_softmax is Normalizer's.
template <class C, bool kBase2 = false>
struct PartNormalizer {
  C max;     // the row's
  C factor;  // exp(part max - row max) / row sum, or log(row sum) for log_softmax
  bool log;
  __device__ __forceinline__ PartNormalizer(const RowStats<C> &part, const RowStats<C> &row, bool log_softmax)
      : max(row.max),
        factor(log_softmax ? logarithm(row.sum)
                           : rescaled_sum<kBase2>(RowStats<C>{part.max, C(1)}, row.max) / row.sum),
        log(log_softmax) {}
  __device__ __forceinline__ C operator()(C value) const { return log ? (value - max) - factor : value * factor; }
};

// Writes a 16-byte pack with one 128-bit store: assigned as a struct, NVVM split some packs into up to
// 8 stores (notes: "store_pack"). MACA assigns the struct.
template <class T, int P>
__device__ __forceinline__ void store_pack(Pack<T, P> *destination, const Pack<T, P> &value) {
#if !defined(__MACACC__)
  if constexpr (sizeof(value) == 16) {
    uint32_t words[4];
    memcpy(words, &value, sizeof(words));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(destination), "r"(words[0]), "r"(words[1]),
                 "r"(words[2]), "r"(words[3])
                 : "memory");
    return;
  }
#endif
  *destination = value;
}

#if !defined(__MACACC__)
// store_pack of a 16-byte pack with the streaming hint (st.global.cs): y that is not read again soon
// goes to L2 marked to be evicted first.
template <class T, int P>
__device__ __forceinline__ void store_pack_streaming(Pack<T, P> *destination, const Pack<T, P> &value) {
  static_assert(sizeof(value) == 16, "one 128-bit store");
  uint32_t words[4];
  memcpy(words, &value, sizeof(words));
  asm volatile("st.global.cs.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(destination), "r"(words[0]), "r"(words[1]),
               "r"(words[2]), "r"(words[3])
               : "memory");
}
#endif

// A pack read once and a pack written once, with the streaming hints on NVIDIA where the pack is 16 bytes
// (ld.global.cs / st.global.cs: evicted first from L1 and L2, so x and y do not displace each other; the
// lab's long-row kernels used them); plain accesses otherwise. (The lab's ld.global.nc.L1::no_allocate made
// the cluster kernel slower: notes, "Session 12".)
template <class T, int P>
__device__ __forceinline__ Pack<T, P> load_pack_once(const Pack<T, P> *source) {
#if !defined(__MACACC__)
  if constexpr (sizeof(Pack<T, P>) == 16) {
    uint32_t words[4];
    asm volatile("ld.global.cs.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                 : "l"(source));
    Pack<T, P> value;
    memcpy(&value, words, sizeof(value));
    return value;
  }
#endif
  return *source;
}

template <class T, int P>
__device__ __forceinline__ void store_pack_once(Pack<T, P> *destination, const Pack<T, P> &value) {
#if !defined(__MACACC__)
  if constexpr (sizeof(Pack<T, P>) == 16) {
    store_pack_streaming(destination, value);
    return;
  }
#endif
  store_pack(destination, value);
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_ROW_MATH_CUH_
