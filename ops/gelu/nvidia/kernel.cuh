// gelu on the device: the elementwise framework (vectorized loads, any strides) with the shared functor.
#ifndef OPS_GELU_NVIDIA_KERNEL_CUH_
#define OPS_GELU_NVIDIA_KERNEL_CUH_

#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/gelu/gelu.h"
#include "ops/runtime/todo.h"  // after gelu.h: OPRT_RETURN_IF_TODO_LEFT follows its OPRT_TODO_LEFT

namespace oprt::gpu {

inline oprt_status_t launch_gelu(const ElementwisePlan &plan, void *y, const void *x, oprt_stream_t stream) {
  OPRT_RETURN_IF_TODO_LEFT();
  const void *inputs[] = {x};
  return launch_elementwise(plan, GeluFunctor{}, y, inputs, stream);
}

}  // namespace oprt::gpu

#endif  // OPS_GELU_NVIDIA_KERNEL_CUH_
