// softmax / log_softmax on the CPU reference backend, in f64 for every dtype, one slice (the elements
// along the axis) at a time in an f64 row buffer that stays in cache:
//   m = max(x), s = sum(exp(x - m)), y = exp(x - m) * (1 / s)  or  (x - m) - log(s),
// each result rounded once to the dtype (exp only as exact as that rounding needs, vector_math.h). s follows the backend's one summation order (vector_math.h);
// slices go across threads whole, so the bits do not depend on the number of threads. Special values
// come out of the formula as in torch: a NaN anywhere makes s NaN; all -inf gives (-inf) - (-inf) = NaN.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "ops/common/cpu/float_types.h"
#include "ops/common/cpu/strided.h"
#include "ops/common/cpu/thread_pool.h"
#include "ops/common/cpu/vector_math.h"
#include "ops/softmax/softmax.h"

namespace oprt {
namespace {

constexpr int64_t kWorkPerElement = 16;  // an exp and a few passes over cached data: for parallel_for

template <class T>
void softmax_rows(const SoftmaxPlan &plan, T *y, const T *x) {
  const int64_t n = plan.dim;
  const int64_t x_step = plan.x.ndim > 0 ? plan.x.strides[plan.axis] : 1;
  const int64_t y_step = plan.y.ndim > 0 ? plan.y.strides[plan.axis] : 1;
  cpu::Dims<2> slices;  // every dim but the axis, x and y together
  for (int32_t d = 0; d < plan.x.ndim; ++d) {
    if (d != plan.axis) slices.push(plan.x.shape[d], {plan.x.strides[d], plan.y.strides[d]});
  }
  // Per thread: the slice, and (log_softmax) one chunk of exp(x - m).
  const int threads = cpu::num_threads();
  const int64_t scratch = n + cpu::kSumChunk;
  std::vector<double> buffers(static_cast<size_t>(threads * scratch));
  cpu::parallel_for(slices.numel(), n * kWorkPerElement, [&](int64_t begin, int64_t end, int thread) {
    double *row = buffers.data() + thread * scratch, *exps = row + n;
    cpu::Walk<2> slice(slices, begin);
    for (int64_t i = begin; i < end; ++i, slice.next()) {
      cpu::gather(x + slice[0], x_step, n, row);
      const double m = cpu::max(row, n);
      cpu::PairwiseSum sum;
      for (int64_t first = 0; first < n; first += cpu::kSumChunk) {
        const int64_t count = std::min(cpu::kSumChunk, n - first);
        double *e = plan.log ? exps : row + first;  // softmax keeps exp(x - m); log_softmax needs x later
        if constexpr (std::is_same_v<T, double>) {
          cpu::exp_shifted(row + first, m, e, count);
        } else {
          cpu::exp_shifted_for_f32(row + first, m, e, count);
        }
        sum.add(cpu::sum_chunk(e, count));
      }
      const double s = sum.total();
      if (plan.log) {
        cpu::subtract(row, n, m, std::log(s));
      } else {
        cpu::scale(row, n, 1.0 / s);
      }
      cpu::scatter(row, y + slice[1], y_step, n);
    }
  });
}

oprt_status_t softmax_cpu(const SoftmaxPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
  cpu::dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_rows(plan, static_cast<T *>(y), static_cast<const T *>(x));
  });
  return OPRT_STATUS_SUCCESS;
}

const SoftmaxKernel cpu_softmax = {[](const SoftmaxPlan &) -> size_t { return 0; }, softmax_cpu};

[[maybe_unused]] const bool registered = register_softmax_kernel(OPRT_BACKEND_CPU, &cpu_softmax);

}  // namespace
}  // namespace oprt
