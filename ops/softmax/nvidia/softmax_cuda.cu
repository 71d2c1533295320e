// softmax and log_softmax on the NVIDIA backend (one kernel serves both; the plan says which).
#include "kernel.cuh"

namespace oprt {
namespace {

const SoftmaxKernel gpu_softmax = {gpu::softmax_workspace_bytes, gpu::launch_softmax};

[[maybe_unused]] const bool registered = register_softmax_kernel(gpu::kBackend, &gpu_softmax);

}  // namespace
}  // namespace oprt
