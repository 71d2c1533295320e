"""MetaX MACA support: the SDK as @local_maca and a maca_library rule (same shape as cuda_library).

The SDK is found at $MACA_PATH (default /opt/maca) with the mxcc compiler driver. Without it, analysis
(e.g. `bazel cquery --config=metax //...`) still works and every MACA compile fails with one line
naming MACA_PATH. Not yet run on MetaX hardware (none is reachable from here).
"""

load("//tools:device_library.bzl", "device_library_rule", "write_missing_toolkit")

def _local_maca_impl(rctx):
    root = rctx.os.environ.get("MACA_PATH") or "/opt/maca"
    mxcc = rctx.path(root + "/mxgpu_llvm/bin/mxcc")
    if not mxcc.exists:
        mxcc = rctx.path(root + "/bin/mxcc")
    if not mxcc.exists:
        write_missing_toolkit(
            rctx,
            "mxcc",
            "maca_runtime",
            "MACA SDK not found: no mxcc under MACA_PATH=%s (set MACA_PATH to the SDK root for --config=metax)" % root,
        )
        return
    rctx.symlink(root + "/include", "include")
    rctx.file("mxcc.sh", "#!/bin/sh\nexec '%s' \"$@\"\n" % mxcc, executable = True)
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "mxcc", srcs = ["mxcc.sh"])
cc_library(
    name = "maca_runtime",
    hdrs = glob(["include/**"]),
    includes = ["include"],
    linkopts = ["-L{root}/lib", "-Wl,-rpath,{root}/lib", "-lmcruntime"],
)
""".format(root = root))

local_maca = repository_rule(
    implementation = _local_maca_impl,
    environ = ["MACA_PATH"],
    local = True,
)

maca_library = device_library_rule(
    compiler = "@local_maca//:mxcc",
    runtime = "@local_maca//:maca_runtime",
    lang_flags = ["-x", "maca", "-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden"],
    mnemonic = "MacaCompile",
    extensions = [".maca"],
    doc = "MACA sources compiled by mxcc into a static library usable as a cc dependency.",
)
