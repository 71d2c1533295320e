// vector_add on the device: the elementwise framework with the shared AddFunctor (broadcasting
// inputs take the framework's strided path).
#ifndef OPS_VECTOR_ADD_NVIDIA_KERNEL_CUH_
#define OPS_VECTOR_ADD_NVIDIA_KERNEL_CUH_

#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/vector_add/vector_add.h"

namespace oprt::gpu {

inline oprt_status_t launch_vector_add(const ElementwisePlan &plan, void *c, const void *a, const void *b,
                                       oprt_stream_t stream) {
  const void *inputs[] = {a, b};
  return launch_elementwise(plan, AddFunctor{}, c, inputs, stream);
}

}  // namespace oprt::gpu

#endif  // OPS_VECTOR_ADD_NVIDIA_KERNEL_CUH_
