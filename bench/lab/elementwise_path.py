"""Lab elementwise_path (session 25): where the half elementwise rows' 0.2-0.7% goes. Run 1 of session 25 had the
library's contiguous kernel, launched by the lab into one preallocated output, 0.5-1.3% ahead of torch.compile
on the 64M f16 copy and relu rows (paired ratios), where run_ops, which calls ours through the library's API and
lets every implementation allocate its output per call, has it 0.3-0.6% behind. This lab times the same kernel
every way it can be reached, all interleaved in one measure_many per round:

    torch.compile                 Inductor's kernel, its output allocated per call (as in run_ops)
    torch eager, out=y / alloc    torch's kernel into y, and allocating per call
    lab kernel, out=y / alloc     the library's contiguous_kernel (elementwise_bulk.cubin) launched by cupy
    ours, out=y / alloc           operator_runtime's call (the wheel on PYTHONPATH); alloc is run_ops's call

So the launch path (cupy against the library's ctypes call) and the output's allocation are told apart. Section
`replica` (run 3) adds Inductor's kernel written in CUDA (elementwise_path.cu), in 128- and 256-thread blocks, on
the half rows, every implementation allocating its output as in run_ops. Section `packed` (run 4) adds that kernel
with Inductor's half math (elementwise_path.cu's packed_*: __hadd2, relu as one compare) in f16 and bf16. Section
`cubin` (run 6) launches Inductor's own cubin (from Triton's cache after torch.compile's first call) through cupy,
as the lab launches its kernels: whether torch.compile's lead is its binary or its launch. Section `reqntid` times the
replica declared with Inductor's exact block size (`.reqntid 128`: CUDA's __block_size__, whose cluster directives
elementwise_path.ptx.sed strips) against it with __launch_bounds__ (`.maxntid`), on the rows behind in both of run
7's processes. Section `modes` records every timed call's output address: the half rows' calls fall in two
device-time modes about 2% apart at 64M (session 24's full run), ours and torch.compile alike in the fast one,
ours 0.3-0.7% slower in the slow one, and at 256M torch.compile lands in the fast one more often; whether the
mode follows where the output was allocated. Section `launches` times nothing: it prints each implementation's
kernels with their grid, block and registers from one profiled call (torch eager leads the 256M half adds).
Section `occupancy` (session 27) caps the blocks a SM of the replica and the library's kernel with shared memory
they reserve: torch eager's half add, the one kernel mostly in the fast mode, is also the one at 12 blocks of 128
threads a SM (its 34 registers), where the others run 2048 threads.

Section `carveout` sets the kernels' preferred L1/shared split. Section `nc` times the replica with its loads
through the read-only path (`ld.global.nc`) beside it, in a small set (ours, the torch peers); section
`occupancy2` repeats occupancy's caps at torch eager's 12 blocks (and 13, and the library's kernel at 6 of 256) in
such a small set; section `occupancy3` the same without setting any carveout preference; section `inflight`
sets the threads an SM holds by the block size alone (no shared memory, which shrinks the L1); section `packs2`
gives the unary rows two packs a thread.

    python3 elementwise_path.py [paths|replica|packed|cubin|reqntid|modes|launches|occupancy|occupancy2|occupancy3|carveout|nc|inflight|packs2] [rounds]
    # on the GPU machine, after build.sh elementwise_bulk.cu elementwise_path.cu, with the wheel on PYTHONPATH
"""
import collections
import sys

import numpy as np

import lab
from elementwise_bulk import LIB, expected_of

sys.path.insert(0, str(lab.REPO / "tools"))
from bench_modes import two_means  # noqa: E402 - tools/ is on the path from here

ROWS = {"paths": [("copy", 64 << 20, "float16"), ("relu", 64 << 20, "float16"), ("vector_add", 64 << 20, "float16"),
                  ("copy", 256 << 20, "float16"), ("copy", 64 << 20, "float32")],
        "replica": [("copy", 64 << 20, "float16"), ("relu", 64 << 20, "float16"), ("vector_add", 64 << 20, "float16"),
                    ("relu", 256 << 20, "float16")],
        "packed": [("relu", 64 << 20, "float16"), ("vector_add", 64 << 20, "float16"), ("relu", 64 << 20, "bfloat16"),
                   ("vector_add", 64 << 20, "bfloat16"), ("vector_add", 256 << 20, "float16"),
                   ("relu", 256 << 20, "bfloat16")],
        "cubin": [("vector_add", 64 << 20, "float16"), ("relu", 64 << 20, "float16"), ("copy", 64 << 20, "float16")],
        "reqntid": [("relu", 64 << 20, "bfloat16"), ("vector_add", 64 << 20, "bfloat16"),
                    ("vector_add", 256 << 20, "float16"), ("vector_add", 256 << 20, "bfloat16"),
                    ("relu", 64 << 20, "float16")],
        "modes": [("copy", 64 << 20, "float16"), ("copy", 256 << 20, "float16"), ("vector_add", 256 << 20, "float16")],
        "launches": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                     ("relu", 64 << 20, "bfloat16"), ("copy", 64 << 20, "float16"), ("copy", 256 << 20, "bfloat16"),
                     ("relu", 256 << 20, "bfloat16")],
        "occupancy": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                      ("relu", 256 << 20, "bfloat16"), ("copy", 256 << 20, "bfloat16")],
        "occupancy2": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                       ("vector_add", 64 << 20, "float16")],
        "occupancy3": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                       ("vector_add", 256 << 20, "bfloat16")],
        "inflight": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                     ("copy", 256 << 20, "bfloat16")],
        "packs2": [("copy", 64 << 20, "float16"), ("copy", 256 << 20, "bfloat16"), ("relu", 64 << 20, "bfloat16"),
                   ("relu", 256 << 20, "bfloat16")],
        "nc": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
               ("relu", 64 << 20, "bfloat16"), ("copy", 256 << 20, "bfloat16")],
        "carveout": [("vector_add", 256 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16"),
                     ("relu", 64 << 20, "bfloat16"), ("copy", 256 << 20, "bfloat16"), ("copy", 64 << 20, "float16"),
                     ("copy", 64 << 20, "float32")]}
INDUCTOR = {"copy": "triton_poi_fused_clone_0", "relu": "triton_poi_fused_relu_0", "vector_add": "triton_poi_fused_add_0"}


def inductor_cubin(op, inputs):
    """The newest cubin of Inductor's kernel for op in Triton's cache (TRITON_CACHE_DIR) whose PTX is the shape
    session 23 recorded for the 64M half rows: 128 threads (.reqntid), one 16-byte load per input a thread (so
    XBLOCK = 1024). Autotuning leaves other configurations' cubins beside it."""
    import os
    import pathlib

    root = pathlib.Path(os.environ.get("TRITON_CACHE_DIR", pathlib.Path.home() / ".triton" / "cache"))
    for cubin in sorted(root.glob("*/%s.cubin" % INDUCTOR[op]), key=lambda p: -p.stat().st_mtime):
        ptx = cubin.with_suffix(".ptx").read_text() if cubin.with_suffix(".ptx").exists() else ""
        if ".reqntid 128" in ptx and ptx.count("ld.global.v4") == inputs:
            return cubin
    raise FileNotFoundError("no %s.cubin of 128 threads x 16 bytes under %s" % (INDUCTOR[op], root))
SHORT = {"float16": "f16", "bfloat16": "bf16"}


def lab_name(kind, op, dt, threads, tag=""):
    """elementwise_path.cu's name of a replica_* or packed_* kernel (copy moves u16 bits in either half type)."""
    return "%s_%s_%d%s_%s" % (kind, "add" if op == "vector_add" else op, threads, tag,
                              "u16" if op == "copy" else SHORT[dt])


# Section occupancy: torch eager's half add (34 registers, 128 threads) fits 12 blocks an SM, every other kernel here
# the full 2048 threads, and only torch eager's calls land in the fast mode most of the time (session 26). Blocks
# per SM capped by dynamic shared memory each block reserves (and does not use): the replica's 128-thread blocks
# at 16 (no cap) to 8, the library's 256-thread blocks at 8 (no cap) to 5.
# Section carveout (run 2 of session 27): run 1's uncapped kernels, given the largest shared-memory carveout (100:
# 28 KiB of L1 left), were 1.9-2.5% slower than the same kernels untouched: the L1/shared split moves a streaming
# kernel by about the two modes' distance. Each kernel untouched (the driver's choice) and with the preference set
# to 0 (the most L1), 50 and 100.
CARVEOUTS = [None, 0, 50, 100]
INFLIGHT_BLOCKS = [512, 640, 768, 896, 1024]  # section inflight: 2048, 1920, 1536, 1792, 2048 threads an SM
REPLICA_CAPS = [16, 14, 12, 10, 8]
LIBRARY_CAPS = [8, 7, 6, 5]
SM_SHARED_BYTES = 233472  # an H100/H200 SM's shared memory at the largest carveout (228 KiB)
BLOCK_RESERVED_BYTES = 1024  # shared memory the system reserves per resident block


def cap_bytes(per_sm, threads):
    """Dynamic shared memory that lets at most per_sm blocks of `threads` share an SM (0 where the threads
    already cap it: 2048 an SM)."""
    if per_sm * threads >= 2048:
        return 0
    return SM_SHARED_BYTES // per_sm // 256 * 256 - BLOCK_RESERVED_BYTES


def capped(kernel, threads, per_sm, x, launch, carveout=True):
    """A call into an output allocated per call (like x), launch(out, shared bytes) launching it with the cap's
    shared memory; prints the blocks per SM the driver reports for that kernel, block and shared memory. With
    carveout, the kernel's preferred carveout is set to the largest shared memory first (runs 4, 5 and 8: every
    cupy launch in a process that set one ran 2-4% slow)."""
    import cupy
    import torch

    shared = cap_bytes(per_sm, threads)
    try:  # the largest shared-memory carveout, so the cap is the shared memory's, not the carveout's
        if carveout:
            kernel.function.preferred_shared_memory_carveout = 100
    except (AttributeError, cupy.cuda.driver.CUDADriverError) as e:
        print("carveout not set for %s: %s" % (kernel.name, e))
    try:
        function = getattr(kernel.function, "kernel", kernel.function)  # a RawKernel's cupy.cuda.Function
        resident = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function.ptr, threads, shared)
    except (AttributeError, cupy.cuda.driver.CUDADriverError) as e:
        resident = "unknown (%s)" % e
    print("occupancy %s: %d threads, %d B shared -> %s blocks a SM (asked %d)" % (
        kernel.name[:60], threads, shared, resident, per_sm), flush=True)

    def run():
        out = torch.empty_like(x)
        launch(out, shared)
        return out

    return run


def implementations(module, op, n, dt, x, b, y, section="paths", replicas=None):
    import operator_runtime as oprt
    import torch

    size = x.element_size()
    args = (x, b) if op == "vector_add" else (x,)
    torch_fn = {"copy": lambda v: v.clone(), "relu": torch.relu, "vector_add": lambda u, v: u + v}[op]
    compiled = torch.compile(torch_fn, dynamic=False, fullgraph=True)
    ours = {"copy": oprt.copy, "relu": oprt.relu, "vector_add": oprt.vector_add}[op]
    eager_out = {"copy": lambda: y.copy_(x), "relu": lambda: torch.clamp_min(x, 0, out=y),
                 "vector_add": lambda: torch.add(x, b, out=y)}[op]
    if op == "copy":
        bits = {2: torch.int16, 4: torch.int32}[size]
        kernel, functor, view = module.kernel(LIB[("copy", size)]), np.uint8(0), (lambda t: t.view(bits))
    else:
        kernel, view = module.kernel(LIB[(op, dt)]), (lambda t: t)
        functor = np.float64(0.0) if op == "relu" else np.uint8(0)  # LeakyReluFunctor{0.0}; AddFunctor is empty
    blocks = -(-n // ((16 // size) * 256))

    def lab_kernel(out, library=kernel):
        """The library's contiguous_kernel (from the lab's cubin, or another load of it) into out."""
        library.launch(blocks, 256, n, functor, view(out), view(x), view(b))
        return out

    def allocating(kernel, threads, first=functor, grid=None, extra=()):
        """A call of a lab kernel (the replica's and packed_*'s parameters: first, out, a, b, then `extra`) in
        blocks of `threads`, into an output allocated per call; by default one pack a thread, a block per
        `threads` packs."""
        grid = n // ((16 // size) * threads) if grid is None else grid

        def run():
            out = torch.empty_like(x)
            kernel.launch(grid, threads, first, view(out), view(x), view(b), *extra)
            return out

        return run

    runs = {"torch.compile": lambda: compiled(*args)}
    if section == "cubin":
        import cupy

        compiled(*args)  # compiles: its cubin is now the newest of its name in Triton's cache
        torch.cuda.synchronize()
        function = cupy.RawModule(path=str(inductor_cubin(op, len(args)))).get_function(INDUCTOR[op])
        inductor = lab.Kernel(function, INDUCTOR[op])

        def run_inductor():  # its launcher's arguments: inputs, output, xnumel, two scratch pointers; XBLOCK 1024
            out = torch.empty_like(x)
            inductor.launch(n // 1024, 128, *args, out, np.int32(n), np.uint64(0), np.uint64(0))
            return out

        runs.update({"ours, alloc": lambda: ours(*args), "Inductor's cubin by cupy, alloc": run_inductor,
                     "replica 128, alloc": allocating(replicas.kernel(lab_name("replica", op, dt, 128)), 128)})
        return runs
    runs["torch eager, alloc"] = lambda: torch_fn(*args)
    if section == "occupancy":
        runs["ours, alloc"] = lambda: ours(*args)
        replica = replicas.kernel(lab_name("replica", op, dt, 128))
        for per_sm in REPLICA_CAPS:
            runs["replica 128, %d a SM" % per_sm] = capped(replica, 128, per_sm, x, lambda out, shared: replica.launch(
                n // ((16 // size) * 128), 128, functor, view(out), view(x), view(b), shared=shared))
        for per_sm in LIBRARY_CAPS:
            runs["lab kernel 256, %d a SM" % per_sm] = capped(kernel, 256, per_sm, x, lambda out, shared: kernel.launch(
                blocks, 256, n, functor, view(out), view(x), view(b), shared=shared))
        return runs
    if section in ("occupancy2", "occupancy3"):  # occupancy's caps in a small set; occupancy3 sets no carveout
        runs["ours, alloc"] = lambda: ours(*args)
        runs["replica 128, alloc"] = allocating(replicas.kernel(lab_name("replica", op, dt, 128)), 128)
        for threads, per_sm in ((128, 13), (128, 12), (256, 6)):
            own = (lab.load("elementwise_path").kernel(lab_name("replica", op, dt, 128)) if threads == 128
                   else lab.load("elementwise_bulk").kernel(kernel.name))
            grid = n // ((16 // size) * threads)
            first = (functor,) if threads == 128 else (n, functor)
            runs["%s, %d a SM" % ("replica 128" if threads == 128 else "lab kernel 256", per_sm)] = capped(
                own, threads, per_sm, x, lambda out, shared, own=own, grid=grid, threads=threads, first=first:
                own.launch(grid, threads, *first, view(out), view(x), view(b), shared=shared),
                carveout=section == "occupancy2")
        return runs
    if section == "inflight":  # blocks a SM by block size alone (elementwise_path.cu, replica_bounded)
        runs["ours, alloc"] = lambda: ours(*args)
        runs["replica 128, alloc"] = allocating(replicas.kernel(lab_name("replica", op, dt, 128)), 128)
        packs = n // (16 // size)
        for threads in INFLIGHT_BLOCKS:
            runs["replica %d (%d threads a SM), alloc" % (threads, 2048 // threads * threads)] = allocating(
                replicas.kernel(lab_name("replica", op, dt, threads, "b")), threads, grid=-(-packs // threads),
                extra=(np.int32(packs),))
        return runs
    if section == "packs2":  # two packs a thread for the unary rows (elementwise_path.cu, replica_two)
        runs["ours, alloc"] = lambda: ours(*args)
        runs["replica 128, alloc"] = allocating(replicas.kernel(lab_name("replica", op, dt, 128)), 128)
        packs = n // (16 // size)
        for threads in (128, 256, 512, 896):
            runs["replica %d x 2 packs, alloc" % threads] = allocating(
                replicas.kernel(lab_name("replica", op, dt, threads, "k2")), threads, grid=-(-packs // (2 * threads)),
                extra=(np.int32(packs),))
        return runs
    if section == "nc":
        runs["ours, alloc"] = lambda: ours(*args)
        for tag in ("", "n"):  # plain loads, read-only-path loads
            runs["replica 128%s, alloc" % tag] = allocating(replicas.kernel(lab_name("replica", op, dt, 128, tag)), 128)
        return runs
    if section == "carveout":
        runs["ours, alloc"] = lambda: ours(*args)
        for carveout in CARVEOUTS:  # each from its own load of the cubins: the preference is a function's
            own = lab.load("elementwise_bulk").kernel(kernel.name)
            replica = lab.load("elementwise_path").kernel(lab_name("replica", op, dt, 128)) if size == 2 else None
            tag = "default" if carveout is None else "carveout %d" % carveout
            for k in (own, replica):
                if k is not None and carveout is not None:
                    k.function.preferred_shared_memory_carveout = carveout
            runs["lab kernel 256, %s" % tag] = lambda own=own: lab_kernel(torch.empty_like(x), own)
            if replica is not None:
                runs["replica 128, %s" % tag] = allocating(replica, 128)
        return runs
    if section in ("modes", "launches"):
        runs.update({"ours, alloc": lambda: ours(*args),
                     "replica 128, alloc": allocating(replicas.kernel(lab_name("replica", op, dt, 128)), 128)})
        return runs
    if section == "reqntid":
        runs["ours, alloc"] = lambda: ours(*args)
        for tag in ("", "r"):  # .maxntid 128 (__launch_bounds__), .reqntid 128 (__block_size__)
            runs["replica 128%s, alloc" % tag] = allocating(replicas.kernel(lab_name("replica", op, dt, 128, tag)), 128)
        return runs
    if section in ("replica", "packed"):
        runs.update({"lab kernel, alloc": lambda: lab_kernel(torch.empty_like(x)), "ours, alloc": lambda: ours(*args)})
        kinds = ["replica"] if dt == "float16" else []
        if section == "packed":
            kinds = kinds[:1] + ["packed"]
        for kind in kinds:
            for threads in ((128,) if kind == "replica" and section == "packed" else (128, 256)):
                first = np.uint8(0) if kind == "packed" else functor  # packed_* take an unused byte
                runs["%s %d, alloc" % (kind, threads)] = allocating(replicas.kernel(lab_name(kind, op, dt, threads)), threads,
                                                                    first)
        return runs
    return {
        "torch.compile": runs["torch.compile"],
        "torch eager, out=y": eager_out,
        "torch eager, alloc": lambda: torch_fn(*args),
        "lab kernel, out=y": lambda: lab_kernel(y),
        "lab kernel, alloc": lambda: lab_kernel(torch.empty_like(x)),
        "ours, out=y": lambda: ours(*args, out=y),
        "ours, alloc": lambda: ours(*args),
    }


def recording(runs, pointers):
    """runs whose every call also appends its output's address to pointers[name]."""
    def recorded(name, run):
        def call():
            out = run()
            pointers[name].append(out.data_ptr())
            return out

        return call

    return {name: recorded(name, run) for name, run in runs.items()}


def modes_of(rows, pointers, base_address):
    """Section modes: each row's timed calls' output addresses (MiB from x's), and per implementation the share of
    its calls in the fast one of the row's two device-time modes (2-means over every call of the row) and the
    median of each mode, by output address. measure_many calls an implementation warmup + 3 (estimate) + n (timed,
    in its rounds' order) + n (wall) times per round; the timed ones are picked out of that sequence."""
    import statistics

    threshold = sum(two_means([us for row in rows for us in row["device_us_calls"]])) / 2
    warmup = lab.timer().warmup
    done = {}
    for row in rows:
        name, n = row["variant"], len(row["device_us_calls"])
        start = done.get(name, 0) + warmup + 3
        row["output_mib"] = [(address - base_address) / 2 ** 20 for address in pointers[name][start:start + n]]
        done[name] = start + 2 * n
        by_address = {}
        for mib, us in zip(row["output_mib"], row["device_us_calls"]):
            by_address.setdefault(mib, []).append(us)
        row["modes_by_output"] = {"%+.0f MiB" % mib: {
            "calls": len(times), "fast_share": sum(us < threshold for us in times) / len(times),
            "fast_median": statistics.median([us for us in times if us < threshold] or [0.0]),
            "slow_median": statistics.median([us for us in times if us >= threshold] or [0.0])}
            for mib, times in sorted(by_address.items())}
        print("modes %-18s round %d  %-20s %s" % (row["op"], row["round"], name, "  ".join(
            "out %s: %d calls, fast %.2f (%.2f / %.2f us)" % (k, v["calls"], v["fast_share"], v["fast_median"],
                                                               v["slow_median"])
            for k, v in row["modes_by_output"].items())), flush=True)


def label_of(op, n, dt):
    return "%s %dM %s" % (op, n >> 20, dt)


def main(section="paths", rounds=2):
    import torch

    module = lab.load("elementwise_bulk")
    replicas = lab.load("elementwise_path") if section != "paths" else None
    rows = []
    for op, n, dt in ROWS[section]:
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        b = torch.randn(n, device="cuda").to(getattr(torch, dt)) if op == "vector_add" else x
        y = torch.empty_like(x)
        runs = implementations(module, op, n, dt, x, b, y, section, replicas)
        expected = expected_of(op, x, b)
        for name, run in runs.items():
            y.zero_()
            result = run()
            torch.cuda.synchronize()
            actual = y if "out=y" in name else result
            actual = actual if isinstance(actual, torch.Tensor) else torch.as_tensor(actual, device="cuda")
            assert torch.equal(actual, expected), "%s %s: %s differs from torch" % (op, dt, name)
        if section == "launches":
            from inductor_launches import launches  # imports torch

            for name, run in runs.items():
                for kernel, args, us in launches(lambda _: run(), x):
                    print("launches %-26s %-20s %s %s dur %s" % (label_of(op, n, dt), name, kernel[:90], args, us))
            continue
        moved = (3 if op == "vector_add" else 2) * n * x.element_size()
        label = label_of(op, n, dt)
        pointers = collections.defaultdict(list)
        if section == "modes":
            runs = recording(runs, pointers)
        measured = lab.time_interleaved(runs, rounds, {"section": section, "op": op, "n": n, "dtype": dt}, moved,
                                        label, keep_calls=True)
        if section == "modes":
            modes_of(measured, pointers, x.data_ptr())
        rows += measured
        lab.save("elementwise_path" + ("" if section == "paths" else "-" + section), rows)
        del x, b, y, expected
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "paths", int(sys.argv[2]) if len(sys.argv) > 2 else 2)
