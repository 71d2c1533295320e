// ops/common/cuda_dialect/reduce.cuh run on the CPU by a SIMT emulator (tools/metax_standin/simt) at the warp
// size of the build: :reduce_warp64_test compiles reduce.cuh as MACA does (-D__MACACC__: kWarpSize 64,
// 64-bit lane masks, halves unpacked one at a time), :reduce_warp32_test as CUDA does (32 lanes, paired
// half conversions). The same properties are checked at both sizes; the 32-lane run is the control
// (that logic passed its tests on an H200), the 64-lane run is the only place the MetaX arithmetic runs.
//
// Checked: warp_reduce over every group width (sum, NaN-propagating max, multi-word values), with every
// lane of a group holding the same bits; warp_reduce_strided over every stride; block_reduce for every
// block size, called twice in a row; RowGroups: every row visited once by exactly `width` lanes of one
// warp, warp-uniform trip counts (the emulator fails on a shuffle some lanes skip), group sums and
// softmax row stats against a reference; unpack/pack against one-by-one conversion; for_each_pack's
// order and coverage; pipelined's order (each item fetched once, before the previous one is used, into
// the buffer it is used from); the loads of cache_policy.cuh (plain loads here); group_width /
// choose_splits / grid_for.
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

// The device headers first: their runtime header (the emulator's) defines __host__ / __device__, which
// host_device.h (through float_types.h) uses in the MACA build.
#include "ops/common/cuda_dialect/cache_policy.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "ops/common/cpu/float_types.h"

using namespace oprt::gpu;
using oprt::ComputeType;

static_assert(kWarpSize == oprt_simt::kWarpSize, "reduce.cuh and the emulator agree on the warp size");
#if defined(__MACACC__)
static_assert(kWarpSize == 64 && sizeof(LaneMask) == 8, "the MACA build has 64-lane warps and 64-bit masks");
static_assert(kBackend == OPRT_BACKEND_METAX, "the MACA build registers as metax");
#define BUILD_NAME "MACA build of reduce.cuh (64-lane warps)"
#else
static_assert(kWarpSize == 32 && sizeof(LaneMask) == 4, "the CUDA build has 32-lane warps and 32-bit masks");
#define BUILD_NAME "CUDA build of reduce.cuh (32-lane warps)"
#endif

namespace {

int checks = 0, failures = 0;

#define CHECK(condition, ...)                                  \
  do {                                                         \
    ++checks;                                                  \
    if (!(condition)) {                                        \
      if (++failures <= 40) {                                  \
        std::printf("FAIL %s:%d: ", __FILE__, __LINE__);       \
        std::printf(__VA_ARGS__);                              \
        std::printf("\n");                                     \
      }                                                        \
    }                                                          \
  } while (0)

template <class T>
bool same_bits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

std::vector<int> widths() {
  std::vector<int> result;
  for (int w = 1; w <= kWarpSize; w *= 2) result.push_back(w);
  return result;
}

// ---- warp_reduce ----

struct PairOp {  // a two-word value: sum of `a`, max of `b` (shuffled 32 bits at a time)
  struct Pair {
    float a, b;
  };
  Pair operator()(Pair x, Pair y) const { return {x.a + y.a, MaxOp{}(x.b, y.b)}; }
};

struct StatsOp {  // four words, like softmax's RowStats<double>
  struct Stats {
    double max, sum;
  };
  Stats operator()(Stats x, Stats y) const { return {MaxOp{}(x.max, y.max), x.sum + y.sum}; }
};

template <class V, class Op>
__global__ void warp_reduce_kernel(const V *in, V *out, int width, Op op) {
  out[threadIdx.x] = warp_reduce(in[threadIdx.x], op, width);
}

template <class V, class Op>
__global__ void warp_reduce_strided_kernel(const V *in, V *out, int stride, Op op) {
  out[threadIdx.x] = warp_reduce_strided(in[threadIdx.x], op, stride);
}

void test_warp_reduce() {
  const int threads = 4 * kWarpSize;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<int> ints(threads);
  std::vector<float> floats(threads);
  std::vector<PairOp::Pair> pairs(threads);
  std::vector<StatsOp::Stats> stats(threads);
  for (int t = 0; t < threads; ++t) {
    ints[t] = (t * 7919) % 1013 - 500;
    floats[t] = uniform(rng) * std::ldexp(1.0f, t % 23 - 11);  // magnitudes 2^-11..2^11: order matters
    pairs[t] = {static_cast<float>(t % 17), uniform(rng)};
    stats[t] = {static_cast<double>(uniform(rng)), static_cast<double>(t)};
  }
  for (int width : widths()) {
    std::vector<int> sum_i(threads), max_i(threads);
    std::vector<float> sum_f(threads), max_f(threads);
    std::vector<PairOp::Pair> pair_out(threads);
    std::vector<StatsOp::Stats> stats_out(threads);
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<int, SumOp>, ints.data(), sum_i.data(), width, SumOp{});
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<int, MaxOp>, ints.data(), max_i.data(), width, MaxOp{});
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<float, SumOp>, floats.data(), sum_f.data(), width, SumOp{});
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<float, MaxOp>, floats.data(), max_f.data(), width, MaxOp{});
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<PairOp::Pair, PairOp>, pairs.data(), pair_out.data(), width,
                      PairOp{});
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<StatsOp::Stats, StatsOp>, stats.data(), stats_out.data(),
                      width, StatsOp{});
    for (int group = 0; group < threads / width; ++group) {
      const int first = group * width;
      long long s = 0;
      int m = std::numeric_limits<int>::min();
      double sf = 0, pa = 0, ssum = 0;
      float mf = -INFINITY, pb = -INFINITY;
      double smax = -INFINITY;
      for (int t = first; t < first + width; ++t) {
        s += ints[t];
        m = std::max(m, ints[t]);
        sf += floats[t];
        mf = std::max(mf, floats[t]);
        pa += pairs[t].a;
        pb = std::max(pb, pairs[t].b);
        smax = std::max(smax, stats[t].max);
        ssum += stats[t].sum;
      }
      for (int t = first; t < first + width; ++t) {
        CHECK(sum_i[t] == s && max_i[t] == m, "width %d lane %d: int sum %d (want %lld) max %d (want %d)", width, t,
              sum_i[t], s, max_i[t], m);
        CHECK(same_bits(sum_f[t], sum_f[first]), "width %d: lanes %d and %d hold different float sums", width, t,
              first);
        CHECK(std::fabs(sum_f[t] - sf) <= 1e-5 * 4096, "width %d lane %d: float sum %g, want %g", width, t, sum_f[t],
              sf);
        CHECK(max_f[t] == mf, "width %d lane %d: float max %g, want %g", width, t, max_f[t], mf);
        CHECK(pair_out[t].a == pa && pair_out[t].b == pb, "width %d lane %d: pair (%g, %g), want (%g, %g)", width, t,
              pair_out[t].a, pair_out[t].b, pa, pb);
        CHECK(same_bits(stats_out[t].sum, stats_out[first].sum) && stats_out[t].max == smax &&
                  stats_out[t].sum == ssum,
              "width %d lane %d: stats (%g, %g), want (%g, %g)", width, t, stats_out[t].max, stats_out[t].sum, smax,
              ssum);
      }
    }
    // A NaN in one lane reaches every lane of its group through MaxOp.
    std::vector<float> with_nan = floats;
    with_nan[width / 2] = NAN;
    oprt_simt::launch(1, threads, 0, warp_reduce_kernel<float, MaxOp>, with_nan.data(), max_f.data(), width, MaxOp{});
    for (int t = 0; t < width; ++t) CHECK(std::isnan(max_f[t]), "width %d lane %d: NaN did not propagate", width, t);
    for (int t = width; t < threads; ++t) CHECK(!std::isnan(max_f[t]), "width %d lane %d: NaN leaked", width, t);
  }
  // warp_reduce_strided: lanes of a warp sharing lane % stride.
  for (int stride : widths()) {
    std::vector<int> out(threads);
    oprt_simt::launch(1, threads, 0, warp_reduce_strided_kernel<int, SumOp>, ints.data(), out.data(), stride, SumOp{});
    for (int t = 0; t < threads; ++t) {
      const int warp = t / kWarpSize;
      long long want = 0;
      for (int l = 0; l < kWarpSize; ++l) {
        if (l % stride == t % kWarpSize % stride) want += ints[warp * kWarpSize + l];
      }
      CHECK(out[t] == want, "stride %d thread %d: %d, want %lld", stride, t, out[t], want);
    }
  }
}

// ---- block_reduce ----

template <int kThreads>
__global__ void block_reduce_kernel(const int *a, const float *b, int *sum, float *max) {
  sum[threadIdx.x] = block_reduce<kThreads>(a[threadIdx.x], SumOp{});
  max[threadIdx.x] = block_reduce<kThreads>(b[threadIdx.x], MaxOp{});  // again, on the same slots
}

template <int kThreads>
void test_block_reduce() {
  std::vector<int> a(kThreads), sum(kThreads);
  std::vector<float> b(kThreads), max(kThreads);
  long long want_sum = 0;
  float want_max = -INFINITY;
  for (int t = 0; t < kThreads; ++t) {
    a[t] = (t * 31) % 97 - 40;
    b[t] = static_cast<float>((t * 53) % 1009) - 500.0f;
    want_sum += a[t];
    want_max = std::max(want_max, b[t]);
  }
  oprt_simt::launch(2, kThreads, 0, block_reduce_kernel<kThreads>, a.data(), b.data(), sum.data(), max.data());
  for (int t = 0; t < kThreads; ++t) {
    CHECK(sum[t] == want_sum && max[t] == want_max, "block_reduce<%d> thread %d: sum %d max %g, want %lld %g",
          kThreads, t, sum[t], max[t], want_sum, want_max);
  }
}

// ---- RowGroups: a group of `width` lanes per row, as reduce_sum's and softmax's row kernels ----

template <int kThreads>
__global__ void row_group_kernel(const float *x, float *sums, float *maxima, double *exp_sums, int *visits,
                                 int64_t rows, int64_t length, int width) {
  const RowGroups<kThreads> groups(width);
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    const int64_t row = first + groups.group;
    const bool valid = row < rows;
    float sum = 0, max = -INFINITY;
    if (valid) {
      visits[row * width + groups.lane] += 1;
      for (int64_t i = groups.lane; i < length; i += width) {
        sum += x[row * length + i];
        max = MaxOp{}(max, x[row * length + i]);
      }
    }
    sum = warp_reduce(sum, SumOp{}, width);  // every lane of the warp reaches these, valid or not
    max = warp_reduce(max, MaxOp{}, width);
    double exp_sum = 0;
    if (valid) {
      for (int64_t i = groups.lane; i < length; i += width) exp_sum += std::exp(double(x[row * length + i]) - max);
    }
    exp_sum = warp_reduce(exp_sum, SumOp{}, width);
    if (valid && groups.lane == 0) {
      sums[row] = sum;
      maxima[row] = max;
      exp_sums[row] = exp_sum;
    }
  }
}

void test_row_groups() {
  constexpr int kThreads = 256;
  const int64_t lengths[] = {1, 5, 100};
  const int64_t row_counts[] = {1, 5, kWarpSize - 1, kWarpSize, kWarpSize + 1, 200};
  for (int width : widths()) {
    for (int64_t length : lengths) {
      for (int64_t rows : row_counts) {
        for (unsigned grid : {1u, 3u}) {
          std::vector<float> x(rows * length);
          for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>((i * 2654435761u) % 61) - 30);
          std::vector<float> sums(rows, -1), maxima(rows, -1);
          std::vector<double> exp_sums(rows, -1);
          std::vector<int> visits(rows * width, 0);
          oprt_simt::launch(grid, kThreads, 0, row_group_kernel<kThreads>, x.data(), sums.data(), maxima.data(),
                            exp_sums.data(), visits.data(), rows, length, width);
          int bad_visits = 0;
          for (int v : visits) bad_visits += v != 1;
          CHECK(bad_visits == 0, "width %d rows %" PRId64 " grid %u: %d (row, lane) pairs not visited exactly once",
                width, rows, grid, bad_visits);
          for (int64_t r = 0; r < rows; ++r) {
            double want_sum = 0, want_exp = 0;
            float want_max = -INFINITY;
            for (int64_t i = 0; i < length; ++i) {
              want_sum += x[r * length + i];
              want_max = std::max(want_max, x[r * length + i]);
            }
            for (int64_t i = 0; i < length; ++i) want_exp += std::exp(double(x[r * length + i]) - want_max);
            CHECK(sums[r] == want_sum && maxima[r] == want_max && std::fabs(exp_sums[r] - want_exp) <= 1e-9 * want_exp,
                  "width %d length %" PRId64 " row %" PRId64 "/%" PRId64 ": sum %g max %g exp-sum %g, want %g %g %g",
                  width, length, r, rows, sums[r], maxima[r], exp_sums[r], want_sum, want_max, want_exp);
          }
        }
      }
    }
  }
}

// ---- unpack / pack: one-by-one conversion is the reference ----

template <class T>
T from_bits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <class T, int P>
void test_pack_round_trip(std::mt19937 &rng) {
  for (int trial = 0; trial < 2000; ++trial) {
    Pack<T, P> in;
    for (int k = 0; k < P; ++k) {
      // Any bit pattern (NaN, infinity, subnormal included) for 16-bit types; finite values otherwise.
      in.v[k] = sizeof(T) == 2 ? from_bits<T>(rng() & 0xffffu) : convert<T>(std::ldexp(double(int(rng() % 2001) - 1000), int(rng() % 40) - 20));
    }
    ComputeType<T> values[P];
    unpack(in, values);
    for (int k = 0; k < P; ++k) {
      const ComputeType<T> want = convert<ComputeType<T>>(in.v[k]);
      CHECK(same_bits(values[k], want) || (std::isnan(values[k]) && std::isnan(want)),
            "unpack<%d-byte, P=%d> element %d: %g, want %g", int(sizeof(T)), P, k, double(values[k]), double(want));
    }
    ComputeType<T> out[P];
    for (int k = 0; k < P; ++k) out[k] = static_cast<ComputeType<T>>(std::ldexp(double(int(rng() % 200001) - 100000), int(rng() % 50) - 30));
    const Pack<T, P> packed = pack<T>(out);
    for (int k = 0; k < P; ++k) {
      const T want = convert<T>(out[k]);
      CHECK(same_bits(packed.v[k], want), "pack<%d-byte, P=%d> element %d differs from convert", int(sizeof(T)), P, k);
    }
  }
}

// The emulator's 16-bit conversions agree with the CPU reference's (ops/common/cpu/float_types.h), so
// results of emulated kernels can be compared with the CPU backend's bit for bit where the math allows.
void test_16bit_conversions() {
  int mismatches = 0;
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const float f = __half2float(from_bits<half>(bits));
    const float reference = oprt::cpu::to_float(oprt::cpu::float16{static_cast<uint16_t>(bits)});
    mismatches += !(same_bits(f, reference) || (std::isnan(f) && std::isnan(reference)));
    mismatches += !same_bits(__bfloat162float(from_bits<bfloat16>(bits)),
                             oprt::cpu::to_float(oprt::cpu::bfloat16{static_cast<uint16_t>(bits)}));
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const float f = from_bits<float>(rng());
    mismatches += !same_bits(__float2half_rn(f), from_bits<half>(oprt::cpu::to_float16(f).bits));
    mismatches += !same_bits(__float2bfloat16_rn(f), from_bits<bfloat16>(oprt::cpu::to_bfloat16(f).bits));
  }
  CHECK(mismatches == 0, "%d 16-bit conversions differ from the CPU reference's", mismatches);
}

void test_packs() {
  std::mt19937 rng(3);
  test_pack_round_trip<half, kPackSize<half>>(rng);
  test_pack_round_trip<half, 2>(rng);
  test_pack_round_trip<half, 1>(rng);
  test_pack_round_trip<bfloat16, kPackSize<bfloat16>>(rng);
  test_pack_round_trip<bfloat16, 2>(rng);
  test_pack_round_trip<float, kPackSize<float>>(rng);
  test_pack_round_trip<double, kPackSize<double>>(rng);
  test_16bit_conversions();
}

// ---- for_each_pack ----

void test_for_each_pack() {
  std::vector<int> data(1000);
  for (int i = 0; i < 1000; ++i) data[i] = i;
  for (int count : {0, 1, 7, 64, 999}) {
    for (int step : {1, 3, kWarpSize, 256}) {
      std::vector<int> seen(count, 0);
      for (int start = 0; start < step; ++start) {
        int64_t last = -1;
        for_each_pack<4>(data.data(), start, count, step, [&](int64_t index, int value) {
          CHECK(index > last && (index - start) % step == 0 && value == index, "for_each_pack: index %" PRId64, index);
          last = index;
          ++seen[index];
        });
      }
      int bad = 0;
      for (int s : seen) bad += s != 1;
      CHECK(bad == 0, "for_each_pack count %d step %d: %d indices not visited once", count, step, bad);
    }
  }
}

// ---- pipelined ----

void test_pipelined() {
  struct Buffer {
    int64_t item;
  };
  for (int64_t count : {0, 1, 2, 3, 4, 7, 8}) {
    std::vector<char> events;  // 'f' fetch, 'u' use, in order
    int64_t fetched = 0, used = 0;
    bool ok = true;
    pipelined<Buffer>(
        count,
        [&](Buffer &buffer, int64_t i) {
          ok &= i == fetched && i < count && i <= used + 1;  // in order, at most one ahead of the uses
          buffer.item = i;
          ++fetched;
        },
        [&](const Buffer &buffer, int64_t i) {
          ok &= i == used && buffer.item == i && (i + 1 == count || fetched == i + 2);  // next one in flight
          ++used;
        });
    CHECK(ok && fetched == count && used == count, "pipelined count %" PRId64 ": order or coverage", count);
  }
}

// ---- cache_policy.cuh ----

void test_loads() {
  const Pack<float, 4> pack = {{1.5f, -2.0f, 3.25f, 4.0f}};
  const double value = -7.5;
  const uint16_t half_bits = 0x3c00;
  const EvictFirstLoad evict_first{};
  const PlainLoad plain{};
  CHECK(same_bits(evict_first(&pack), pack) && same_bits(plain(&pack), pack), "16-byte loads");
  CHECK(evict_first(&value) == value && evict_first(&half_bits) == half_bits, "8- and 2-byte loads");
}

// ---- host helpers ----

void test_host_helpers() {
  for (int64_t n = 0; n <= 300; ++n) {
    const int w = group_width(n);
    int want = 1;
    while (want < n && want < kWarpSize) want *= 2;
    CHECK(w == want && (w & (w - 1)) == 0 && w <= kWarpSize, "group_width(%" PRId64 ") = %d, want %d", n, w, want);
  }
  CHECK(choose_splits(10, 1000, 1) == 1 && choose_splits(600, 1000, 64) == 1 && choose_splits(10, 1000, 64) == 64 &&
            choose_splits(10, 1000, 500) == 100,
        "choose_splits");
  CHECK(grid_for(5, 10) == 5 && grid_for(1000, 10) == 80, "grid_for");
  CHECK(ceil_div(10, 3) == 4 && align_up(1) == kWorkspaceAlignment && with_alignment_slack(0) == 0, "sizes");
}

}  // namespace

int main() {
  test_warp_reduce();
  test_block_reduce<kWarpSize>();
  test_block_reduce<128>();
  test_block_reduce<256>();
  test_block_reduce<512>();
  test_block_reduce<1024>();
  test_row_groups();
  test_packs();
  test_for_each_pack();
  test_pipelined();
  test_loads();
  test_host_helpers();
  std::printf("%s on the SIMT emulator: %d checks, %d failed (%llu fiber switches)\n", BUILD_NAME, checks, failures,
              static_cast<unsigned long long>(oprt_simt::state().switches));
  return failures == 0 ? 0 : 1;
}
