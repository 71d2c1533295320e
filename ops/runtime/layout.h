// Validation and shape arithmetic on oprt_tensor_layout_t, shared by every operator's entry point.
// Each check names the tensor (and dimension) it rejects in the error detail.
#ifndef OPS_RUNTIME_LAYOUT_H_
#define OPS_RUNTIME_LAYOUT_H_

#include <cstdint>
#include <string>

#include "operator_runtime/api.h"

namespace oprt {

using Layout = oprt_tensor_layout_t;

// Non-null, known dtype, 0 <= ndim <= OPRT_MAX_NDIM, extents >= 0, strides >= 0, and the element count
// and the byte span (offset of the last element plus one, in bytes) both fit in int64.
oprt_status_t check_layout(const Layout *layout, const char *name);
oprt_status_t check_same_dtype(const Layout &a, const char *a_name, const Layout &b, const char *b_name);
oprt_status_t check_same_shape(const Layout &a, const char *a_name, const Layout &b, const char *b_name);
// `in` broadcasts to `out`'s shape under numpy rules (right-aligned; extent 1 or equal).
oprt_status_t check_broadcastable(const Layout &out, const char *out_name, const Layout &in, const char *in_name);
// No two distinct indices of an output may address the same element (e.g. stride 0 with extent > 1).
oprt_status_t check_no_self_overlap(const Layout &out, const char *name);
// Checked at execution time, when data pointers are known: `out` and `in` either do not touch the same
// bytes, or (when allowed) are exactly the same tensor (same pointer, same layout). Conservative: two
// interleaved views that share a byte range count as overlapping.
oprt_status_t check_no_partial_overlap(const Layout &out, const void *out_data, const char *out_name, const Layout &in,
                                       const void *in_data, const char *in_name, bool allow_exact_alias);
// Non-NULL (unless empty) and aligned to the element size.
oprt_status_t check_data(const void *data, const Layout &layout, const char *name);

int64_t numel(const Layout &layout);
bool is_contiguous(const Layout &layout);  // dense row-major (strides of extent-1 dims ignored)
bool same_layout(const Layout &a, const Layout &b);
Layout contiguous_like(const Layout &layout);  // same dtype/shape, dense row-major strides
// `in` expressed over `out`'s dims (numpy broadcasting): leading dims added and broadcast dims get stride 0.
Layout broadcast_to(const Layout &in, const Layout &out);
std::string shape_string(const Layout &layout);
std::string strides_string(const Layout &layout);
const char *dtype_name(oprt_dtype_t dtype);
// Normalises an axis in [-ndim, ndim) into [0, ndim); a 0-d tensor accepts axis 0 and -1 (torch semantics).
oprt_status_t normalize_axis(int32_t axis, int32_t ndim, const char *what, int32_t *out);

}  // namespace oprt

#endif  // OPS_RUNTIME_LAYOUT_H_
