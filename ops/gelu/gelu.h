// gelu's plan (a one-input elementwise plan), kernel table, and the functor every backend runs.
#ifndef OPS_GELU_GELU_H_
#define OPS_GELU_GELU_H_

#include "ops/common/elementwise.h"
#include "ops/common/host_device.h"
#include "ops/runtime/operator.h"

// Until GeluFunctor below computes gelu, every backend's kernel refuses to run with this message.
// TODO: write the functor, then delete this line.
#define OPRT_TODO_LEFT "gelu: kernel not implemented: edit ops/gelu/gelu.h (GeluFunctor), then delete OPRT_TODO_LEFT"

namespace oprt {

using GeluKernel = Kernel<ElementwisePlan, void *, const void *>;
KernelTable<GeluKernel> &gelu_kernels();

// gelu of one element, shared verbatim by the CPU and GPU kernels (OPRT_HOST_DEVICE). C is the compute
// type: float for float32/float16/bfloat16 data, double for float64; the framework loads and stores.
struct GeluFunctor {
  static constexpr int kArity = 1;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    return x;  // TODO: return gelu(x)
  }
};

}  // namespace oprt

#endif  // OPS_GELU_GELU_H_
