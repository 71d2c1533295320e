#!/usr/bin/env bash
# `--run_under` wrapper of `--config=asan` (.bazelrc): runs a test whose native code (libcamp_ops.so,
# the _fastcall extension) is built with ASan + UBSan inside an uninstrumented Python. The ASan runtime
# must be the first library loaded, so it is preloaded; it is found through the compiler that built
# the library (no machine paths here). Usage: tools/sanitizer_env.sh COMMAND [ARGS...]
set -euo pipefail
CC_BIN=${CC:-gcc}
libasan=$("$CC_BIN" -print-file-name=libasan.so 2>/dev/null || true)
if [ -z "$libasan" ] || [ ! -e "$libasan" ]; then
  echo "sanitizer_env.sh: cannot find libasan.so through '$CC_BIN -print-file-name=libasan.so' (got '$libasan');" \
       "install the compiler's sanitizer runtime (Debian: libasan8) or set CC" >&2
  exit 2
fi
libasan=$(readlink -f "$libasan")
export LD_PRELOAD="$libasan${LD_PRELOAD:+:$LD_PRELOAD}"
# CPython keeps its interned objects until exit by design: leak checking would only report those.
# allocator_may_return_null: an impossible allocation must reach the library's OUT_OF_MEMORY path
# (what a real allocator does) instead of stopping the process.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1:allow_user_segv_handler=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Python objects from malloc, so that ASan sees every one of them (pymalloc's arenas hide overflows).
export PYTHONMALLOC=malloc
# pytest captures file descriptor 2 by default and loses it when the process dies: sanitizer reports
# (written to fd 2 by the runtime) must reach the test log, so capture at the sys level only.
export PYTEST_ADDOPTS="--capture=sys${PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}"
exec "$@"
