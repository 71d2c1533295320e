"""A cc-compatible library rule for device code compiled by an nvcc-like driver (nvcc, MACA's mxcc).

cuda_library (tools/cuda.bzl) and maca_library (tools/maca.bzl) are instances. Attribute names follow
rules_cuda's cuda_library (srcs, hdrs, deps, copts, host_copts, defines, alwayslink), so moving to the
upstream rule is a load() change. Each source is one compile action whose inputs are every header
visible through hdrs/deps (so a header change recompiles what can include it); the objects are
archived into a PIC static library and returned as CcInfo that cc_library/cc_binary link as usual.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")

def write_missing_toolkit(rctx, compiler, runtime, message, runtime_includes = []):
    """Makes a toolkit repository without a toolkit: analysis works, and every compile fails with
    `message` as its one error line (the compiler wrapper prints it). `runtime_includes` keeps the
    runtime's include paths, so compile commands read the same with and without the toolkit."""
    quoted = "'%s'" % ("ERROR: " + message).replace("'", "'\\''")  # one literal shell word
    rctx.file(compiler + ".sh", "#!/bin/sh\necho %s >&2\nexit 1\n" % quoted, executable = True)
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "{compiler}", srcs = ["{compiler}.sh"])
cc_library(name = "{runtime}", includes = {includes})
""".format(compiler = compiler, runtime = runtime, includes = repr(runtime_includes)))

def _compile_flags(ctx, compilation_context, cc_toolchain):
    args = list(ctx.attr._lang_flags)
    if ctx.attr._host_compiler_flag:
        args += [ctx.attr._host_compiler_flag, cc_toolchain.compiler_executable]
    archs = [a.strip() for a in ctx.attr._archs[BuildSettingInfo].value.split(",") if a.strip()] if ctx.attr._archs else []
    if ctx.attr._arch_style == "gencode":  # nvcc
        # NN: a cubin for sm_NN. compute_NN: PTX only, JIT-compiled by the driver for the GPU it meets.
        cubins = [arch for arch in archs if not arch.startswith("compute_")]
        ptx = [arch[len("compute_"):] for arch in archs if arch.startswith("compute_")]
        for arch in cubins:
            args += ["-gencode", "arch=compute_{0},code=sm_{0}".format(arch)]
        if cubins and not ptx:
            # PTX of the newest arch as well, so later GPUs can JIT-compile it.
            ptx = [sorted(cubins, key = int)[-1]]
        for arch in ptx:
            args += ["-gencode", "arch=compute_{0},code=compute_{0}".format(arch)]
    else:  # clang-style drivers (mxcc): one --offload-arch per target
        args += ["--offload-arch=" + arch for arch in archs]
    for path in ["."] + compilation_context.includes.to_list() + compilation_context.quote_includes.to_list():
        args.append("-I" + path)
    for path in compilation_context.system_includes.to_list():
        args += ["-isystem", path]
    for define in compilation_context.defines.to_list() + ctx.attr.defines:
        args.append("-D" + define)
    args += ctx.attr.copts
    for flag in ctx.attr.host_copts:
        args.append(ctx.attr._host_copt_prefix + flag)
    return args

def _device_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    dep_infos = [dep[CcInfo] for dep in ctx.attr.deps + [ctx.attr._runtime]]
    deps_context = cc_common.merge_cc_infos(cc_infos = dep_infos).compilation_context
    flags = _compile_flags(ctx, deps_context, cc_toolchain)
    inputs = depset(ctx.files.hdrs, transitive = [deps_context.headers, cc_toolchain.all_files])

    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/{}/{}.pic.o".format(ctx.label.name, src.basename.rsplit(".", 1)[0]))
        args = ctx.actions.args()
        args.add_all(flags)
        args.add_all(["-c", src.path, "-o", obj.path])
        ctx.actions.run(
            executable = ctx.executable._compiler,
            arguments = [args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [obj],
            mnemonic = ctx.attr._mnemonic,
            use_default_shell_env = True,  # PATH for the host compiler's assembler and linker
            progress_message = "%s %s" % (ctx.attr._mnemonic, src.short_path),
        )
        objects.append(obj)

    library = ctx.actions.declare_file("lib{}.a".format(ctx.label.name))
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", library.path] + [o.path for o in objects],
        inputs = depset(objects, transitive = [cc_toolchain.all_files]),
        outputs = [library],
        mnemonic = "DeviceArchive",
        progress_message = "Archiving %s" % library.short_path,
    )
    library_to_link = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        pic_static_library = library,
        alwayslink = ctx.attr.alwayslink,
    )
    own = CcInfo(
        compilation_context = cc_common.create_compilation_context(headers = depset(ctx.files.hdrs)),
        linking_context = cc_common.create_linking_context(
            linker_inputs = depset([cc_common.create_linker_input(owner = ctx.label, libraries = depset([library_to_link]))]),
        ),
    )
    return [
        DefaultInfo(files = depset([library])),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = dep_infos),
    ]

def device_library_rule(
        compiler,
        runtime,
        lang_flags,
        mnemonic,
        extensions,
        host_compiler_flag = "",
        host_copt_prefix = "-Xcompiler=",
        archs = None,
        arch_style = "gencode",
        doc = ""):
    """A device_library rule for one compiler driver.

    host_copt_prefix: what goes before each host_copts flag ("-Xcompiler=" for nvcc; "" for mxcc, a clang
    driver that compiles host code itself). archs: a string_flag of comma-separated targets; arch_style
    "gencode" (nvcc: a cubin per SM plus PTX of the newest; compute_NN entries ask for PTX only) or
    "offload" (--offload-arch=ARCH each).
    """
    attrs = {
        "srcs": attr.label_list(allow_files = extensions, doc = "Device sources, one compile action each."),
        "hdrs": attr.label_list(allow_files = True, doc = "Headers these sources and dependents include."),
        "deps": attr.label_list(providers = [CcInfo], doc = "cc_library (or device library) dependencies."),
        "copts": attr.string_list(doc = "Flags for the device compiler driver."),
        "host_copts": attr.string_list(doc = "Flags forwarded to the host compiler (-Xcompiler)."),
        "defines": attr.string_list(),
        "alwayslink": attr.bool(default = False),
        "_compiler": attr.label(default = compiler, executable = True, cfg = "exec"),
        "_runtime": attr.label(default = runtime, providers = [CcInfo]),
        "_lang_flags": attr.string_list(default = lang_flags),
        "_mnemonic": attr.string(default = mnemonic),
        "_host_compiler_flag": attr.string(default = host_compiler_flag),
        "_host_copt_prefix": attr.string(default = host_copt_prefix),
        "_arch_style": attr.string(default = arch_style),
        "_archs": attr.label(default = archs) if archs else attr.label(),
    }
    return rule(
        implementation = _device_library_impl,
        attrs = attrs,
        fragments = ["cpp"],
        toolchains = use_cpp_toolchain(),
        doc = doc,
    )
