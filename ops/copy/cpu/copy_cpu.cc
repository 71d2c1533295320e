// copy on the CPU reference backend.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/copy/copy.h"

namespace oprt {
namespace {

const CopyKernel cpu_copy = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      const void *inputs[] = {x};
      cpu::elementwise(plan, CopyFunctor{}, y, inputs);
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = copy_kernels().add(OPRT_BACKEND_CPU, &cpu_copy);

}  // namespace
}  // namespace oprt
