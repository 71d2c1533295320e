"""oprt_wheel: a minimal py_wheel (Debian's offline rules_python ships py_wheel without its wheelmaker).

Files of `srcs` (e.g. a py_library and its data) land in the wheel at their workspace path with
`strip_prefix` removed; files outside that prefix are placed by `extra_files` {label: dest}.
"""

def _oprt_wheel_impl(ctx):
    out = ctx.actions.declare_file("%s-%s-%s.whl" % (ctx.attr.distribution, ctx.attr.version, ctx.attr.tag))
    pairs = []
    inputs = []
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
    args.add_all(["--out", out, "--name", ctx.attr.distribution, "--version", ctx.attr.version, "--tag", ctx.attr.tag])
    args.add_all(["--summary", ctx.attr.summary, "--python_requires", ctx.attr.python_requires])
    for r in ctx.attr.requires:
        args.add_all(["--requires", r])
    args.add_all(depset(pairs))
    ctx.actions.run(
        executable = ctx.executable._builder,
        arguments = [args],
        inputs = depset(inputs),
        outputs = [out],
        mnemonic = "PyWheel",
        progress_message = "Building wheel %s" % out.short_path,
    )
    return [DefaultInfo(files = depset([out]))]

oprt_wheel = rule(
    implementation = _oprt_wheel_impl,
    attrs = {
        "srcs": attr.label_list(doc = "py_library targets whose .py files go in."),
        "strip_prefix": attr.string(),
        "extra_files": attr.label_keyed_string_dict(allow_files = True, doc = "{target: path in the wheel}"),
        "distribution": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "tag": attr.string(default = "py3-none-linux_x86_64"),
        "summary": attr.string(),
        "python_requires": attr.string(),
        "requires": attr.string_list(),
        "_builder": attr.label(default = "//tools:build_wheel", executable = True, cfg = "exec"),
    },
)
