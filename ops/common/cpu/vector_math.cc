#include "ops/common/cpu/vector_math.h"

#include <algorithm>
#include <limits>

#include "ops/common/cpu/thread_pool.h"

// Every loop here is compiled for x86-64-v4 (AVX-512), v3 (AVX2) and the x86-64 baseline, and the
// dynamic loader picks the best one the CPU has (GCC function multiversioning: one symbol, an ifunc).
// The loops are written so that the vectorizer (on for this file, see BUILD.bazel) can keep their
// order of operations, and FP contraction is off, so every version gives the same bits.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OPRT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OPRT_CPU_CLONES
#endif

namespace oprt::cpu {
namespace {

inline uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline double bits_double(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

template <class From, class To>
void convert_loop(const From *from, To *to, int64_t n) {
  for (int64_t i = 0; i < n; ++i) store(to + i, load(from + i));
}

// 1 / i! for i <= kDegree, each rounded once (i! itself is exact in f64 up to 18!).
template <int kDegree>
struct InverseFactorials {
  double value[kDegree + 1] = {};
  constexpr InverseFactorials() {
    double factorial = 1.0;
    for (int i = 0; i <= kDegree; ++i) {
      factorial *= i > 1 ? i : 1;
      value[i] = 1.0 / factorial;
    }
  }
};

// exp(x) for x <= 0, -inf or NaN, in f64, branch-free so that it vectorizes: x = k ln2 + r with
// |r| <= ln2 / 2 (Cody-Waite: ln2 split so that k * kLn2Hi is exact), e^r by its Taylor polynomial of
// kDegree, and 2^k as two factors that are both normal, so results down to the smallest subnormal are
// right and anything smaller rounds to 0. The polynomial's relative error is below |r|^(d+1) / (d+1)!:
// 2^-57 for degree 13, 2^-32 for degree 8 (enough for results rounded once to f32 or narrower).
template <int kDegree>
inline double exp_nonpositive(double x) {
  x = x < -746.0 ? -746.0 : x;  // e^-746 < 2^-1076 rounds to 0 (and -inf gives 0); NaN compares false
  constexpr double kShift = 0x1.8p52;  // adding 1.5 * 2^52 rounds to an integer, kept in the low bits
  constexpr double kLn2Hi = 0x1.62e42feep-1, kLn2Lo = 0x1.a39ef35793c76p-33;
  const double shifted = x * 0x1.71547652b82fep0 + kShift;  // x / ln2
  const double k = shifted - kShift;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  static constexpr InverseFactorials<kDegree> c;
  double p = c.value[kDegree];
  for (int i = kDegree - 1; i >= 0; --i) p = p * r + c.value[i];
  // k is in [-1077, 0]; with u = k + 1077, 2^k = 2^(u/2 - 538) * 2^(u - u/2 - 539), biased exponents >= 484.
  const uint64_t u = double_bits(shifted) - double_bits(kShift) + 1077;
  const uint64_t half = u >> 1;
  return p * bits_double((half + 485) << 52) * bits_double((u - half + 484) << 52);
}

}  // namespace

OPRT_CPU_CLONES void convert(const float16 *from, float *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const bfloat16 *from, float *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const float16 *from, double *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const bfloat16 *from, double *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const float *from, double *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const float *from, float16 *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const float *from, bfloat16 *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const double *from, float16 *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const double *from, bfloat16 *to, int64_t n) { convert_loop(from, to, n); }
OPRT_CPU_CLONES void convert(const double *from, float *to, int64_t n) { convert_loop(from, to, n); }

template <class T>
OPRT_CPU_CLONES double sum_chunk(const T *x, int64_t n) {
  double lanes[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
    for (int64_t j = 0; j < kSumLanes; ++j) lanes[j] += static_cast<double>(load(x + i + j));
  }
  for (int64_t j = 0; i + j < n; ++j) lanes[j] += static_cast<double>(load(x + i + j));
  return combine_lanes(lanes, 1);
}
template double sum_chunk(const float16 *, int64_t);
template double sum_chunk(const bfloat16 *, int64_t);
template double sum_chunk(const float *, int64_t);
template double sum_chunk(const double *, int64_t);

double combine_lanes(const double *lanes, int64_t stride) {
  double t[kSumLanes];
  for (int64_t j = 0; j < kSumLanes; ++j) t[j] = lanes[j * stride];
  for (int64_t width = kSumLanes / 2; width > 0; width /= 2) {
    for (int64_t j = 0; j < width; ++j) t[j] += t[j + width];
  }
  return t[0];
}

OPRT_CPU_CLONES double max(const double *x, int64_t n) {
  constexpr int64_t kLanes = 32;  // independent maxima: the loop vectorizes and its chains overlap
  double lanes[kLanes];
  for (double &lane : lanes) lane = -std::numeric_limits<double>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  }
  for (int64_t j = 0; i + j < n; ++j) lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  double m = lanes[0];
  for (int64_t j = 1; j < kLanes; ++j) m = lanes[j] > m ? lanes[j] : m;
  return m;
}

OPRT_CPU_CLONES void exp_shifted(const double *x, double m, double *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = exp_nonpositive<13>(x[i] - m);
}

OPRT_CPU_CLONES void exp_shifted_for_f32(const double *x, double m, double *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = exp_nonpositive<8>(x[i] - m);
}

OPRT_CPU_CLONES void scale(double *x, int64_t n, double s) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

OPRT_CPU_CLONES void subtract(double *x, int64_t n, double a, double b) {
  for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - a) - b;
}

int64_t tile_width(int64_t width, int64_t rows) {
  const int64_t tiles_per_row = std::max<int64_t>(1, num_threads() / std::max<int64_t>(rows, 1));
  return std::min({kTileColumns, width, std::max<int64_t>(64, (width + tiles_per_row - 1) / tiles_per_row)});
}

ColumnSums::ColumnSums(int64_t max_width)
    : lanes_(static_cast<size_t>(kSumLanes * max_width)), chunks_(static_cast<size_t>(max_width)),
      max_width_(max_width) {}

void ColumnSums::reset(int64_t width) {
  std::fill(lanes_.begin(), lanes_.end(), 0.0);
  std::fill(chunks_.begin(), chunks_.end(), PairwiseSum());
  width_ = width;
  rows_ = 0;
}

template <class T>
OPRT_CPU_CLONES void ColumnSums::add_row(const T *row) {
  double *lane = lanes_.data() + rows_ % kSumLanes * max_width_;
  for (int64_t j = 0; j < width_; ++j) lane[j] += static_cast<double>(load(row + j));
  if (++rows_ % kSumChunk == 0) end_chunk();
}
template void ColumnSums::add_row(const float16 *);
template void ColumnSums::add_row(const bfloat16 *);
template void ColumnSums::add_row(const float *);
template void ColumnSums::add_row(const double *);

void ColumnSums::end_chunk() {
  for (int64_t j = 0; j < width_; ++j) chunks_[j].add(combine_lanes(lanes_.data() + j, max_width_));
  std::fill(lanes_.begin(), lanes_.end(), 0.0);
}

void ColumnSums::finish(double *sums) {
  if (rows_ % kSumChunk != 0) end_chunk();
  for (int64_t j = 0; j < width_; ++j) sums[j] = chunks_[j].total();
}

OPRT_CPU_CLONES void max_into(double *m, int64_t n, const double *row) {
  for (int64_t j = 0; j < n; ++j) m[j] = row[j] > m[j] ? row[j] : m[j];
}

OPRT_CPU_CLONES void subtract_each(double *x, int64_t n, const double *m) {
  for (int64_t j = 0; j < n; ++j) x[j] -= m[j];
}

OPRT_CPU_CLONES void scale_each(double *x, int64_t n, const double *s) {
  for (int64_t j = 0; j < n; ++j) x[j] *= s[j];
}

}  // namespace oprt::cpu
