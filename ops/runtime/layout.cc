#include "ops/runtime/layout.h"

#include <algorithm>
#include <cstring>

#include "ops/runtime/status.h"

namespace oprt {

const char *dtype_name(oprt_dtype_t dtype) {
  switch (dtype) {
    case OPRT_DTYPE_F32: return "f32";
    case OPRT_DTYPE_F16: return "f16";
    case OPRT_DTYPE_BF16: return "bf16";
    case OPRT_DTYPE_F64: return "f64";
  }
  return "unknown";
}

static std::string join(const int64_t *values, int32_t n) {
  std::string s = "(";
  for (int32_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (n == 1 ? ",)" : ")");
}

std::string shape_string(const Layout &layout) { return join(layout.shape, layout.ndim); }
std::string strides_string(const Layout &layout) { return join(layout.strides, layout.ndim); }

oprt_status_t check_layout(const Layout *layout, const char *name) {
  if (layout == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "layout of %s is NULL", name);
  if (oprt_dtype_size(layout->dtype) == 0) {
    return fail(OPRT_STATUS_BAD_DTYPE, "%s has unknown dtype %d (expected f32=0, f16=1, bf16=2, f64=3)", name,
                layout->dtype);
  }
  if (layout->ndim < 0 || layout->ndim > OPRT_MAX_NDIM) {
    return fail(OPRT_STATUS_BAD_SHAPE, "%s has ndim %d; supported 0..%d", name, layout->ndim, OPRT_MAX_NDIM);
  }
  int64_t count = 1, last = 0;  // element count; offset of the last element
  for (int32_t d = 0; d < layout->ndim; ++d) {
    const int64_t extent = layout->shape[d], stride = layout->strides[d];
    if (extent < 0) {
      return fail(OPRT_STATUS_BAD_SHAPE, "%s has negative extent %lld in dim %d", name, (long long)extent, d);
    }
    if (stride < 0) {
      return fail(OPRT_STATUS_BAD_STRIDES, "%s has negative stride %lld in dim %d (negative strides are not supported)",
                  name, (long long)stride, d);
    }
    if (__builtin_mul_overflow(count, extent, &count)) {
      return fail(OPRT_STATUS_BAD_SHAPE, "%s has more than 2^63 elements", name);
    }
    int64_t step;
    if (extent > 0 && (__builtin_mul_overflow(extent - 1, stride, &step) || __builtin_add_overflow(last, step, &last))) {
      return fail(OPRT_STATUS_BAD_STRIDES, "%s with shape %s and strides %s spans more than 2^63 elements", name,
                  shape_string(*layout).c_str(), strides_string(*layout).c_str());
    }
  }
  // Every byte offset the kernels compute must fit in int64 too.
  int64_t bytes;
  if (count > 0 && __builtin_mul_overflow(last + 1, static_cast<int64_t>(oprt_dtype_size(layout->dtype)), &bytes)) {
    return fail(OPRT_STATUS_BAD_STRIDES, "%s with shape %s and strides %s spans more than 2^63 bytes", name,
                shape_string(*layout).c_str(), strides_string(*layout).c_str());
  }
  return OPRT_STATUS_SUCCESS;
}

oprt_status_t check_same_dtype(const Layout &a, const char *a_name, const Layout &b, const char *b_name) {
  if (a.dtype == b.dtype) return OPRT_STATUS_SUCCESS;
  return fail(OPRT_STATUS_BAD_DTYPE, "%s is %s but %s is %s; both must have the same dtype", a_name, dtype_name(a.dtype),
              b_name, dtype_name(b.dtype));
}

oprt_status_t check_same_shape(const Layout &a, const char *a_name, const Layout &b, const char *b_name) {
  bool same = a.ndim == b.ndim && std::equal(a.shape, a.shape + a.ndim, b.shape);
  if (same) return OPRT_STATUS_SUCCESS;
  return fail(OPRT_STATUS_BAD_SHAPE, "%s has shape %s but %s has shape %s; they must match", a_name,
              shape_string(a).c_str(), b_name, shape_string(b).c_str());
}

oprt_status_t check_broadcastable(const Layout &out, const char *out_name, const Layout &in, const char *in_name) {
  if (in.ndim > out.ndim) {
    return fail(OPRT_STATUS_BAD_SHAPE, "%s %s has more dims than %s %s", in_name, shape_string(in).c_str(), out_name,
                shape_string(out).c_str());
  }
  const int32_t lead = out.ndim - in.ndim;
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (in.shape[d] != 1 && in.shape[d] != out.shape[lead + d]) {
      return fail(OPRT_STATUS_BAD_SHAPE, "%s %s does not broadcast to %s %s (dim %d: %lld vs %lld)", in_name,
                  shape_string(in).c_str(), out_name, shape_string(out).c_str(), d, (long long)in.shape[d],
                  (long long)out.shape[lead + d]);
    }
  }
  return OPRT_STATUS_SUCCESS;
}

int64_t numel(const Layout &layout) {
  int64_t n = 1;
  for (int32_t d = 0; d < layout.ndim; ++d) n *= layout.shape[d];
  return n;
}

bool is_contiguous(const Layout &layout) {
  int64_t expected = 1;
  for (int32_t d = layout.ndim - 1; d >= 0; --d) {
    if (layout.shape[d] == 1) continue;
    if (layout.strides[d] != expected) return false;
    expected *= layout.shape[d];
  }
  return true;
}

bool same_layout(const Layout &a, const Layout &b) {
  if (a.dtype != b.dtype || a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
    if (a.shape[d] != 1 && a.strides[d] != b.strides[d]) return false;
  }
  return true;
}

Layout contiguous_like(const Layout &layout) {
  Layout dense = layout;
  int64_t stride = 1;
  for (int32_t d = layout.ndim - 1; d >= 0; --d) {
    dense.strides[d] = stride;
    stride *= layout.shape[d];
  }
  return dense;
}

Layout broadcast_to(const Layout &in, const Layout &out) {
  Layout result = out;
  result.dtype = in.dtype;
  const int32_t lead = out.ndim - in.ndim;
  for (int32_t d = 0; d < out.ndim; ++d) {
    const int32_t src = d - lead;
    const bool broadcast = src < 0 || in.shape[src] == 1;
    result.strides[d] = broadcast ? 0 : in.strides[src];
  }
  return result;
}

oprt_status_t check_no_self_overlap(const Layout &out, const char *name) {
  if (numel(out) <= 1) return OPRT_STATUS_SUCCESS;
  // Sort the non-trivial dims by stride; each stride must step past everything the smaller ones span.
  int32_t order[OPRT_MAX_NDIM];
  int32_t n = 0;
  for (int32_t d = 0; d < out.ndim; ++d) {
    if (out.shape[d] > 1) order[n++] = d;
  }
  for (int32_t i = 1; i < n; ++i) {  // insertion sort: at most 8 dims
    for (int32_t j = i; j > 0 && out.strides[order[j]] < out.strides[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  }
  int64_t span = 1;  // elements covered by the dims seen so far, as a dense block
  for (int32_t i = 0; i < n; ++i) {
    const int32_t d = order[i];
    if (out.strides[d] < span) {
      return fail(OPRT_STATUS_BAD_STRIDES,
                  "%s with shape %s and strides %s writes some elements more than once (dim %d, stride %lld)", name,
                  shape_string(out).c_str(), strides_string(out).c_str(), d, (long long)out.strides[d]);
    }
    span = out.strides[d] * (out.shape[d] - 1) + span;
  }
  return OPRT_STATUS_SUCCESS;
}

static void byte_range(const Layout &layout, const void *data, uintptr_t *lo, uintptr_t *hi) {
  int64_t last = 0;
  for (int32_t d = 0; d < layout.ndim; ++d) last += (layout.shape[d] - 1) * layout.strides[d];
  const size_t item = oprt_dtype_size(layout.dtype);
  *lo = reinterpret_cast<uintptr_t>(data);
  *hi = *lo + static_cast<uintptr_t>(last) * item + item;
}

oprt_status_t check_no_partial_overlap(const Layout &out, const void *out_data, const char *out_name, const Layout &in,
                                       const void *in_data, const char *in_name, bool allow_exact_alias) {
  if (numel(out) == 0 || numel(in) == 0) return OPRT_STATUS_SUCCESS;
  uintptr_t out_lo, out_hi, in_lo, in_hi;
  byte_range(out, out_data, &out_lo, &out_hi);
  byte_range(in, in_data, &in_lo, &in_hi);
  if (out_hi <= in_lo || in_hi <= out_lo) return OPRT_STATUS_SUCCESS;
  if (allow_exact_alias && out_data == in_data && same_layout(out, in)) return OPRT_STATUS_SUCCESS;
  return fail(OPRT_STATUS_BAD_STRIDES, "%s overlaps %s in memory%s", out_name, in_name,
              allow_exact_alias ? " without being exactly the same tensor (only exact in-place aliasing is allowed)"
                                : " (this operator cannot run in place)");
}

oprt_status_t check_data(const void *data, const Layout &layout, const char *name) {
  if (numel(layout) == 0) return OPRT_STATUS_SUCCESS;
  if (data == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "data pointer of %s is NULL", name);
  // Kernels load and store whole elements; a misaligned one is undefined behaviour (or a fault on a GPU).
  const size_t item = oprt_dtype_size(layout.dtype);
  if (reinterpret_cast<uintptr_t>(data) % item != 0) {
    return fail(OPRT_STATUS_INVALID_ARGUMENT, "data pointer of %s (%p) is not aligned to its %zu-byte elements", name,
                data, item);
  }
  return OPRT_STATUS_SUCCESS;
}

oprt_status_t normalize_axis(int32_t axis, int32_t ndim, const char *what, int32_t *out) {
  const int32_t extent = ndim == 0 ? 1 : ndim;
  if (axis < -extent || axis >= extent) {
    return fail(OPRT_STATUS_INVALID_ARGUMENT, "%s %d is out of range for a tensor with %d dims (valid: %d..%d)", what,
                axis, ndim, -extent, extent - 1);
  }
  *out = axis < 0 ? axis + extent : axis;
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt
