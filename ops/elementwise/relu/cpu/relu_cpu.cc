// relu on the CPU reference backend: the elementwise framework's loop with the shared functor.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/elementwise/relu/relu.h"

namespace oprt {
namespace {

// Plain relu as its own type, so the compiler sees the slope is 0: the functor's test of the slope
// leaves the loop and the rest is a select that vectorizes.
struct ZeroSlopeRelu {
  static constexpr int kArity = 1;
  template <class C>
  C operator()(C x) const {
    return LeakyReluFunctor{0.0}(x);
  }
};

const ReluKernel cpu_relu = {
    [](const ReluPlan &) -> size_t { return 0; },
    [](const ReluPlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      const void *inputs[] = {x};
      if (plan.negative_slope == 0.0) {
        cpu::elementwise(plan.elementwise, ZeroSlopeRelu{}, y, inputs);
      } else {
        cpu::elementwise(plan.elementwise, LeakyReluFunctor{plan.negative_slope}, y, inputs);
      }
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = relu_kernels().add(OPRT_BACKEND_CPU, &cpu_relu);

}  // namespace
}  // namespace oprt
