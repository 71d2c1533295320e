// softmax / log_softmax on the CPU reference backend, in f64 for every dtype:
//   m = max(x), s = sum(exp(x - m)), y = exp(x - m) * (1 / s)  or  (x - m) - log(s),
// each result rounded once to the dtype (exp only as exact as that rounding needs, see vector_math.h),
// s in the backend's one summation order. Slices (the elements along the axis) go across threads whole,
// so the bits do not depend on the number of threads. Two ways through x, with the same arithmetic:
//   rows: a slice at a time in an f64 buffer that stays in cache (gathered when the axis is strided);
//   tiles: when the axis is strided but the innermost other dim is contiguous, neighbouring slices
//     together, x read a contiguous tile row at a time.
// Special values come out of the formula as in torch: a NaN anywhere makes s NaN; all -inf gives
// (-inf) - (-inf) = NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/common/cpu/float_types.h"
#include "ops/common/cpu/strided.h"
#include "ops/common/cpu/thread_pool.h"
#include "ops/common/cpu/vector_math.h"
#include "ops/softmax/softmax.h"

namespace oprt {
namespace {

using cpu::kTileColumns;

constexpr int64_t kWorkPerElement = 16;  // an exp and a few passes over cached data: for parallel_for

// x and y around the axis: every other dim (the slices; x and y walked together), the axis' extent and
// steps.
struct Shape {
  cpu::Dims<2> slices;
  int64_t n, x_step, y_step;
};

Shape shape_of(const SoftmaxPlan &plan) {
  Shape s;
  for (int32_t d = 0; d < plan.x.ndim; ++d) {
    if (d != plan.axis) s.slices.push(plan.x.shape[d], {plan.x.strides[d], plan.y.strides[d]});
  }
  s.n = plan.dim;
  s.x_step = plan.x.ndim > 0 ? plan.x.strides[plan.axis] : 1;
  s.y_step = plan.y.ndim > 0 ? plan.y.strides[plan.axis] : 1;
  return s;
}

// out[i] = exp(x[i] - m), as exact as results rounded to T need.
template <class T>
void exp_for(const double *x, double m, double *out, int64_t n) {
  if constexpr (std::is_same_v<T, double>) {
    cpu::exp_shifted(x, m, out, n);
  } else {
    cpu::exp_shifted_for_f32(x, m, out, n);
  }
}

template <class T>
void softmax_rows(bool log, const Shape &s, T *y, const T *x) {
  const int64_t n = s.n;
  // Per thread: the slice, and (log_softmax) one chunk of exp(x - m).
  const int64_t scratch = n + (log ? std::min(n, cpu::kSumChunk) : 0);
  const int64_t slices = s.slices.numel();
  std::vector<double> buffers(static_cast<size_t>(cpu::threads_for(slices, n * kWorkPerElement) * scratch));
  cpu::parallel_for(slices, n * kWorkPerElement, [&](int64_t begin, int64_t end, int thread) {
    double *row = buffers.data() + thread * scratch, *exps = row + n;
    cpu::Walk<2> slice(s.slices, begin);
    for (int64_t i = begin; i < end; ++i, slice.next()) {
      cpu::gather(x + slice[0], s.x_step, n, row);
      const double m = cpu::max(row, n);
      cpu::PairwiseSum sum;
      for (int64_t first = 0; first < n; first += cpu::kSumChunk) {
        const int64_t count = std::min(cpu::kSumChunk, n - first);
        double *e = log ? exps : row + first;  // softmax keeps exp(x - m); log_softmax needs x later
        exp_for<T>(row + first, m, e, count);
        sum.add(cpu::sum_chunk(e, count));
      }
      const double total = sum.total();
      if (log) {
        cpu::subtract(row, n, m, std::log(total));
      } else {
        cpu::scale(row, n, 1.0 / total);
      }
      cpu::scatter(row, y + slice[1], s.y_step, n);
    }
  });
}

// A tile of neighbouring slices at once, for an axis that is not contiguous when the innermost other dim
// is: x is read a tile row (contiguous) at a time, in three passes (max; sum of exp(x - m); the results,
// exp recomputed), each step across the tile with softmax_rows' arithmetic on each slice, so the bits
// are the same.
template <class T>
void softmax_tiles(bool log, const Shape &s, T *y, const T *x) {
  const int32_t last = s.slices.ndim - 1;
  const int64_t width = s.slices.shape[last], y_across = s.slices.stride[1][last];
  cpu::Dims<2> tile_rows;  // the slice dims but the innermost
  for (int32_t d = 0; d < last; ++d) tile_rows.push(s.slices.shape[d], {s.slices.stride[0][d], s.slices.stride[1][d]});
  const int64_t tile = cpu::tile_width(width, tile_rows.numel()), tiles = (width + tile - 1) / tile;
  const int64_t items = tile_rows.numel() * tiles, work = s.n * tile * kWorkPerElement;
  std::vector<cpu::ColumnSums> columns(static_cast<size_t>(cpu::threads_for(items, work)), cpu::ColumnSums(tile));
  cpu::parallel_for(items, work, [&](int64_t begin, int64_t end, int thread) {
    double row[kTileColumns], m[kTileColumns], sums[kTileColumns];
    cpu::ColumnSums &exp_sums = columns[thread];
    for (int64_t item = begin; item < end; ++item) {
      const cpu::Walk<2> base(tile_rows, item / tiles);
      const int64_t first = item % tiles * tile, w = std::min(tile, width - first);
      const T *x_tile = x + base[0] + first;
      T *y_tile = y + base[1] + first * y_across;
      std::fill(m, m + w, -std::numeric_limits<double>::infinity());
      for (int64_t k = 0; k < s.n; ++k) {
        cpu::gather(x_tile + k * s.x_step, 1, w, row);
        cpu::max_into(m, w, row);
      }
      auto shifted_row = [&](int64_t k) {  // row = x - m
        cpu::gather(x_tile + k * s.x_step, 1, w, row);
        cpu::subtract_each(row, w, m);
      };
      exp_sums.reset(w);
      for (int64_t k = 0; k < s.n; ++k) {
        shifted_row(k);
        exp_for<T>(row, 0.0, row, w);
        exp_sums.add_row(row);
      }
      exp_sums.finish(sums);
      for (int64_t j = 0; j < w; ++j) sums[j] = log ? std::log(sums[j]) : 1.0 / sums[j];
      for (int64_t k = 0; k < s.n; ++k) {
        shifted_row(k);
        if (log) {
          cpu::subtract_each(row, w, sums);
        } else {
          exp_for<T>(row, 0.0, row, w);
          cpu::scale_each(row, w, sums);
        }
        cpu::scatter(row, y_tile + k * s.y_step, y_across, w);
      }
    }
  });
}

oprt_status_t softmax_cpu(const SoftmaxPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
  const Shape s = shape_of(plan);
  const bool tiles = s.x_step != 1 && s.slices.ndim > 0 && s.slices.stride[0][s.slices.ndim - 1] == 1;
  cpu::dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (tiles) {
      softmax_tiles(plan.log, s, static_cast<T *>(y), static_cast<const T *>(x));
    } else {
      softmax_rows(plan.log, s, static_cast<T *>(y), static_cast<const T *>(x));
    }
  });
  return OPRT_STATUS_SUCCESS;
}

const SoftmaxKernel cpu_softmax = {[](const SoftmaxPlan &) -> size_t { return 0; }, softmax_cpu};

[[maybe_unused]] const bool registered = register_softmax_kernel(OPRT_BACKEND_CPU, &cpu_softmax);

}  // namespace
}  // namespace oprt
