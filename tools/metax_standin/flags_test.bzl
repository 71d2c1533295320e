"""Analysis test of maca_library's compile command (needs no SDK: without one the actions still exist).

The probe is analysed with --//tools:backend=metax and two offload targets; its one MacaCompile action
must carry the MACA language and codegen flags, one --offload-arch per target, the probe's defines and
copts, its dependency's defines and include path, the SDK's include and include/mcr as system includes,
and host_copts as they are (mxcc is a clang driver: no -Xcompiler). The stand-in build in check.sh then
runs the same command through a recording mxcc and links the result.
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    compiles = [a for a in analysistest.target_actions(env) if a.mnemonic == "MacaCompile"]
    asserts.equals(env, 1, len(compiles), "MacaCompile actions of the probe")
    if len(compiles) != 1:
        return analysistest.end(env)
    argv = compiles[0].argv

    def has(flag):
        asserts.true(env, flag in argv, "missing %r in %s" % (flag, argv))

    def has_pair(first, predicate, what):
        found = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == first and predicate(argv[i + 1])]
        asserts.true(env, len(found) > 0, "missing %s %s in %s" % (first, what, argv))

    for flag in ["-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden", "-c"]:
        has(flag)
    has_pair("-x", lambda v: v == "maca", "maca")
    has("--offload-arch=xcore1000")
    has("--offload-arch=xcore1500")
    for flag in ["-DOPRT_PROBE_DEFINE=1", "-DOPRT_PROBE_DEP_DEFINE=7", "-DOPRT_PROBE_COPT=1", "-fno-strict-aliasing"]:
        has(flag)
    asserts.false(env, any([a.startswith("-Xcompiler") for a in argv]), "-Xcompiler is nvcc's, not mxcc's: %s" % argv)
    asserts.false(env, any([a.startswith("-gencode") for a in argv]), "-gencode is nvcc's, not mxcc's: %s" % argv)
    asserts.true(
        env,
        any([a.endswith("tools/metax_standin/probe/include") for a in argv]),
        "the dependency's include path is missing: %s" % argv,
    )
    has_pair("-isystem", lambda v: "local_maca" in v and v.endswith("/include"), "<@local_maca>/include")
    has_pair("-isystem", lambda v: "local_maca" in v and v.endswith("/include/mcr"), "<@local_maca>/include/mcr")
    has_pair("-o", lambda v: v.endswith(".pic.o"), "<object>.pic.o")
    asserts.true(env, any([a.endswith("probe/probe.maca") for a in argv]), "the source is missing: %s" % argv)
    return analysistest.end(env)

maca_library_flags_test = analysistest.make(
    _flags_test_impl,
    config_settings = {
        str(Label("//tools:backend")): "metax",
        str(Label("//tools:maca_archs")): "xcore1000,xcore1500",
    },
)
