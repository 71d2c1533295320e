#include "ops/common/cpu/thread_pool.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace oprt::cpu {
namespace {

// Below this many element steps a call stays on the calling thread: waking a sleeping worker costs
// tens of microseconds. Pieces are at least kMinPieceWork, up to kPiecesPerThread per thread so
// that a thread slowed down by other work on the machine does not hold everyone up.
constexpr int64_t kSerialWork = int64_t{1} << 17;
constexpr int64_t kMinPieceWork = int64_t{1} << 15;
constexpr int64_t kPiecesPerThread = 4;

int threads_from_environment() {
  if (const char *value = std::getenv("OPRT_NUM_THREADS")) {
    char *end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && n >= 1) return static_cast<int>(std::min(n, 1024L));
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) return std::max(1, CPU_COUNT(&cpus));
  return std::max(1u, std::thread::hardware_concurrency());
}

struct Job {
  const std::function<void(int64_t, int64_t, int)> *body;
  int64_t n, pieces;
  std::atomic<int64_t> next{0};

  void run(int thread) {
    for (int64_t piece; (piece = next.fetch_add(1)) < pieces;) {
      (*body)(n * piece / pieces, n * (piece + 1) / pieces, thread);
    }
  }
};

class Pool {
 public:
  explicit Pool(int threads) : owner_(getpid()) {
    try {
      for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
    } catch (const std::system_error &) {  // fewer threads than asked: run with those that started
    }
  }

  // Runs the job on the calling thread and the workers; false (nothing run) when the pool is in use,
  // or in a child process after fork(), where the workers do not exist.
  bool try_run(Job &job) {
    if (workers_.empty() || getpid() != owner_) return false;
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    job.run(0);
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;  // a worker that wakes up from now on finds nothing to do
    done_.wait(lock, [&] { return active_ == 0; });
    return true;
  }

 private:
  void work(int thread) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return job_ != nullptr && generation_ != seen; });
      seen = generation_;
      Job *job = job_;
      ++active_;
      lock.unlock();
      job->run(thread);
      lock.lock();
      if (--active_ == 0) done_.notify_all();
    }
  }

  const pid_t owner_;
  std::vector<std::thread> workers_;
  std::mutex busy_;   // held by the one parallel_for using the pool
  std::mutex mutex_;  // guards the fields below
  std::condition_variable wake_, done_;
  Job *job_ = nullptr;
  uint64_t generation_ = 0;
  int active_ = 0;  // workers inside job_->run
};

}  // namespace

int num_threads() {
  static const int threads = threads_from_environment();
  return threads;
}

int threads_for(int64_t n, int64_t work_per_item) {
  const bool worth_it = n > 1 && n * std::max<int64_t>(work_per_item, 1) >= kSerialWork;
  return worth_it ? num_threads() : 1;
}

void parallel_for(int64_t n, int64_t work_per_item, const std::function<void(int64_t, int64_t, int)> &body) {
  if (n <= 0) return;
  const int threads = threads_for(n, work_per_item);
  if (threads > 1) {
    // Never destroyed: its workers wait until the process exits.
    static Pool *const pool = new Pool(threads);
    Job job;
    job.body = &body;
    job.n = n;
    job.pieces = std::min({n, threads * kPiecesPerThread, n * std::max<int64_t>(work_per_item, 1) / kMinPieceWork});
    if (pool->try_run(job)) return;
  }
  body(0, n, 0);
}

}  // namespace oprt::cpu
