// copy's plan (a plain elementwise plan), functor and kernel table.
#ifndef OPS_COPY_COPY_H_
#define OPS_COPY_COPY_H_

#include "ops/common/elementwise.h"
#include "ops/common/host_device.h"
#include "ops/runtime/operator.h"

namespace oprt {

using CopyKernel = Kernel<ElementwisePlan, void *, const void *>;
KernelTable<CopyKernel> &copy_kernels();

struct CopyFunctor {
  static constexpr int kArity = 1;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    return x;
  }
};

}  // namespace oprt

#endif  // OPS_COPY_COPY_H_
