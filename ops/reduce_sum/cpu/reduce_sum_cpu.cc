// reduce_sum on the CPU reference backend. x's dims split into the kept ones (an output each) and the
// reduced ones (summed), each group coalesced. Every output sums its elements, in row-major order over
// the reduced dims, in the backend's one summation order (vector_math.h): f64, blocked and pairwise,
// so the bits depend neither on the number of threads nor on x's layout. Two ways through x:
//   rows: an output's elements are read in runs along the innermost reduced dim (converted as they
//     are summed when it is contiguous); the outputs are split across threads or, when there are
//     fewer outputs than threads, the chunks of each sum are;
//   columns: when the innermost kept dim is contiguous and the reduced ones are not, x is read a row at
//     a time and a tile of neighbouring outputs is summed together (cpu::ColumnSums: the same order).
#include <algorithm>
#include <vector>

#include "ops/common/cpu/float_types.h"
#include "ops/common/cpu/strided.h"
#include "ops/common/cpu/thread_pool.h"
#include "ops/common/cpu/vector_math.h"
#include "ops/reduce_sum/reduce_sum.h"

namespace oprt {
namespace {

using cpu::Dims;
using cpu::kSumChunk;
using cpu::kTileColumns;
using cpu::PairwiseSum;
using cpu::Walk;

// Dims without their innermost one, which comes back as (extent, stride); (1, 1) when there is none.
Dims<1> outer_dims(const Dims<1> &dims, int64_t *extent, int64_t *stride) {
  Dims<1> outer;
  for (int32_t d = 0; d + 1 < dims.ndim; ++d) outer.push(dims.shape[d], {dims.stride[0][d]});
  *extent = dims.ndim > 0 ? dims.shape[dims.ndim - 1] : 1;
  *stride = dims.ndim > 0 ? dims.stride[0][dims.ndim - 1] : 1;
  return outer;
}

struct Shape {
  Dims<1> kept, y;     // x's kept dims (x strides) and y's dims: both in output order
  Dims<1> runs;        // x's reduced dims but the innermost: one run of the sum each
  int64_t run, step;   // the innermost reduced dim: extent and x stride
  int64_t outputs, length;  // and elements per output
};

Shape shape_of(const ReduceSumPlan &plan) {
  Shape s;
  Dims<1> reduced;
  for (int32_t d = 0; d < plan.x.ndim; ++d) {
    (plan.reduced[d] ? reduced : s.kept).push(plan.x.shape[d], {plan.x.strides[d]});
  }
  for (int32_t d = 0; d < plan.y.ndim; ++d) s.y.push(plan.y.shape[d], {plan.y.strides[d]});
  s.runs = outer_dims(reduced, &s.run, &s.step);
  s.outputs = plan.y_numel;
  s.length = reduced.numel();
  return s;
}

// Sum of elements [first, first + n) (one chunk) of the output whose first element is at x.
template <class T>
double chunk_sum(const Shape &s, const T *x, int64_t first, int64_t n, double *buffer) {
  if (s.runs.ndim == 0 && s.step == 1) return cpu::sum_chunk(x + first, n);
  Walk<1> run(s.runs, first / s.run);
  for (int64_t i = 0; i < n; run.next()) {
    const int64_t column = (first + i) % s.run, m = std::min(s.run - column, n - i);
    cpu::gather(x + run[0] + column * s.step, s.step, m, buffer + i);
    i += m;
  }
  return cpu::sum_chunk(buffer, n);
}

template <class T>
void sum_rows(const Shape &s, T *y, const T *x) {
  const int64_t chunks = (s.length + kSumChunk - 1) / kSumChunk;
  const bool by_output = s.outputs >= cpu::num_threads() || chunks < 2;
  // Per thread: a chunk gathered from strided runs.
  const int threads = by_output ? cpu::threads_for(s.outputs, s.length) : cpu::threads_for(chunks, kSumChunk);
  std::vector<double> buffers(static_cast<size_t>(threads) * kSumChunk);
  if (by_output) {
    cpu::parallel_for(s.outputs, s.length, [&](int64_t begin, int64_t end, int thread) {
      Walk<1> kept(s.kept, begin), out(s.y, begin);
      for (int64_t o = begin; o < end; ++o, kept.next(), out.next()) {
        PairwiseSum sum;
        for (int64_t first = 0; first < s.length; first += kSumChunk) {
          sum.add(chunk_sum(s, x + kept[0], first, std::min(kSumChunk, s.length - first),
                            buffers.data() + thread * kSumChunk));
        }
        cpu::store(y + out[0], sum.total());
      }
    });
    return;
  }
  // Few long sums: the chunks of each go across threads, then add up in order.
  std::vector<double> partial(static_cast<size_t>(chunks));
  Walk<1> kept(s.kept, 0), out(s.y, 0);
  for (int64_t o = 0; o < s.outputs; ++o, kept.next(), out.next()) {
    cpu::parallel_for(chunks, kSumChunk, [&](int64_t begin, int64_t end, int thread) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t first = c * kSumChunk;
        partial[c] = chunk_sum(s, x + kept[0], first, std::min(kSumChunk, s.length - first),
                               buffers.data() + thread * kSumChunk);
      }
    });
    PairwiseSum sum;
    for (double p : partial) sum.add(p);
    cpu::store(y + out[0], sum.total());
  }
}

template <class T>
void sum_columns(const Shape &s, T *y, const T *x) {
  int64_t width, unit_stride;
  const Dims<1> kept_rows = outer_dims(s.kept, &width, &unit_stride);
  Dims<1> reduced = s.runs;
  reduced.push(s.run, {s.step});
  const int64_t tile = cpu::tile_width(width, kept_rows.numel()), tiles = (width + tile - 1) / tile;
  const int64_t items = kept_rows.numel() * tiles;
  std::vector<cpu::ColumnSums> columns(static_cast<size_t>(cpu::threads_for(items, s.length * tile)),
                                       cpu::ColumnSums(tile));
  cpu::parallel_for(items, s.length * tile, [&](int64_t begin, int64_t end, int thread) {
    double sums[kTileColumns];
    cpu::ColumnSums &tile_sums = columns[thread];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t first = item % tiles * tile, n = std::min(tile, width - first);
      const T *x_tile = x + Walk<1>(kept_rows, item / tiles)[0] + first;
      tile_sums.reset(n);
      Walk<1> element(reduced, 0);
      for (int64_t i = 0; i < s.length; ++i, element.next()) tile_sums.add_row(x_tile + element[0]);
      tile_sums.finish(sums);
      Walk<1> out(s.y, item / tiles * width + first);
      for (int64_t j = 0; j < n; ++j, out.next()) cpu::store(y + out[0], sums[j]);
    }
  });
}

oprt_status_t reduce_sum_cpu(const ReduceSumPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
  const Shape s = shape_of(plan);
  const bool rows_contiguous = s.runs.ndim == 0 && s.step == 1;
  const bool columns_contiguous = s.kept.ndim > 0 && s.kept.stride[0][s.kept.ndim - 1] == 1;
  cpu::dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (columns_contiguous && !rows_contiguous && s.length > 0) {
      sum_columns(s, static_cast<T *>(y), static_cast<const T *>(x));
    } else {
      sum_rows(s, static_cast<T *>(y), static_cast<const T *>(x));
    }
  });
  return OPRT_STATUS_SUCCESS;
}

const ReduceSumKernel cpu_reduce_sum = {[](const ReduceSumPlan &) -> size_t { return 0; }, reduce_sum_cpu};

[[maybe_unused]] const bool registered = reduce_sum_kernels().add(OPRT_BACKEND_CPU, &cpu_reduce_sum);

}  // namespace
}  // namespace oprt
