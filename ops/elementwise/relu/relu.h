// relu's plan, functor (shared by every backend) and kernel table.
#ifndef OPS_ELEMENTWISE_RELU_RELU_H_
#define OPS_ELEMENTWISE_RELU_RELU_H_

#include "ops/common/elementwise.h"
#include "ops/common/host_device.h"
#include "ops/runtime/operator.h"

namespace oprt {

struct ReluPlan {
  ElementwisePlan elementwise;
  double negative_slope;  // exact for f64 data; rounded to the compute type for the others
};
using ReluKernel = Kernel<ReluPlan, void *, const void *>;
KernelTable<ReluKernel> &relu_kernels();

// x > 0 ? x : slope * x, with torch's special values: relu(NaN) = NaN and relu(-inf) = 0 when slope == 0.
struct LeakyReluFunctor {
  static constexpr int kArity = 1;
  double negative_slope;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    if (x > C(0) || x != x) return x;
    return negative_slope == 0.0 ? C(0) : x * C(negative_slope);
  }
};

}  // namespace oprt

#endif  // OPS_ELEMENTWISE_RELU_RELU_H_
