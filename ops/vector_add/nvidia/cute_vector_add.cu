// vector_add's "cute" variant: the CuTe tiled kernel of ops/common/cuda_dialect/cute_elementwise.cuh with the
// shared AddFunctor (broadcast and strided calls take the hand-written strided kernel). Built when
// CUTLASS is available (--//tools:cute, third_party/cutlass).
#if OPRT_HAVE_CUTE
#include "ops/common/cuda_dialect/cute_elementwise.cuh"
#include "ops/vector_add/vector_add.h"

namespace oprt {
namespace {

const VectorAddKernel cute_vector_add = {
    [](const ElementwisePlan &) -> size_t { return 0; },
    [](const ElementwisePlan &plan, void *, void *c, const void *a, const void *b, oprt_stream_t stream) {
      return gpu::dispatch_dtype(plan.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return gpu::cute_elementwise::launch(plan, AddFunctor{}, static_cast<T *>(c), static_cast<const T *>(a),
                                             static_cast<const T *>(b), stream);
      });
    },
};

[[maybe_unused]] const bool registered = vector_add_kernels().add(gpu::kBackend, &cute_vector_add, "cute");

}  // namespace
}  // namespace oprt
#endif
