// copy's "cute" variant (oprt_set_kernel_variant("cute"), oprt.copy(..., impl="cute")): the CuTe tiled
// copy of ops/common/cuda_dialect/cute_elementwise.cuh on raw bits. Built when CUTLASS is available
// (--//tools:cute, third_party/cutlass).
#if OPRT_HAVE_CUTE
#include "ops/common/cuda_dialect/cute_elementwise.cuh"
#include "ops/copy/copy.h"

namespace oprt {
namespace {

const CopyKernel cute_copy = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *y, const void *x, oprt_stream_t stream) {
      return dispatch_bits(plan.dtype, [&](auto bits) {
        using Bits = decltype(bits);
        return gpu::cute_elementwise::launch(plan, CopyFunctor{}, static_cast<Bits *>(y), static_cast<const Bits *>(x),
                                             static_cast<const Bits *>(nullptr), stream);
      });
    },
};

[[maybe_unused]] const bool registered = copy_kernels().add(gpu::kBackend, &cute_copy, "cute");

}  // namespace
}  // namespace oprt
#endif
