// OPRT_RETURN_IF_TODO_LEFT(): the first statement of every op's device launcher (the function that
// launches the op's kernels) and of a generated operator's CPU kernel. A kernel file that is not finished
// (a learner's copy made by `bazel run //tools:exercise -- start <op>`, a fresh operator template)
// defines, before its includes,
//   #define OPRT_TODO_LEFT "<op>: kernel not implemented: edit <file> (N TODOs), then delete this line"
// and its launcher then returns OPRT_STATUS_NOT_SUPPORTED with that text (oprt_last_error(), the Python
// exception) instead of running kernels that are not written. Without the define it expands to nothing.
// No include guard on purpose: the macro follows OPRT_TODO_LEFT as it stands where this header is included.
#include "ops/runtime/status.h"

#undef OPRT_RETURN_IF_TODO_LEFT
#ifdef OPRT_TODO_LEFT
#define OPRT_RETURN_IF_TODO_LEFT() return ::oprt::fail(OPRT_STATUS_NOT_SUPPORTED, "%s", OPRT_TODO_LEFT)
#else
#define OPRT_RETURN_IF_TODO_LEFT() static_cast<void>(0)
#endif
