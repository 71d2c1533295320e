// The CPU backend's threads: a small pool, started on first use, that runs parallel_for's pieces together
// with the calling thread. Its size is OPRT_NUM_THREADS when set (read once, at first use), else the
// number of CPUs this process may run on.
#ifndef OPS_COMMON_CPU_THREAD_POOL_H_
#define OPS_COMMON_CPU_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace oprt::cpu {

// Threads a parallel_for may use, the calling thread included (>= 1).
int num_threads();

// Calls body(begin, end, thread) on consecutive pieces that cover [0, n) once each. `work_per_item`
// estimates an item's cost in element-sized steps: work below a few hundred microseconds stays in one
// call on the calling thread, so does everything when the pool is busy (a concurrent or nested call).
// `thread` < threads_for(n, work_per_item) is unique among the pieces running at the same time
// (scratch per thread). Results must not depend on how [0, n) is split. body must not throw.
void parallel_for(int64_t n, int64_t work_per_item, const std::function<void(int64_t, int64_t, int)> &body);

// 1 for work that parallel_for keeps on the calling thread, else num_threads().
int threads_for(int64_t n, int64_t work_per_item);

}  // namespace oprt::cpu

#endif  // OPS_COMMON_CPU_THREAD_POOL_H_
