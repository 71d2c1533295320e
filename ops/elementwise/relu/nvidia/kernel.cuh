// relu / leaky relu on the device: the elementwise framework with the shared LeakyReluFunctor.
#ifndef OPS_ELEMENTWISE_RELU_NVIDIA_KERNEL_CUH_
#define OPS_ELEMENTWISE_RELU_NVIDIA_KERNEL_CUH_

#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/elementwise/relu/relu.h"

namespace oprt::gpu {

inline oprt_status_t launch_relu(const ReluPlan &plan, void *y, const void *x, oprt_stream_t stream) {
  const void *inputs[] = {x};
  return launch_elementwise(plan.elementwise, LeakyReluFunctor{plan.negative_slope}, y, inputs, stream);
}

}  // namespace oprt::gpu

#endif  // OPS_ELEMENTWISE_RELU_NVIDIA_KERNEL_CUH_
