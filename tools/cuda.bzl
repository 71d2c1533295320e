"""CUDA support without rules_cuda: the host toolkit as @local_cuda and a cuda_library rule.

The toolkit is found from $CUDA_PATH, then nvcc on PATH, then /usr/local/cuda. Without one, the
repository still exists (so analysis of --config=nvidia works everywhere) and every CUDA compile
fails with one line saying how to point the build at a toolkit.
Archs: --//tools:cuda_archs=90 (default; sm_90 cubin + compute_90 PTX), e.g. =80,90 for two cubins,
=89 for an L40, =compute_80 for compute_80 PTX only (the driver JIT-compiles it for the GPU it runs on).
"""

load("//tools:device_library.bzl", "device_library_rule", "write_missing_toolkit")

def _local_cuda_impl(rctx):
    candidates = []
    if rctx.os.environ.get("CUDA_PATH"):
        candidates.append(rctx.os.environ["CUDA_PATH"])
    nvcc_on_path = rctx.which("nvcc")
    if nvcc_on_path:
        candidates.append(str(nvcc_on_path.realpath.dirname.dirname))  # through /usr/local/bin symlinks
    candidates.append("/usr/local/cuda")
    root = None
    for candidate in candidates:
        if rctx.path(candidate + "/bin/nvcc").exists and rctx.path(candidate + "/include/cuda_runtime.h").exists:
            root = str(rctx.path(candidate).realpath)
            break
    if root == None:
        write_missing_toolkit(
            rctx,
            "nvcc",
            "cuda_runtime",
            "no CUDA toolkit found (looked at $CUDA_PATH, nvcc on PATH, /usr/local/cuda): " +
            "install one or set CUDA_PATH=/path/to/cuda for --config=nvidia",
        )
        return
    version = rctx.execute([root + "/bin/nvcc", "--version"]).stdout.strip().split("\n")[-1]
    rctx.symlink(root + "/include", "include")
    rctx.symlink(root + "/lib64", "lib64")

    # nvcc finds its own sub-tools and headers relative to its path: call it by absolute path. The
    # version line makes a toolkit change change this file, and with it every compile's cache key.
    rctx.file("nvcc.sh", "#!/bin/sh\n# %s\nexec '%s/bin/nvcc' \"$@\"\n" % (version, root), executable = True)
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "nvcc", srcs = ["nvcc.sh"])
cc_library(name = "cuda_headers", hdrs = glob(["include/**"]), includes = ["include"])
cc_import(name = "cudart_static_lib", static_library = "lib64/libcudart_static.a")
# The CUDA runtime, linked statically: the library then needs only the driver (libcuda.so) at run time.
cc_library(
    name = "cuda_runtime",
    deps = [":cudart_static_lib", ":cuda_headers"],
    linkopts = ["-ldl", "-lpthread", "-lrt"],
)
""")

local_cuda = repository_rule(
    implementation = _local_cuda_impl,
    environ = ["CUDA_PATH", "PATH"],
    local = True,
)

cuda_library = device_library_rule(
    compiler = "@local_cuda//:nvcc",
    runtime = "@local_cuda//:cuda_runtime",
    lang_flags = [
        "-x", "cu", "-std=c++17", "-O3", "--expt-relaxed-constexpr",
        "-Xcompiler=-fPIC", "-Xcompiler=-fvisibility=hidden",
    ],
    mnemonic = "CudaCompile",
    extensions = [".cu"],
    host_compiler_flag = "-ccbin",
    archs = "//tools:cuda_archs",
    doc = "CUDA sources compiled by nvcc into a static library usable as a cc dependency.",
)
