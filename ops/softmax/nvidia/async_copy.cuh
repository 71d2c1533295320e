// cp.async (sm_80+): 16-byte copies from global into shared memory that bypass the registers, so a
// thread can have all of its copies in flight at once. NVIDIA only: MACA has no cp.async.
#ifndef OPS_SOFTMAX_NVIDIA_ASYNC_COPY_CUH_
#define OPS_SOFTMAX_NVIDIA_ASYNC_COPY_CUH_

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// cp.async of a 16-byte pack from global into shared memory, cached in L2 only (x is read once).
__device__ __forceinline__ void copy_pack_async(void *shared, const void *global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(address), "l"(global) : "memory");
}

// Closes a group of this thread's cp.async copies.
__device__ __forceinline__ void commit_async_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits for every cp.async copy of this thread (committed or not); they are then visible to it.
__device__ __forceinline__ void wait_all_async_copies() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_ASYNC_COPY_CUH_
