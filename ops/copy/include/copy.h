/* copy: y = x for any input and output strides (a transposing copy is a copy). Same shape and dtype.
 * x may broadcast (0 strides); y must not overlap itself; y may alias x only exactly (same pointer, same layout). */
#ifndef OPERATOR_RUNTIME_OPS_COPY_H_
#define OPERATOR_RUNTIME_OPS_COPY_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_copy_descriptor *oprt_copy_descriptor_t;

OPRT_API oprt_status_t oprt_create_copy_descriptor(oprt_copy_descriptor_t *desc, const oprt_tensor_layout_t *y, const oprt_tensor_layout_t *x);
OPRT_API oprt_status_t oprt_get_copy_workspace_size(oprt_copy_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_copy(oprt_copy_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_copy_descriptor(oprt_copy_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
