"""Exercise mode: a learner's copy of an op's device kernels with the marked code replaced by TODOs.

    bazel run //tools:exercise -- list                 # ops with exercises, and which are in progress
    bazel run //tools:exercise -- start softmax        # writes ops/softmax/exercise/ (git ignores it)
    bazel test --config=nvidia --//tools:kernels=exercise //ops/softmax:test_softmax_nvidia
    bazel run //tools:exercise -- reset softmax        # deletes ops/softmax/exercise/

`start <op>` copies the op's nvidia/ directory to exercise/ next to it, replacing every region

    // EXERCISE(step N): <one-line instruction>
    ...reference statements...
    // EXERCISE END

of the reference with `// TODO(step N): <instruction>` at the same indentation, and puts

    #define OPRT_TODO_LEFT "<op>: kernel not implemented: edit <file> (N TODOs), then delete this line"

at the top of the copy's kernel.cuh: the op's launcher starts with OPRT_RETURN_IF_TODO_LEFT()
(ops/runtime/todo.h), so until that line goes every call fails with NOT_SUPPORTED and that
text. The copy is made from the reference each time, so it never drifts from it. With
--//tools:kernels=exercise, tools/operator.bzl compiles exercise/ instead of nvidia/ for the NVIDIA and
the MetaX build of every op that has one; docs/learners-guide.md ("Exercise mode") is the guide.
"""

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

BEGIN = re.compile(r"^(?P<indent>[ \t]*)// EXERCISE\(step (?P<step>\d+)\): (?P<text>.*?)\s*$")
END = re.compile(r"^[ \t]*// EXERCISE END\s*$")
DISPATCHER = "kernel.cuh"


class Refused(Exception):
    pass


def checkout_root():
    # `bazel run` starts us in the runfiles tree; the checkout is where bazel was invoked.
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    return Path(root) if root else Path(__file__).resolve().parent.parent


def operators(root):
    """{op name: package path} from ops/operators.bzl's OPERATORS, the ops with an nvidia/ directory."""
    text = (root / "ops" / "operators.bzl").read_text()
    ops = {}
    for label in re.findall(r'"//(ops/[^":]+)"', text):
        if (root / label / "nvidia").is_dir():
            ops[label.rsplit("/", 1)[-1]] = label
    return ops


def exercise_text(path, text):
    """The file with its marked regions replaced by TODO lines, and the number of TODOs."""
    out, todos, open_at = [], 0, None
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_at:
                raise Refused("%s:%d: EXERCISE marker inside the region opened at line %d" % (path, number, open_at))
            open_at = number
            todos += 1
            out.append("%s// TODO(step %s): %s\n" % (begin["indent"], begin["step"], begin["text"]))
        elif end:
            if not open_at:
                raise Refused("%s:%d: EXERCISE END without an EXERCISE(step N) marker" % (path, number))
            open_at = None
        elif "EXERCISE(" in line and "// EXERCISE" in line:
            raise Refused("%s:%d: malformed marker (want `// EXERCISE(step N): <instruction>`)" % (path, number))
        elif not open_at:
            out.append(line)
    if open_at:
        raise Refused("%s:%d: EXERCISE(step N) region without `// EXERCISE END`" % (path, open_at))
    return "".join(out), todos


def count_markers(directory):
    return sum(len([l for l in f.read_text().splitlines() if BEGIN.match(l)])
               for f in sorted(directory.iterdir()) if f.is_file())


def insert_define(text, define):
    """After the file's leading comment block, before its include guard and includes."""
    lines = text.splitlines(keepends=True)
    at = 0
    while at < len(lines) and lines[at].startswith("//"):
        at += 1
    return "".join(lines[:at] + [define + "\n"] + lines[at:])


def find_op(root, op):
    ops = operators(root)
    if op not in ops:
        raise Refused("unknown op '%s' (ops: %s)" % (op, ", ".join(sorted(ops))))
    return ops[op]


def start(root, op, force):
    package = find_op(root, op)
    nvidia, exercise = root / package / "nvidia", root / package / "exercise"
    if not count_markers(nvidia):
        raise Refused("%s has no EXERCISE markers in %s/nvidia/: nothing to practise (`list` shows the ops that have)"
                      % (op, package))
    if exercise.exists() and not force:
        raise Refused("%s/exercise/ exists (an exercise in progress): keep working on it, or `reset %s`, or "
                      "`start --force %s` to start over" % (package, op, op))
    if not (nvidia / DISPATCHER).is_file():
        raise Refused("%s/nvidia/ has no %s to hold the OPRT_TODO_LEFT line" % (package, DISPATCHER))
    files, per_file = {}, {}
    for src in sorted(nvidia.iterdir()):
        if not src.is_file():
            continue
        text = src.read_text()
        # Files include their siblings by bare name; a full nvidia/ path would build the reference into the copy.
        text = text.replace('#include "%s/nvidia/' % package, '#include "%s/exercise/' % package)
        files[src.name], todos = exercise_text("%s/nvidia/%s" % (package, src.name), text)
        if todos:
            per_file[src.name] = todos
    total = sum(per_file.values())
    if len(per_file) == 1:
        where = "%s/exercise/%s" % (package, next(iter(per_file)))
    else:
        where = "%s in %s/exercise/" % (", ".join("%s (%d)" % kv for kv in per_file.items()), package)
    message = "%s: kernel not implemented: edit %s (%d TODO%s), then delete this line" % (op, where, total, "" if total == 1 else "s")
    files[DISPATCHER] = insert_define(files[DISPATCHER], '#define OPRT_TODO_LEFT "%s"' % message)
    if exercise.exists():
        shutil.rmtree(exercise)
    exercise.mkdir()
    for name, text in files.items():
        (exercise / name).write_text(text)
    print("exercise: wrote %s/exercise/ from %s/nvidia/: %d TODOs (%s)"
          % (package, package, total, ", ".join("%s: %d" % kv for kv in per_file.items())))
    print("exercise: your kernels build instead of ours with --//tools:kernels=exercise, e.g.")
    print("  ./bazelw test --config=nvidia --//tools:kernels=exercise //ops/%s:test_%s_nvidia   # on a GPU"
          % (package[len("ops/"):], op))
    print("  (no GPU: the MetaX build on the CPU emulator, docs/learners-guide.md \"Exercise mode\")")
    print("exercise: until you delete the OPRT_TODO_LEFT line in %s/exercise/%s every call fails with its text;"
          " `reset %s` deletes the copy" % (package, DISPATCHER, op))


def reset(root, op):
    package = find_op(root, op)
    exercise = root / package / "exercise"
    if not exercise.exists():
        print("exercise: no exercise in progress for %s (%s/exercise/ does not exist)" % (op, package))
        return
    shutil.rmtree(exercise)
    print("exercise: deleted %s/exercise/; %s builds its reference kernels again" % (package, op))


def list_ops(root):
    for op, package in sorted(operators(root).items()):
        steps = count_markers(root / package / "nvidia")
        state = ("in progress: %s/exercise/" % package if (root / package / "exercise").exists()
                 else "-" if steps else "no exercise (no EXERCISE markers)")
        print("%-12s %-24s %2d steps   %s" % (op, package, steps, state))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bazel run //tools:exercise --", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="write ops/<op>/exercise/: the op's kernels with TODOs")
    p.add_argument("op")
    p.add_argument("--force", action="store_true", help="replace an exercise in progress")
    sub.add_parser("reset", help="delete ops/<op>/exercise/").add_argument("op")
    sub.add_parser("list", help="ops with exercises, and which are in progress")
    args = parser.parse_args(argv)
    root = checkout_root()
    try:
        if args.command == "start":
            start(root, args.op, args.force)
        elif args.command == "reset":
            reset(root, args.op)
        else:
            list_ops(root)
    except Refused as e:
        print("exercise: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
