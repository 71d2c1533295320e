// reduce_sum on the CPU reference backend: walk x once in row-major order, adding each element into
// its output's f64 accumulator; the fixed order makes it deterministic.
#include <vector>

#include "ops/common/cpu/float_types.h"
#include "ops/reduce_sum/reduce_sum.h"

namespace oprt {
namespace {

oprt_status_t reduce_sum_cpu(const ReduceSumPlan &plan, void *, void *y_data, const void *x_data, oprt_stream_t) {
  const Layout &x = plan.x;
  // Row-major index of each x dim's output element in a dense y (0 along reduced dims).
  int64_t acc_stride[OPRT_MAX_NDIM] = {};
  int64_t stride = 1;
  for (int32_t d = x.ndim - 1; d >= 0; --d) {
    if (plan.reduced[d]) continue;
    acc_stride[d] = stride;
    stride *= x.shape[d];
  }
  std::vector<double> acc(static_cast<size_t>(plan.y_numel), 0.0);
  cpu::dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *xs = static_cast<const T *>(x_data);
    int64_t index[OPRT_MAX_NDIM] = {};
    for (int64_t i = 0; i < plan.x_numel; ++i) {
      int64_t x_offset = 0, acc_index = 0;
      for (int32_t d = 0; d < x.ndim; ++d) {
        x_offset += index[d] * x.strides[d];
        acc_index += index[d] * acc_stride[d];
      }
      acc[acc_index] += cpu::load(xs + x_offset);
      for (int32_t d = x.ndim - 1; d >= 0 && ++index[d] == x.shape[d]; --d) index[d] = 0;
    }
    // y's dims are x's kept dims (plus extent-1 dims when keepdims): write acc in row-major order.
    T *ys = static_cast<T *>(y_data);
    const Layout &y = plan.y;
    int64_t y_index[OPRT_MAX_NDIM] = {};
    for (int64_t i = 0; i < plan.y_numel; ++i) {
      int64_t y_offset = 0;
      for (int32_t d = 0; d < y.ndim; ++d) y_offset += y_index[d] * y.strides[d];
      cpu::store(ys + y_offset, acc[i]);
      for (int32_t d = y.ndim - 1; d >= 0 && ++y_index[d] == y.shape[d]; --d) y_index[d] = 0;
    }
  });
  return OPRT_STATUS_SUCCESS;
}

const ReduceSumKernel cpu_reduce_sum = {[](const ReduceSumPlan &) -> size_t { return 0; }, reduce_sum_cpu};

[[maybe_unused]] const bool registered = reduce_sum_kernels().add(OPRT_BACKEND_CPU, &cpu_reduce_sum);

}  // namespace
}  // namespace oprt
