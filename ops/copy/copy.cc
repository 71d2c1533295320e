// Public entry points of copy (bodies: ops/common/elementwise_entry.h). y == x exactly is a no-op.
#include "operator_runtime/ops/copy.h"

#include "ops/common/elementwise_entry.h"
#include "ops/copy/copy.h"

namespace oprt {
KernelTable<CopyKernel> &copy_kernels() {
  static KernelTable<CopyKernel> table("copy");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const ElementwiseOp<CopyKernel, 1> kCopy = {copy_kernels, "y", {"x"}, /*exact_alias_is_noop=*/true};

extern "C" {

oprt_status_t oprt_create_copy_descriptor(oprt_copy_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                          const oprt_tensor_layout_t *x) {
  return create_elementwise(kCopy, desc, y, {x});
}

oprt_status_t oprt_get_copy_workspace_size(oprt_copy_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, copy_kernels(), bytes);
}

oprt_status_t oprt_copy(oprt_copy_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                        oprt_stream_t stream) {
  return execute_elementwise(kCopy, desc, workspace, workspace_bytes, stream, y, x);
}

oprt_status_t oprt_destroy_copy_descriptor(oprt_copy_descriptor_t desc) {
  return destroy_descriptor(desc, copy_kernels());
}

}  // extern "C"
