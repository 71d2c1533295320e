// The SIMT emulator's <common/maca_bfloat16.h> (test-only): the nvcc stand-in's opaque __maca_bfloat16,
// which compiles as plain C++ too (make_sdk.sh --simt copies that file here).
#include "../../../sdk/include/common/maca_bfloat16.h"
