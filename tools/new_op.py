#!/usr/bin/env python3
"""Creates a new operator's folder from templates and registers it: `bazel run //tools:new_op -- --name gelu --kind unary`.

Kinds (tools/new_op_templates/<kind>/, each a complete operator that builds at once):
  unary   y = f(x) elementwise, any strides, x may broadcast to y          (model: relu)
  binary  c = f(a, b) elementwise with broadcasting                          (model: vector_add)
  reduce  y = the reduction of x over some axes (keepdim like torch)         (model: reduce_sum)
  row     y = f(the row of x along one axis), e.g. a normalization          (model: softmax)

The new op's tests fail with "<op>: kernel not implemented: edit <file>" until you write its kernels: a
template never passes vacuously. The only file changed outside the new folder is ops/operators.bzl (one line).
"""

from __future__ import annotations

import argparse
import keyword
import os
import pathlib
import re
import sys

TEMPLATES = pathlib.Path(__file__).resolve().parent / "new_op_templates"
KINDS = ("unary", "binary", "reduce", "row")
REGISTRY = "ops/operators.bzl"
# Names the new op's Python function or C symbols would shadow or collide with.
RESERVED = {"backend", "set_backend", "get_backend", "available_backends", "compiled_backends", "device_name",
            "synchronize", "explain", "testing", "benchmark", "tensor", "errors", "ops", "runtime", "common", "status",
            "version", "malloc", "free", "memcpy", "stream", "dtype", "tensor_layout", "last_error"}


class Refused(Exception):
    """The one line new_op prints when it will not create the operator."""


def workspace_root() -> pathlib.Path:
    # `bazel run` starts in the runfiles tree; BUILD_WORKSPACE_DIRECTORY is the checkout it was run from.
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    return pathlib.Path(root) if root else pathlib.Path(__file__).resolve().parent.parent


def registered_packages(root: pathlib.Path) -> list:
    text = (root / REGISTRY).read_text()
    return re.findall(r'^\s*"(//ops/[^"]+)",', text, flags=re.M)


def check_name(name: str, root: pathlib.Path) -> None:
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name) or name.endswith("_") or "__" in name:
        raise Refused("new_op: %r is not a valid operator name: use lower_snake_case, a letter first, at most 40 "
                      "characters (it becomes oprt_<name> in C and oprt.<name> in Python)" % name)
    if keyword.iskeyword(name) or name in RESERVED:
        raise Refused("new_op: %r is reserved (a Python keyword or a name operator_runtime already uses)" % name)
    taken = {label.rsplit("/", 1)[-1] for label in registered_packages(root)}
    taken |= {p.parent.name for p in (root / "ops").rglob("BUILD.bazel")}
    if name in taken or name == "log_softmax":
        raise Refused("new_op: an operator or package named %r already exists under ops/" % name)


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def render(text: str, name: str) -> str:
    return (text.replace("{{op}}", name).replace("{{Op}}", camel(name)).replace("{{OP}}", name.upper()))


def create(name: str, kind: str, root: pathlib.Path) -> list:
    """Writes ops/<name>/ from the kind's templates; returns the files written (relative to root)."""
    source = TEMPLATES / kind
    target = root / "ops" / name
    if target.exists():
        raise Refused("new_op: %s already exists" % target.relative_to(root))
    written = []
    for template in sorted(p for p in source.rglob("*") if p.is_file()):
        relative = pathlib.Path(render(str(template.relative_to(source)), name).removesuffix(".tmpl"))
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(template.read_text(), name))
        written.append(str(path.relative_to(root)))
    return written


def register(name: str, root: pathlib.Path) -> None:
    """Adds "//ops/<name>" to OPERATORS in ops/operators.bzl, keeping the list sorted."""
    path = root / REGISTRY
    lines = path.read_text().split("\n")
    entries = [i for i, line in enumerate(lines) if re.match(r'^\s*"//ops/[^"]+",\s*$', line)]
    if not entries:
        raise Refused("new_op: found no OPERATORS entries in %s" % REGISTRY)
    new = '    "//ops/%s",' % name
    position = next((i for i in entries if lines[i].strip() > new.strip()), entries[-1] + 1)
    lines.insert(position, new)
    path.write_text("\n".join(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True, help="the operator's name, lower_snake_case (e.g. gelu)")
    parser.add_argument("--kind", required=True, choices=KINDS, help="which template to start from")
    args = parser.parse_args(argv)
    root = workspace_root()
    try:
        check_name(args.name, root)
        written = create(args.name, args.kind, root)
        register(args.name, root)
    except Refused as refusal:
        print(refusal, file=sys.stderr)
        return 2
    print("new_op: created ops/%s (%s, %d files) and registered it in %s:" % (args.name, args.kind, len(written), REGISTRY))
    for path in written:
        print("  " + path)
    print(render(NEXT_STEPS[args.kind], args.name))
    return 0


_COMMON_STEPS = """
Next (docs/how-to-add-an-operator.md walks through each):
  ./bazelw test //ops/{{op}}/...          fails: "{{op}}: kernel not implemented: edit ..." until you fill in
  1. cases.py      the numpy reference (what "right" means) and the cases that check it
  2. %s
  3. ./bazelw test //ops/{{op}}/...  then, on a GPU machine, --config=nvidia
"""
NEXT_STEPS = {
    "unary": _COMMON_STEPS % "{{op}}.h       the {{Op}}Functor: one scalar function, shared by the CPU and GPU kernels",
    "binary": _COMMON_STEPS % "{{op}}.h       the {{Op}}Functor: one scalar function of two inputs, shared by CPU and GPU",
    "reduce": _COMMON_STEPS % ("cpu/{{op}}_cpu.cc the CPU reference kernel, then nvidia/kernel.cuh the CUDA kernel "
                               "(combine, identity and the block reduction)"),
    "row": _COMMON_STEPS % "cpu/{{op}}_cpu.cc the CPU reference kernel, then nvidia/kernel.cuh the CUDA row kernel",
}

if __name__ == "__main__":
    sys.exit(main())
