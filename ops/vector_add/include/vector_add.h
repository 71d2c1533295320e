/* vector_add: c = a + b with numpy broadcasting: a and b broadcast to c's shape (missing leading dims or
 * extent 1 / stride 0). One dtype for all three. c may alias a or b exactly (in-place), not partially. */
#ifndef OPERATOR_RUNTIME_OPS_VECTOR_ADD_H_
#define OPERATOR_RUNTIME_OPS_VECTOR_ADD_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_vector_add_descriptor *oprt_vector_add_descriptor_t;

OPRT_API oprt_status_t oprt_create_vector_add_descriptor(oprt_vector_add_descriptor_t *desc, const oprt_tensor_layout_t *c, const oprt_tensor_layout_t *a,
                                                 const oprt_tensor_layout_t *b);
OPRT_API oprt_status_t oprt_get_vector_add_workspace_size(oprt_vector_add_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_vector_add(oprt_vector_add_descriptor_t desc, void *workspace, size_t workspace_bytes, void *c, const void *a, const void *b,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_vector_add_descriptor(oprt_vector_add_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
