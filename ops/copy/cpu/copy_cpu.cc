// copy on the CPU reference backend: elements move as raw bits (NaN payloads survive), as on devices.
// A contiguous copy is memcpy over pieces split across threads; any other layout runs through the
// elementwise framework on unsigned integers of the element's size.
#include <cstring>

#include "ops/common/cpu/elementwise_cpu.h"
#include "ops/copy/copy.h"

namespace oprt {
namespace {

const CopyKernel cpu_copy = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *y, const void *x, oprt_stream_t) {
      if (plan.contiguous) {
        // No overlap here: the entry point returns early for y == x and rejects partial overlap.
        const size_t size = oprt_dtype_size(plan.dtype);
        cpu::parallel_for(plan.numel, 1, [&](int64_t begin, int64_t end, int) {
          std::memcpy(static_cast<char *>(y) + begin * size, static_cast<const char *>(x) + begin * size,
                       (end - begin) * size);
        });
        return OPRT_STATUS_SUCCESS;
      }
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
