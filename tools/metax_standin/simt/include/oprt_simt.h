// A CPU emulator of the SIMT model, for running device code on the host at either warp size
// (test-only; never shipped). The warp size is MACA's, 64, when __MACACC__ is defined, else CUDA's, 32.
//
// It is enough for the kernels and helpers of ops/common/cuda_dialect (and the ops' kernel.cuh files): each
// thread of a block is a fiber on the calling OS thread (switched by a few instructions of assembly on
// x86-64, by ucontext elsewhere); blocks run one after another.
// Warp-synchronous intrinsics (__shfl*_sync) and __syncthreads() are barriers that switch fibers, so
// every thread runs until it waits for its warp or its block. It checks what the hardware does not:
//   * a warp-synchronous call needs every lane of the warp (full lane mask of the warp's width: 64-bit
//     on MACA, 32-bit on CUDA), and no lane may have exited while the others wait;
//   * __syncthreads() needs every thread of the block;
//   * a deadlock (some threads wait for a barrier the others never reach) is reported, not hung on.
// Any violation prints "SIMT emulator: ..." and exits with status 3.
// __shared__ variables become function-local statics: one copy, shared by the block that runs.
#ifndef OPRT_SIMT_H_
#define OPRT_SIMT_H_

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__MACACC__)
#define OPRT_SIMT_WARP_SIZE 64
#else
#define OPRT_SIMT_WARP_SIZE 32
#endif

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;

namespace oprt_simt {

constexpr int kWarpSize = OPRT_SIMT_WARP_SIZE;
using LaneMask = std::conditional_t<kWarpSize == 64, uint64_t, uint32_t>;

[[noreturn]] inline void fatal(const std::string &message) {
  std::fprintf(stderr, "SIMT emulator: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

#if defined(__x86_64__)
// switch_stack(save, load): saves the callee-saved registers, MXCSR and the x87 control word on the
// current stack and its stack pointer in *save, then resumes the stack `load` (saved the same way, or
// made by fiber_stack). No system call, unlike swapcontext. Weak and hidden: every unit that includes
// this header defines it; the linker keeps one, and no library exports it.
extern "C" void oprt_simt_switch_stack(void **save, void *load);
asm(R"(
  .text
  .weak oprt_simt_switch_stack
  .hidden oprt_simt_switch_stack
  .type oprt_simt_switch_stack, @function
oprt_simt_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size oprt_simt_switch_stack, .-oprt_simt_switch_stack
)");
#endif

struct Fiber {
  void *sp = nullptr;  // x86-64: the saved stack pointer
  ucontext_t context;  // elsewhere
  char *stack = nullptr;
  dim3 thread_idx;
  int warp = 0, lane = 0;
  bool started = false, done = false;
  int wait_kind = 0;  // 0 runnable, 1 warp barrier, 2 block barrier
  uint64_t wait_generation = 0;
};

struct Barrier {
  int arrived = 0;
  uint64_t generation = 0;
  const char *what = "";
};

struct State {
  std::vector<Fiber> fibers;
  std::vector<Barrier> warp_barriers;
  Barrier block_barrier;
  std::vector<uint64_t> slots;  // one shuffle slot per thread
  std::vector<std::unique_ptr<char[]>> stacks;
  dim3 block_idx, grid_dim, block_dim;
  Fiber *current = nullptr;
  void *scheduler_sp = nullptr;
  ucontext_t scheduler;
  std::function<void()> body;
  std::vector<unsigned char> dynamic_shared;
  uint64_t switches = 0;
  int warps = 0;
};

inline State &state() {
  static State s;
  return s;
}

constexpr size_t kStackBytes = 256 * 1024;

inline int warp_lanes(const State &s, int warp) {
  const int threads = static_cast<int>(s.fibers.size());
  return std::min(kWarpSize, threads - warp * kWarpSize);
}

inline std::string where(const Fiber &f) {
  const State &s = state();
  return "block " + std::to_string(s.block_idx.x) + " thread " + std::to_string(f.thread_idx.x) + " (warp " +
         std::to_string(f.warp) + " lane " + std::to_string(f.lane) + ")";
}

inline void yield() {
  State &s = state();
  Fiber *self = s.current;
  ++s.switches;
#if defined(__x86_64__)
  oprt_simt_switch_stack(&self->sp, s.scheduler_sp);
#else
  swapcontext(&self->context, &s.scheduler);
#endif
}

// Every lane of the caller's warp arrives before any leaves.
inline void warp_sync(const char *what) {
  State &s = state();
  Fiber &f = *s.current;
  Barrier &b = s.warp_barriers[f.warp];
  const int lanes = warp_lanes(s, f.warp);
  for (int l = 0; l < lanes; ++l) {
    const Fiber &other = s.fibers[f.warp * kWarpSize + l];
    if (other.done) fatal(where(other) + " has exited while " + where(f) + " waits at " + what);
  }
  if (++b.arrived == lanes) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  b.what = what;
  f.wait_kind = 1;
  f.wait_generation = b.generation + 1;
  yield();
}

inline void block_sync() {
  State &s = state();
  Fiber &f = *s.current;
  Barrier &b = s.block_barrier;
  for (const Fiber &other : s.fibers) {
    if (other.done) fatal(where(other) + " has exited while " + where(f) + " waits at __syncthreads()");
  }
  if (++b.arrived == static_cast<int>(s.fibers.size())) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  f.wait_kind = 2;
  f.wait_generation = b.generation + 1;
  yield();
}

inline void fiber_entry() {
  State &s = state();
  s.body();
  Fiber &f = *s.current;
  f.done = true;
  if (s.warp_barriers[f.warp].arrived > 0) {
    fatal(where(f) + " exits while lanes of its warp wait at " + s.warp_barriers[f.warp].what);
  }
  if (s.block_barrier.arrived > 0) fatal(where(f) + " exits while threads of its block wait at __syncthreads()");
#if defined(__x86_64__)
  oprt_simt_switch_stack(&f.sp, s.scheduler_sp);  // never resumed
  fatal("a finished thread was resumed");
#endif
  // ucontext: uc_link returns to the scheduler
}

#if defined(__x86_64__)
// A new stack that oprt_simt_switch_stack "returns" into fiber_entry from: at fiber_entry's first
// instruction the stack pointer is 8 below a 16-byte boundary, as after a call.
inline void *fiber_stack(char *base, size_t bytes) {
  auto top = (reinterpret_cast<uintptr_t>(base) + bytes) & ~uintptr_t(15);
  auto *sp = reinterpret_cast<uint64_t *>(top - 72);
  const uint32_t mxcsr = 0x1f80;  // all exceptions masked, round to nearest
  const uint16_t fpu_control = 0x037f;
  std::memset(sp, 0, 72);
  std::memcpy(reinterpret_cast<char *>(sp), &mxcsr, sizeof(mxcsr));
  std::memcpy(reinterpret_cast<char *>(sp) + 4, &fpu_control, sizeof(fpu_control));
  sp[7] = reinterpret_cast<uint64_t>(&fiber_entry);  // after r15, r14, r13, r12, rbx, rbp: the return address
  return sp;
}
#endif

inline void run_block(unsigned threads) {
  State &s = state();
  s.fibers.assign(threads, Fiber{});
  s.warps = static_cast<int>((threads + kWarpSize - 1) / kWarpSize);
  s.warp_barriers.assign(s.warps, Barrier{});
  s.block_barrier = Barrier{};
  s.slots.assign(threads, 0);
  while (s.stacks.size() < threads) s.stacks.emplace_back(new char[kStackBytes]);
  for (unsigned t = 0; t < threads; ++t) {
    Fiber &f = s.fibers[t];
    f.thread_idx = dim3(t, 0, 0);
    f.warp = static_cast<int>(t) / kWarpSize;
    f.lane = static_cast<int>(t) % kWarpSize;
#if defined(__x86_64__)
    f.sp = fiber_stack(s.stacks[t].get(), kStackBytes);
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = s.stacks[t].get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &s.scheduler;
    makecontext(&f.context, fiber_entry, 0);
#endif
  }
  for (;;) {
    bool progress = false, all_done = true;
    for (Fiber &f : s.fibers) {
      if (f.done) continue;
      all_done = false;
      if (f.wait_kind == 1 && s.warp_barriers[f.warp].generation < f.wait_generation) continue;
      if (f.wait_kind == 2 && s.block_barrier.generation < f.wait_generation) continue;
      f.wait_kind = 0;
      s.current = &f;
      ++s.switches;
#if defined(__x86_64__)
      oprt_simt_switch_stack(&s.scheduler_sp, f.sp);
#else
      swapcontext(&s.scheduler, &f.context);
#endif
      s.current = nullptr;
      progress = true;
    }
    if (all_done) return;
    if (!progress) {
      std::string waiting;
      for (const Fiber &f : s.fibers) {
        if (!f.done && waiting.size() < 400) {
          waiting += "\n  " + where(f) + (f.wait_kind == 1 ? " at " + std::string(s.warp_barriers[f.warp].what)
                                                           : std::string(" at __syncthreads()"));
        }
      }
      fatal("deadlock: threads wait for barriers the others never reach:" + waiting);
    }
  }
}

inline std::mutex &launch_mutex() {
  static std::mutex m;
  return m;
}

inline int max_dynamic_shared_bytes();  // the emulated device's opt-in limit (oprt_simt_runtime.h)

// Runs kernel(args...) over grid.x * grid.y blocks of block.x threads (1-D or 2-D grids, 1-D blocks; the
// blocks in x-fastest order, as a device numbers them), one launch at a time in the process. Fails on an empty grid or block, or more dynamic shared memory than the device
// has (a real device would refuse the launch).
template <class Kernel, class... Args>
void launch(dim3 grid, dim3 block, size_t dynamic_shared_bytes, Kernel kernel, Args... args) {
  std::lock_guard<std::mutex> lock(launch_mutex());
  if (grid.z != 1 || block.y * block.z != 1) fatal("only 1-D and 2-D grids and 1-D blocks are emulated");
  if (grid.x == 0 || grid.y == 0) fatal("launch with an empty grid");
  if (block.x == 0 || block.x > 1024) fatal("block of " + std::to_string(block.x) + " threads");
  if (dynamic_shared_bytes > static_cast<size_t>(max_dynamic_shared_bytes())) {
    fatal("launch with " + std::to_string(dynamic_shared_bytes) + " bytes of dynamic shared memory, more than the " +
          std::to_string(max_dynamic_shared_bytes()) + " the device has");
  }
  State &s = state();
  s.grid_dim = grid;
  s.block_dim = block;
  s.dynamic_shared.assign(dynamic_shared_bytes + 16, 0);
  s.body = [&] { kernel(args...); };
  for (unsigned by = 0; by < grid.y; ++by) {
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      s.block_idx = dim3(bx, by, 0);
      run_block(block.x);
    }
  }
  s.body = nullptr;
}

// What `kernel<<<grid, block, shared, stream>>>(args)` becomes in a unit rewritten by the stand-in
// mxcc in simt mode: launcher(kernel, grid, block, shared, stream)(args).
template <class Kernel>
struct Launcher {
  Kernel kernel;
  dim3 grid, block;
  size_t shared;
  template <class... Args>
  void operator()(Args &&...args) const {
    launch(grid, block, shared, kernel, args...);
  }
};

template <class Kernel>
Launcher<Kernel> launcher(Kernel kernel, dim3 grid, dim3 block, size_t shared = 0, const void * /*stream*/ = nullptr) {
  return {kernel, grid, block, shared};
}

inline unsigned char *dynamic_shared() {
  State &s = state();
  auto address = reinterpret_cast<uintptr_t>(s.dynamic_shared.data());
  return reinterpret_cast<unsigned char *>((address + 15) / 16 * 16);
}

template <class Mask>
inline void check_mask(Mask mask, const char *what) {
  static_assert(std::is_integral<Mask>::value, "lane masks are integers");
  static_assert(sizeof(Mask) * 8 == kWarpSize,
                "the lane mask must have one bit per lane of the warp (64-bit on MACA, 32-bit on CUDA)");
  State &s = state();
  const int lanes = warp_lanes(s, s.current->warp);
  const uint64_t need = lanes == 64 ? ~uint64_t(0) : ((uint64_t(1) << lanes) - 1);
  if ((static_cast<uint64_t>(mask) & need) != need) {
    fatal(std::string(what) + " with a lane mask that leaves out lanes of the warp (only full masks are emulated)");
  }
}

// Each lane publishes `value`, then reads lane source(lane)'s.
template <class T, class Source>
inline T exchange(T value, Source source, const char *what) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable<T>::value, "shuffled values fit 64 bits");
  State &s = state();
  Fiber &f = *s.current;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  s.slots[f.warp * kWarpSize + f.lane] = bits;
  warp_sync(what);
  const int src = source(f.lane);
  bits = s.slots[f.warp * kWarpSize + src];
  warp_sync(what);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

inline void check_width(int width, const char *what) {
  if (width <= 0 || width > kWarpSize || (width & (width - 1)) != 0) {
    fatal(std::string(what) + " with width " + std::to_string(width));
  }
}

}  // namespace oprt_simt

// ---- The device-side language, for host compilers ----

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) alignas(n)
#define __restrict__ __restrict
#define threadIdx (::oprt_simt::state().current->thread_idx)
#define blockIdx (::oprt_simt::state().block_idx)
#define blockDim (::oprt_simt::state().block_dim)
#define gridDim (::oprt_simt::state().grid_dim)
#define warpSize OPRT_SIMT_WARP_SIZE

inline void __syncthreads() { ::oprt_simt::block_sync(); }

// CUDA's semantics for width < warp size: a lane reading past its group gets its own value.
template <class Mask, class T>
inline T __shfl_xor_sync(Mask mask, T value, int lane_mask, int width = OPRT_SIMT_WARP_SIZE) {
  ::oprt_simt::check_mask(mask, "__shfl_xor_sync");
  ::oprt_simt::check_width(width, "__shfl_xor_sync");
  return ::oprt_simt::exchange(value, [&](int lane) {
    const int src = lane ^ lane_mask;
    return src >= (lane / width + 1) * width ? lane : src;
  }, "__shfl_xor_sync");
}

template <class Mask, class T>
inline T __shfl_sync(Mask mask, T value, int src_lane, int width = OPRT_SIMT_WARP_SIZE) {
  ::oprt_simt::check_mask(mask, "__shfl_sync");
  ::oprt_simt::check_width(width, "__shfl_sync");
  return ::oprt_simt::exchange(value, [&](int lane) { return lane / width * width + src_lane % width; }, "__shfl_sync");
}

template <class Mask, class T>
inline T __shfl_down_sync(Mask mask, T value, unsigned delta, int width = OPRT_SIMT_WARP_SIZE) {
  ::oprt_simt::check_mask(mask, "__shfl_down_sync");
  ::oprt_simt::check_width(width, "__shfl_down_sync");
  return ::oprt_simt::exchange(value, [&](int lane) {
    const int src = lane + static_cast<int>(delta);
    return src >= (lane / width + 1) * width ? lane : src;
  }, "__shfl_down_sync");
}

template <class Mask, class T>
inline T __shfl_up_sync(Mask mask, T value, unsigned delta, int width = OPRT_SIMT_WARP_SIZE) {
  ::oprt_simt::check_mask(mask, "__shfl_up_sync");
  ::oprt_simt::check_width(width, "__shfl_up_sync");
  return ::oprt_simt::exchange(value, [&](int lane) {
    const int src = lane - static_cast<int>(delta);
    return src < lane / width * width ? lane : src;
  }, "__shfl_up_sync");
}

// Device math that the kernels use beyond <cmath>.
inline float __uint_as_float(unsigned bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
inline unsigned __float_as_uint(float value) {
  unsigned bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}
inline float __expf(float x) { return std::exp(x); }
inline float __fdividef(float x, float y) { return x / y; }

struct float2 {
  float x, y;
};

#endif  // OPRT_SIMT_H_
