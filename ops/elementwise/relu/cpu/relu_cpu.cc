// relu on the CPU reference backend: the elementwise framework's loop with the shared functor.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/elementwise/relu/relu.h"

namespace oprt {
namespace {

const ReluKernel cpu_relu = {
    [](const ReluPlan &) -> size_t { return 0; },
    [](const ReluPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      const void *inputs[] = {x};
      cpu::elementwise(plan.elementwise, LeakyReluFunctor{plan.negative_slope}, y, inputs);
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = relu_kernels().add(OPRT_BACKEND_CPU, &cpu_relu);

}  // namespace
}  // namespace oprt
