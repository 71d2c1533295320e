// copy on the CPU reference backend: elements move as raw bits (NaN payloads survive), as on devices.
#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/copy/copy.h"

namespace oprt {
namespace {

const CopyKernel cpu_copy = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      dispatch_bits(plan.dtype, [&](auto bits) {
        using Bits = decltype(bits);
        cpu::elementwise_as(plan, CopyFunctor{}, static_cast<Bits *>(y), static_cast<const Bits *>(x),
                            static_cast<const Bits *>(nullptr));
      });
      return OPRT_STATUS_SUCCESS;
    },
};

[[maybe_unused]] const bool registered = copy_kernels().add(OPRT_BACKEND_CPU, &cpu_copy);

}  // namespace
}  // namespace oprt
