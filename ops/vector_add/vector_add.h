// vector_add's plan (a two-input elementwise plan), functor and kernel table.
#ifndef OPS_VECTOR_ADD_VECTOR_ADD_H_
#define OPS_VECTOR_ADD_VECTOR_ADD_H_

#include "ops/common/elementwise.h"
#include "ops/common/host_device.h"
#include "ops/runtime/operator.h"

namespace oprt {

using VectorAddKernel = Kernel<ElementwisePlan, void *, const void *, const void *>;
KernelTable<VectorAddKernel> &vector_add_kernels();

struct AddFunctor {
  static constexpr int kArity = 2;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C a, C b) const {
    return a + b;
  }
};

}  // namespace oprt

#endif  // OPS_VECTOR_ADD_VECTOR_ADD_H_
