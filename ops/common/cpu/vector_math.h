// The CPU kernels' inner loops: conversions, sums and exp over contiguous arrays. vector_math.cc is
// compiled with the vectorizer on and once per x86-64 level (see OPRT_CPU_CLONES there), the best one
// picked when the library loads; the kernels around these loops are plain C++.
#ifndef OPS_COMMON_CPU_VECTOR_MATH_H_
#define OPS_COMMON_CPU_VECTOR_MATH_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/common/cpu/float_types.h"

namespace oprt::cpu {

// to[i] = from[i] converted, i < n; rounding once (f64 -> f16/bf16 through half_source).
void convert(const float16 *from, float *to, int64_t n);
void convert(const bfloat16 *from, float *to, int64_t n);
void convert(const float16 *from, double *to, int64_t n);
void convert(const bfloat16 *from, double *to, int64_t n);
void convert(const float *from, double *to, int64_t n);
void convert(const float *from, float16 *to, int64_t n);
void convert(const float *from, bfloat16 *to, int64_t n);
void convert(const double *from, float16 *to, int64_t n);
void convert(const double *from, bfloat16 *to, int64_t n);
void convert(const double *from, float *to, int64_t n);
template <class T>
inline void convert(const T *from, T *to, int64_t n) {
  std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
}

// out[i] = p[i * stride] as C, i < n (a converting copy when stride is 1).
template <class C, class T>
void gather(const T *p, int64_t stride, int64_t n, C *out) {
  if (stride == 1) {
    convert(p, out, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<C>(load(p + i * stride));
  }
}

// p[i * stride] = in[i] rounded once to T, i < n.
template <class T, class C>
void scatter(const C *in, T *p, int64_t stride, int64_t n) {
  if (stride == 1) {
    convert(in, p, n);
  } else {
    for (int64_t i = 0; i < n; ++i) store(p + i * stride, in[i]);
  }
}

// The one summation order of the CPU backend (reduce_sum, softmax's denominators), in f64: element i of
// a sequence goes to chunk i / kSumChunk and, inside it, to lane i % kSumLanes; a lane adds its elements
// in order from +0, a chunk's lanes are added as a fixed tree (combine_lanes) and the chunks pairwise
// (PairwiseSum). The order depends on the sequence's length alone, so any split of the work over threads
// and any memory layout give the same bits, and an element goes through at most kSumChunk / kSumLanes
// + log2(kSumLanes) + log2(n / kSumChunk) roundings instead of up to n.
constexpr int64_t kSumLanes = 16;
constexpr int64_t kSumChunk = 4096;

// Sum of one chunk (n <= kSumChunk contiguous elements, each widened to f64).
template <class T>
double sum_chunk(const T *x, int64_t n);
// The fixed tree over kSumLanes lane sums lanes[0], lanes[stride], ... (sum_chunk ends with it).
double combine_lanes(const double *lanes, int64_t stride);

// Adds chunk sums pairwise in arrival order: a complete group of 2^k chunks is one balanced tree.
class PairwiseSum {
 public:
  void add(double chunk) {
    int level = 0;
    for (int64_t c = count_; c & 1; c >>= 1) chunk = partial_[level++] + chunk;
    partial_[level] = chunk;
    ++count_;
  }
  double total() const {
    double t = 0.0;
    for (int level = 0; level < 64; ++level) {
      if (count_ >> level & 1) t = partial_[level] + t;
    }
    return t;
  }

 private:
  double partial_[64];  // partial_[k]: a finished group of 2^k chunks, valid where bit k of count_ is set
  int64_t count_ = 0;
};

// max(x[0, n)), NaNs ignored (a NaN reaches softmax's results through its sum); -inf when n == 0.
double max(const double *x, int64_t n);
// out[i] = exp(x[i] - m), i < n, where x[i] <= m or either is NaN or infinite (out may be x): within a
// few f64 ulps, or (_for_f32, faster) within 2^-32 relative, for results that are rounded to f32 or
// narrower (one rounding of a value that close is as good as of the exact one, but for rare near-ties).
void exp_shifted(const double *x, double m, double *out, int64_t n);
void exp_shifted_for_f32(const double *x, double m, double *out, int64_t n);
// x[i] *= s.
void scale(double *x, int64_t n, double s);
// x[i] = (x[i] - a) - b.
void subtract(double *x, int64_t n, double a, double b);

// Column tiles (the column paths of reduce_sum and softmax): up to kTileColumns neighbouring sums or
// slices, read a row at a time (row i holds element i of each: a contiguous run of x).
constexpr int64_t kTileColumns = 1024;

// Columns per tile for rows `width` long when there are `rows` such rows (tiles side by side): whole rows
// up to kTileColumns (long contiguous reads), but narrower when that leaves a thread without a tile.
int64_t tile_width(int64_t width, int64_t rows);

// The sums of a tile's columns, fed a row at a time: each column in the summation order above (lane
// i % kSumLanes of chunk i / kSumChunk), so it has the bits sum_chunk and PairwiseSum give over the
// same elements in a row.
class ColumnSums {
 public:
  explicit ColumnSums(int64_t max_width);
  // Starts a tile of `width` <= max_width columns.
  void reset(int64_t width);
  // `width` values: element i of each column for the i-th call (widened to f64 as they are added).
  template <class T>
  void add_row(const T *row);
  // After the last row: the sum of each column.
  void finish(double *sums);

 private:
  void end_chunk();

  std::vector<double> lanes_;  // [kSumLanes][max_width]
  std::vector<PairwiseSum> chunks_;
  int64_t max_width_, width_ = 0, rows_ = 0;
};

// Element by element over a tile row: m[j] = max(m[j], row[j]) (NaNs in row ignored), x[j] -= m[j],
// x[j] *= s[j], for j < n.
void max_into(double *m, int64_t n, const double *row);
void subtract_each(double *x, int64_t n, const double *m);
void scale_each(double *x, int64_t n, const double *s);

}  // namespace oprt::cpu

#endif  // OPS_COMMON_CPU_VECTOR_MATH_H_
