// The SIMT emulator's <common/maca_fp16.h> (test-only): software __half with MACA's (CUDA's) names.
#ifndef OPRT_SIMT_MACA_FP16_H_
#define OPRT_SIMT_MACA_FP16_H_
#if !defined(__MACACC__)
#error "the emulator's MACA headers need __MACACC__ (64-lane warps)"
#endif
#include "oprt_simt_types.h"
#endif  // OPRT_SIMT_MACA_FP16_H_
