// copy's plan (a plain elementwise plan) and kernel table; its functor is the framework's CopyFunctor.
#ifndef OPS_COPY_COPY_H_
#define OPS_COPY_COPY_H_

#include "ops/common/elementwise.h"
#include "ops/runtime/operator.h"

namespace oprt {

using CopyKernel = Kernel<ElementwisePlan, void *, const void *>;
KernelTable<CopyKernel> &copy_kernels();

}  // namespace oprt

#endif  // OPS_COPY_COPY_H_
