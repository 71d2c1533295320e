// Which kernels an execute call launched, with their launch configuration: oprt_last_launches() shows
// it, so a learner can connect a shape to the tier of kernel.cuh that served it. Per thread; every
// execute entry point starts a new log, and the device launch helpers add one line per launch.
#ifndef OPS_RUNTIME_LAUNCH_LOG_H_
#define OPS_RUNTIME_LAUNCH_LOG_H_

#include <cstddef>

namespace oprt {

void begin_launch_log();
void record_launch(const char *kernel, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                   unsigned block_y, unsigned block_z, size_t shared_bytes);

}  // namespace oprt

#endif  // OPS_RUNTIME_LAUNCH_LOG_H_
