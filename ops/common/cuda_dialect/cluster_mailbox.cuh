// A cluster's blocks sending each other a few values once, with no cluster barrier after the first
// (NVIDIA Hopper, sm_90, and newer; CUDA only). Each block has a mailbox in its shared memory: kSlots
// values of V and an mbarrier. A sender writes a value into a slot of another block's mailbox with
// st.async, whose bytes complete on that block's mbarrier; a block reads its mailbox once all kSlots
// have arrived. Why not cooperative_groups' cluster.sync() around distributed shared memory reads: its
// barrier.cluster.arrive.release compiles to MEMBAR.ALL.GPU, a round trip to memory that a kernel of
// a few microseconds per block pays twice (notes: bench/notes/softmax-tuning.md, "Few long rows").
//
//   __shared__ ClusterMailbox<V, kSlots> mailbox;
//   mailbox.open();            // every thread, first thing: thread 0 initializes the mbarrier, then a
//                              // relaxed cluster arrive
//   ... work ...
//   cluster_wait();            // every block's mailbox is open (before the first send)
//   mailbox.send(value, slot, rank);   // into block `rank`'s slot `slot` (any thread, any number)
//   const V *all = mailbox.receive();  // every thread: waits for the kSlots values
// A block may exit once it has received: every value sent to it has landed, and the values it sent
// are in the receivers' shared memory, which stays until they have received. A block that only sends
// (receives nothing) may exit once it has sent.
//
// Also here, for every cluster kernel: OPRT_CLUSTER_DIMS (a cluster size compiled in, only into sm_90
// code), hopper_code_loaded (whether the device runs a kernel from sm_90 code, so that the
// dispatcher never launches the trapping body that older architectures get) and large_clusters_run
// (whether it runs a cluster size above the portable 8).
#ifndef OPS_COMMON_CUDA_DIALECT_CLUSTER_MAILBOX_CUH_
#define OPS_COMMON_CUDA_DIALECT_CLUSTER_MAILBOX_CUH_

#include <cstdint>
#include <cstring>

#include "ops/common/cuda_dialect/runtime_api.h"

namespace oprt::gpu {

#if defined(__CUDACC__) && !defined(__MACACC__)

// A cluster of `blocks` blocks along x, compiled into the kernel: launched with the size as a launch
// attribute instead, the softmax cluster kernel ran 0.3-0.7 us slower (bench/lab softmax_long,
// session 6: libc against libx). nvcc rejects the attribute in code for older architectures, which
// have a trapping body instead.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define OPRT_CLUSTER_DIMS(blocks) __cluster_dims__(blocks, 1, 1)
#else
#define OPRT_CLUSTER_DIMS(blocks)
#endif

// Whether the current device runs kKernel from code compiled for sm_90 or newer (PTX version >= 90):
// only such code has a cluster kernel's body. False for a build without sm_90 code (cuda_archs=80 or
// 89), for compute_80 PTX JIT-compiled on an H200 (its __CUDA_ARCH__ was 800), and on devices below
// sm_90 (they cannot load sm_90 code). Asked once per device and kernel.
template <auto kKernel>
Error query_hopper_code(int, bool *has) {
  OPRT_GPU(FuncAttributes) attributes = {};
  const Error error = OPRT_GPU(FuncGetAttributes)(&attributes, reinterpret_cast<const void *>(kKernel));
  *has = error == OPRT_GPU(Success) && attributes.ptxVersion >= 90;
  return error;
}

template <auto kKernel>
oprt_status_t hopper_code_loaded(bool *loaded, const char *what) {
  return once_per_device<bool, query_hopper_code<kKernel>>(loaded, what);
}

// Whether the current device runs kKernel, compiled for clusters of more than 8 blocks (a non-portable
// size: 16 on an H100 or H200) of kBlockThreads threads without dynamic shared memory: allows the size
// on the kernel, then asks whether one such cluster fits. A device or driver that refuses either says
// no (its error cleared, so that no later launch check reports it). Asked once per device and kernel.
template <auto kKernel, int kBlockThreads>
Error query_large_clusters(int, bool *runs) {
  *runs = false;
  const void *kernel = reinterpret_cast<const void *>(kKernel);
  if (OPRT_GPU(FuncSetAttribute)(kernel, OPRT_GPU(FuncAttributeNonPortableClusterSizeAllowed), 1) != OPRT_GPU(Success)) {
    (void)OPRT_GPU(GetLastError)();
    return OPRT_GPU(Success);
  }
  OPRT_GPU(LaunchConfig_t) config = {};
  config.gridDim = dim3(1024);  // a multiple of any cluster size; the query counts clusters, not the grid
  config.blockDim = dim3(kBlockThreads);
  int clusters = 0;
  if (OPRT_GPU(OccupancyMaxActiveClusters)(&clusters, kKernel, &config) != OPRT_GPU(Success)) {
    (void)OPRT_GPU(GetLastError)();
    return OPRT_GPU(Success);
  }
  *runs = clusters > 0;
  return OPRT_GPU(Success);
}

template <auto kKernel, int kBlockThreads>
oprt_status_t large_clusters_run(bool *runs, const char *what) {
  return once_per_device<bool, query_large_clusters<kKernel, kBlockThreads>>(runs, what);
}

__device__ __forceinline__ uint32_t shared_address(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// This block's rank in its cluster, and the cluster's index in the grid (x).
__device__ __forceinline__ unsigned cluster_block_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

__device__ __forceinline__ unsigned cluster_index() {
  unsigned index;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(index));
  return index;
}

// The second half of a cluster barrier whose first half was ClusterMailbox::open's relaxed arrive.
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

template <class V, int kSlots>
struct ClusterMailbox {
  static_assert(sizeof(V) == 4 || sizeof(V) == 8 || sizeof(V) == 16, "st.async sends 4, 8 or 16 bytes here");
  V slots[kSlots];
  uint64_t arrived;  // the mbarrier: one arrival (thread 0's, with the bytes expected) plus the bytes

  __device__ __forceinline__ void open() {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&arrived)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(&arrived)),
                   "r"(static_cast<uint32_t>(sizeof(V) * kSlots))
                   : "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }

  // Writes `value` into slot `slot` of block `rank`'s mailbox (this mailbox's address mapped there).
  __device__ __forceinline__ void send(const V &value, int slot, unsigned rank) {
    uint32_t remote_slot, remote_arrived, words[sizeof(V) / 4];
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(shared_address(&slots[slot])), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_arrived) : "r"(shared_address(&arrived)), "r"(rank));
    memcpy(words, &value, sizeof(V));
    if constexpr (sizeof(V) == 4) {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_slot),
                   "r"(words[0]), "r"(remote_arrived)
                   : "memory");
    } else if constexpr (sizeof(V) == 8) {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];" ::"r"(remote_slot),
                   "r"(words[0]), "r"(words[1]), "r"(remote_arrived)
                   : "memory");
    } else {
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                       remote_slot),
                   "r"(words[0]), "r"(words[1]), "r"(words[2]), "r"(words[3]), "r"(remote_arrived)
                   : "memory");
    }
  }

  // Waits until all kSlots values have arrived; then they are this block's to read.
  __device__ __forceinline__ const V *receive() {
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
          : "=r"(done)
          : "r"(shared_address(&arrived))
          : "memory");
    }
    return slots;
  }
};

#endif

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_CLUSTER_MAILBOX_CUH_
