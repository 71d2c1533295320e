// reduce_sum on the NVIDIA backend.
#include "kernel.cuh"

namespace oprt {
namespace {

const ReduceSumKernel gpu_reduce_sum = {gpu::reduce_sum_workspace_bytes, gpu::launch_reduce_sum};

[[maybe_unused]] const bool registered = reduce_sum_kernels().add(gpu::kBackend, &gpu_reduce_sum);

}  // namespace
}  // namespace oprt
