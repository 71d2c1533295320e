// gelu on the CPU reference backend: the elementwise framework's loop with the shared functor.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/gelu/gelu.h"

namespace oprt {
namespace {

const GeluKernel cpu_gelu = {
    [](const GeluPlan &) -> size_t { return 0; },
    [](const GeluPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      const void *inputs[] = {x};
      if (plan.tanh_form) {
        cpu::elementwise(plan.elementwise, GeluFunctor<true>{}, y, inputs);
      } else {
        cpu::elementwise(plan.elementwise, GeluFunctor<false>{}, y, inputs);
      }
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = gelu_kernels().add(OPRT_BACKEND_CPU, &cpu_gelu);

}  // namespace
}  // namespace oprt
