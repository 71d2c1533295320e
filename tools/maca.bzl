"""MetaX MACA support: the SDK as @local_maca and a maca_library rule (same shape as cuda_library).

The SDK is found at $MACA_PATH (default /opt/maca) with the mxcc compiler driver. Without it, analysis
(e.g. `bazel cquery --config=metax //...`) still works and every MACA compile fails with one line
naming MACA_PATH.

What a compile gets (tools/metax_standin/toolchain_test.sh checks every item through a stand-in mxcc):
  mxcc --maca-path=$MACA_PATH -x maca -std=c++17 -O3 -fPIC -fvisibility=hidden --offload-arch=ARCH...
       -I<deps' includes> -isystem $MACA_PATH/include -isystem $MACA_PATH/include/mcr -D<defines> <copts>
       <host_copts, passed as they are: mxcc compiles host code itself> -c SRC -o OBJ
ARCH comes from --//tools:maca_archs (default xcore1000, MetaX C500; comma-separated for several).
$MACA_PATH/include/mcr is on the path because the SDK keeps mc_runtime.h there (the shim includes
<mc_runtime.h> and <common/maca_fp16.h>); --maca-path because actions run without $MACA_PATH in their
environment. Objects link with -L$MACA_PATH/lib -lmcruntime.
Not yet run on MetaX hardware (none is reachable from here); see docs/backends.md.
"""

load("//tools:device_library.bzl", "device_library_rule", "write_missing_toolkit")

# System include paths of the SDK: mc_runtime.h lives in include/mcr, maca_fp16.h in include/common.
_SDK_INCLUDES = ["include", "include/mcr"]

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
            runtime_includes = _SDK_INCLUDES,
        )
        return
    rctx.symlink(root + "/include", "include")

    # The version line makes an SDK change change this file, and with it every compile's cache key.
    version = rctx.execute([mxcc, "--version"]).stdout.strip().replace("\n", "; ")
    rctx.file(
        "mxcc.sh",
        "#!/bin/sh\n# %s\nexec '%s' --maca-path='%s' \"$@\"\n" % (version, mxcc, root),
        executable = True,
    )
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "mxcc", srcs = ["mxcc.sh"])
cc_library(
    name = "maca_runtime",
    hdrs = glob(["include/**"]),
    includes = {includes},
    linkopts = ["-L{root}/lib", "-Wl,-rpath,{root}/lib", "-lmcruntime"],
)
""".format(root = root, includes = repr(_SDK_INCLUDES)))

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
    host_copt_prefix = "",
    archs = "//tools:maca_archs",
    arch_style = "offload",
    doc = "MACA sources compiled by mxcc into a static library usable as a cc dependency.",
)
