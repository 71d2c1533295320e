// gelu on the CPU reference backend: the elementwise framework's loop with the shared functor.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/gelu/gelu.h"
#include "ops/runtime/todo.h"  // after gelu.h: OPRT_RETURN_IF_TODO_LEFT follows its OPRT_TODO_LEFT

namespace oprt {
namespace {

const GeluKernel cpu_gelu = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      OPRT_RETURN_IF_TODO_LEFT();
      const void *inputs[] = {x};
      cpu::elementwise(plan, GeluFunctor{}, y, inputs);
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = gelu_kernels().add(OPRT_BACKEND_CPU, &cpu_gelu);

}  // namespace
}  // namespace oprt
