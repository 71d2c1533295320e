"""oprt_wheel: a minimal py_wheel (Debian's offline rules_python ships py_wheel without its wheelmaker).

Files of `srcs` (e.g. a py_library and its data) land in the wheel at their workspace path with
`strip_prefix` removed; files outside that prefix are placed by `extra_files` {label: dest}. The
metadata is pyproject.toml's [project] table. The wheel's file name carries tags read off the files it
holds (tools/build_wheel.py: cp310-abi3 for the stable-ABI extension, manylinux_2_N from the ELF symbol
versions), so it is only known once they are built: the output is a directory, <name>/, holding the
one .whl, next to <name>.tags.txt, the symbol-version evidence its platform tag was decided from.
"""

def _oprt_wheel_impl(ctx):
    out_dir = ctx.actions.declare_directory(ctx.label.name)
    evidence = ctx.actions.declare_file(ctx.label.name + ".tags.txt")
    pairs = []
    inputs = [ctx.file.pyproject] + ctx.files.license_files + ctx.files.readme + ctx.files.cuda_version
    for src in ctx.attr.srcs:
        for f in src[DefaultInfo].default_runfiles.files.to_list() + src[DefaultInfo].files.to_list():
            if f.short_path.startswith(ctx.attr.strip_prefix) and f.extension == "py":
                pairs.append("%s=%s" % (f.short_path[len(ctx.attr.strip_prefix):], f.path))
                inputs.append(f)
    for target, dest in ctx.attr.extra_files.items():
        for f in target.files.to_list():
            pairs.append("%s=%s" % (dest, f.path))
            inputs.append(f)
    args = ctx.actions.args()
    args.add_all(["--out_dir", out_dir.path, "--pyproject", ctx.file.pyproject, "--evidence", evidence])
    args.add_all(["--python_tag", ctx.attr.python_tag])
    args.add_all(ctx.files.license_files, before_each = "--license_file")
    if ctx.files.readme:
        args.add("--readme", ctx.files.readme[0])
    if ctx.attr.local_version:
        args.add("--local_version", ctx.attr.local_version)
    if ctx.files.cuda_version:
        args.add("--cuda_version_file", ctx.files.cuda_version[0])
    args.add_all(depset(pairs))
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset(inputs),
        outputs = [out_dir, evidence],
        mnemonic = "PyWheel",
        progress_message = "Building wheel %s" % out_dir.short_path,
    )
    return [DefaultInfo(files = depset([out_dir, evidence]))]

oprt_wheel = rule(
    implementation = _oprt_wheel_impl,
    attrs = {
        "srcs": attr.label_list(doc = "py_library targets whose .py files go in."),
        "strip_prefix": attr.string(),
        "extra_files": attr.label_keyed_string_dict(allow_files = True, doc = "{target: path in the wheel}"),
        "pyproject": attr.label(allow_single_file = True, mandatory = True, doc = "[project] gives the metadata"),
        "readme": attr.label(allow_single_file = True, doc = "the long description (markdown)"),
        "license_files": attr.label_list(allow_files = True, doc = "copied into the .dist-info directory"),
        "python_tag": attr.string(default = "cp310", doc = "python tag of a wheel with a stable-ABI extension"),
        "local_version": attr.string(doc = "a local version label (+LABEL), e.g. for a GPU build"),
        "cuda_version": attr.label(
            allow_files = True,
            doc = "a file with nvcc's version line (@local_cuda//:nvcc): the local version becomes +cu<major>",
        ),
        "_builder": attr.label(default = "//tools:build_wheel", executable = True, cfg = "exec"),
    },
)
