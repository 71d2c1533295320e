"""Lab softmax_neighbour: what the kernel before the flush does to our few-long-rows softmax, and what the
cluster tier's structure alone costs.

    cd bench/lab && python3 softmax_neighbour.py [--structure-only]   # on the GPU machine (operator_runtime, cupy)

Session 12 measured our 128x131072 f16 softmax at 20.6-20.7 us in a lab process and beside torch eager in
run_ops, 21.0-21.2 beside torch.compile and 21.6 in the full row (after QuACK's calls); the flush (256 MB
written) runs between the two. Part 1 times ours (the library, through operator_runtime) with timers whose
flush first runs a neighbour, as run_ops's interleaved rounds do: nothing (so ours ran before), torch eager's
softmax of the same tensor, torch.compile's, and a kernel that fills 200 KB of shared memory per block (the
largest carveout; QuACK's and Inductor's kernels take tens of KB), on 128x131072 and 16x262144, f16 and bf16.
Part 2 times copies of 128x131072 f16 (64 MB moved) with the cluster tier's shape and no math: 1024 blocks of
256 threads, each thread's 8 packs all loaded before any is stored, at 3 and 2 blocks per SM; the same as
persistent blocks that load their next part before storing this one; and a grid-stride streaming copy. So
the gap between our kernel and the copy peak splits into what the structure costs and what the softmax adds.
"""

import sys

import torch

import lab

SHAPES = [(128, 131072), (16, 262144)]
DTYPES = ["float16", "bfloat16"]

SOURCE = r"""
// Fills `floats` of dynamic shared memory per block: the SM takes the largest shared-memory carveout.
extern "C" __global__ void shared_heavy(float *sink, int floats) {
  extern __shared__ float buffer[];
  for (int i = threadIdx.x; i < floats; i += blockDim.x) buffer[i] = static_cast<float>(i);
  __syncthreads();
  if (threadIdx.x == 0 && buffer[floats - 1] < 0.0f) sink[0] = buffer[0];
}

// The cluster tier's structure with no math: block b copies part b (256 threads x 8 packs of 16 bytes),
// every pack loaded (ld.global.cs) before any is stored (st.global.cs).
template <int kPacks>
__device__ __forceinline__ void held_part(const uint4 *x, uint4 *y, long long part) {
  uint4 held[kPacks];
  const long long base = part * 256 * kPacks + threadIdx.x;
#pragma unroll
  for (int j = 0; j < kPacks; ++j) held[j] = __ldcs(x + base + j * 256);
#pragma unroll
  for (int j = 0; j < kPacks; ++j) __stcs(y + base + j * 256, held[j]);
}
extern "C" __global__ void __launch_bounds__(256, 3) held_copy_b3(const uint4 *x, uint4 *y) { held_part<8>(x, y, blockIdx.x); }
extern "C" __global__ void __launch_bounds__(256, 2) held_copy_b2(const uint4 *x, uint4 *y) { held_part<8>(x, y, blockIdx.x); }

// Persistent: block b copies parts b, b + grid, ...; the next part's loads are issued before this part's stores.
extern "C" __global__ void __launch_bounds__(256, 2) held_copy_prefetch(const uint4 *x, uint4 *y, long long parts) {
  uint4 held[8], next[8];
  long long part = blockIdx.x;
  if (part >= parts) return;
#pragma unroll
  for (int j = 0; j < 8; ++j) held[j] = __ldcs(x + part * 2048 + threadIdx.x + j * 256);
  for (;;) {
    const long long following = part + gridDim.x;
    if (following < parts) {
#pragma unroll
      for (int j = 0; j < 8; ++j) next[j] = __ldcs(x + following * 2048 + threadIdx.x + j * 256);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) __stcs(y + part * 2048 + threadIdx.x + j * 256, held[j]);
    if (following >= parts) return;
    part = following;
#pragma unroll
    for (int j = 0; j < 8; ++j) held[j] = next[j];
  }
}

extern "C" __global__ void stream_copy(const uint4 *x, uint4 *y, long long packs) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < packs; i += (long long)gridDim.x * blockDim.x)
    __stcs(y + i, __ldcs(x + i));
}
"""


def neighbour_timer(neighbour):
    """run_ops's DeviceTimer whose flush first runs `neighbour` (what ran before the flush in run_ops's rounds)."""
    base = type(lab.timer())

    class NeighbourTimer(base):
        def flush(self):
            neighbour()
            self.flush_buffer.bitwise_not_()

    return NeighbourTimer(torch)


def main():
    import cupy

    import operator_runtime as oprt

    module = cupy.RawModule(code=SOURCE, options=("-std=c++17", "-arch=sm_90"), name_expressions=None)
    kernel = {name: lab.Kernel(module.get_function(name), name)
              for name in ("shared_heavy", "held_copy_b3", "held_copy_b2", "held_copy_prefetch", "stream_copy")}
    kernel["shared_heavy"].set_max_dynamic_shared(200 * 1024)
    sink = torch.zeros(1, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows_out = []

    def record(part, shape, dtype, variant, stats):
        row = dict(part=part, shape=shape, dtype=dtype, variant=variant,
                   **{q: stats[q] for q in ("p20", "p50", "p80")})
        rows_out.append(row)
        print("%-10s %-9s %-44s p50 %7.2f (p20 %7.2f p80 %7.2f)" % (shape, dtype, variant, row["p50"], row["p20"],
                                                                     row["p80"]), flush=True)

    with oprt.backend("nvidia"):
        for rows, cols in ([] if "--structure-only" in sys.argv else SHAPES):
            for dtype in DTYPES:
                label = "%dx%d" % (rows, cols)
                x = (torch.randn(rows, cols, device="cuda") * 2.0).to(getattr(torch, dtype))
                y = torch.empty_like(x)
                compiled = torch.compile(lambda t: torch.softmax(t, -1))
                compiled(x)
                lab.check("%s %s ours" % (label, dtype), oprt.softmax(x, axis=-1, out=y), torch.softmax(x.float(), -1),
                          dtype)
                neighbours = {
                    "after ours (no neighbour)": lambda: None,
                    "after torch eager softmax": lambda: torch.softmax(x, -1),
                    "after torch.compile softmax": lambda: compiled(x),
                    "after a 200 KB shared-memory kernel": lambda: kernel["shared_heavy"].launch(
                        sms * 2, 256, sink, 200 * 1024 // 4, shared=200 * 1024),
                }
                for _ in range(2):  # each setting twice, in turn
                    for name, neighbour in neighbours.items():
                        timer = neighbour_timer(neighbour)
                        record("neighbour", label, dtype, "ours " + name,
                               lab.time_us(lambda: oprt.softmax(x, axis=-1, out=y), by=timer))
                del x, y, compiled
                torch.cuda.empty_cache()
        x = torch.randn(128, 131072, device="cuda").half()
        y = torch.empty_like(x)
        packs = x.numel() * 2 // 16
        copies = {
            "held copy, 1024 blocks, 3 per SM": lambda: kernel["held_copy_b3"].launch(packs // 2048, 256, x, y),
            "held copy, 1024 blocks, 2 per SM": lambda: kernel["held_copy_b2"].launch(packs // 2048, 256, x, y),
            "held copy, persistent, prefetch (2 per SM)": lambda: kernel["held_copy_prefetch"].launch(
                sms * 2, 256, x, y, packs // 2048),
            "stream copy, 4 blocks of 256 per SM": lambda: kernel["stream_copy"].launch(sms * 4, 256, x, y, packs),
            "torch copy_": lambda: y.copy_(x),
            "ours softmax": lambda: oprt.softmax(x, axis=-1, out=y),
            "ours softmax, allocating its output": lambda: oprt.softmax(x, axis=-1),
        }
        for name, fn in copies.items():
            y.zero_()
            fn()
            torch.cuda.synchronize()
            if not name.startswith("ours") and not torch.equal(x, y):
                raise RuntimeError(name + " did not copy x")
        for _ in range(2):
            for name, fn in copies.items():
                record("structure", "128x131072", "float16", name, lab.time_us(fn))
    lab.save("softmax_neighbour", rows_out)


if __name__ == "__main__":
    sys.exit(main())
