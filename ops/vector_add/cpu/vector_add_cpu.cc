// vector_add on the CPU reference backend.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/vector_add/vector_add.h"

namespace oprt {
namespace {

const VectorAddKernel cpu_vector_add = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *c, const void *a, const void *b, oprt_stream_t) {
      const void *inputs[] = {a, b};
      cpu::elementwise(plan, AddFunctor{}, c, inputs);
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = vector_add_kernels().add(OPRT_BACKEND_CPU, &cpu_vector_add);

}  // namespace
}  // namespace oprt
