// softmax / log_softmax on the CPU reference backend, in f64 for every dtype:
//   m = max(x) (NaN if any x is NaN), s = sum(exp(x - m)), y = exp(x - m) / s  or  x - m - log(s).
// The special values fall out of the formula as in torch: all -inf gives (-inf) - (-inf) = NaN.
#include <cmath>
#include <limits>

#include "ops/common/cpu/float_types.h"
#include "ops/softmax/softmax.h"

namespace oprt {
namespace {

oprt_status_t softmax_cpu(const SoftmaxPlan &plan, void *, void *y_data, const void *x_data, oprt_stream_t) {
  const Layout &x = plan.x, &y = plan.y;
  const int32_t ndim = x.ndim;
  const int64_t x_step = ndim ? x.strides[plan.axis] : 0, y_step = ndim ? y.strides[plan.axis] : 0;
  cpu::dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *xs = static_cast<const T *>(x_data);
    T *ys = static_cast<T *>(y_data);
    int64_t index[OPRT_MAX_NDIM] = {};  // over every dim but the axis
    for (int64_t row = 0; row < plan.outer * plan.inner; ++row) {
      int64_t x_base = 0, y_base = 0;
      for (int32_t d = 0; d < ndim; ++d) {
        x_base += index[d] * x.strides[d];
        y_base += index[d] * y.strides[d];
      }
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < plan.dim; ++k) {
        const double v = cpu::load(xs + x_base + k * x_step);
        if (v > m || v != v) m = v;
        if (m != m) break;
      }
      double s = 0.0;
      for (int64_t k = 0; k < plan.dim; ++k) s += std::exp(cpu::load(xs + x_base + k * x_step) - m);
      const double log_s = std::log(s);
      for (int64_t k = 0; k < plan.dim; ++k) {
        const double shifted = cpu::load(xs + x_base + k * x_step) - m;
        cpu::store(ys + y_base + k * y_step, plan.log ? shifted - log_s : std::exp(shifted) / s);
      }
      for (int32_t d = ndim - 1; d >= 0; --d) {  // next row: odometer over the non-axis dims
        if (d == plan.axis) continue;
        if (++index[d] < x.shape[d]) break;
        index[d] = 0;
      }
    }
  });
  return OPRT_STATUS_SUCCESS;
}

const SoftmaxKernel cpu_softmax = {[](const SoftmaxPlan &) -> size_t { return 0; }, softmax_cpu};

[[maybe_unused]] const bool registered = register_softmax_kernel(OPRT_BACKEND_CPU, &cpu_softmax);

}  // namespace
}  // namespace oprt
