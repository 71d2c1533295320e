// softmax / log_softmax: one plan and one kernel per backend serve both (`log` selects the output).
#ifndef OPS_SOFTMAX_SOFTMAX_H_
#define OPS_SOFTMAX_SOFTMAX_H_

#include "ops/runtime/layout.h"
#include "ops/runtime/operator.h"

namespace oprt {

struct SoftmaxPlan {
  oprt_dtype_t dtype;
  bool log;     // log_softmax
  Layout x, y;  // the caller's layouts (same shape)
  int32_t axis;  // normalised; 0 for a 0-d tensor
  // x's shape around the axis: outer = product of dims before it, inner = product after it.
  int64_t outer, dim, inner;
  // x and y are both contiguous: element (o, k, i) is at (o * dim + k) * inner + i in each.
  bool dense;
};
using SoftmaxKernel = Kernel<SoftmaxPlan, void *, const void *>;
KernelTable<SoftmaxKernel> &softmax_kernels();
KernelTable<SoftmaxKernel> &log_softmax_kernels();

// Backends register one kernel for both operators.
inline bool register_softmax_kernel(oprt_backend_t backend, const SoftmaxKernel *kernel) {
  return softmax_kernels().add(backend, kernel) && log_softmax_kernels().add(backend, kernel);
}

}  // namespace oprt

#endif  // OPS_SOFTMAX_SOFTMAX_H_
