"""The PEP 517 build backend of operator_runtime (pyproject.toml names it, in-tree through backend-path).

`pip install .`, `pip wheel .` and `python -m build` build the wheel with Bazel: `./bazelw build
//python:wheel` (./bazelw sets up Bazel and a Python on a machine that has neither), then copy the
tagged .whl it made (tools/build_wheel.py decides its tags from the files) into pip's directory. The
same target is what `./bazelw build //python:wheel` gives a developer, so both routes make one wheel.

Settings, as `pip ... -C KEY=VALUE` (config_settings) or from the environment (the setting wins):
  config      OPRT_BUILD_CONFIG  cpu (default), nvidia or metax: --config=<it>, e.g. the CUDA build
                                 (CPU + CUDA kernels, version <v>+cu<CUDA major>)
  bazel-args  OPRT_BAZEL_ARGS    more Bazel flags, split like a shell, e.g. "--config=remote
                                 --//tools:cuda_archs=80,90"
`pip install -v .` shows Bazel's progress; without -v pip shows it only when the build fails.
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tarfile
import time

_CONFIGS = ("cpu", "nvidia", "metax")


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key)
    if isinstance(value, list):  # pip passes a repeated -C KEY=... as a list
        value = " ".join(value)
    return value if value is not None else os.environ.get(env, "")


def _bazel_flags(config_settings):
    config = _setting(config_settings, "config", "OPRT_BUILD_CONFIG").strip() or "cpu"
    if config not in _CONFIGS:
        raise ValueError("operator_runtime build: config %r is not one of %s" % (config, ", ".join(_CONFIGS)))
    flags = [] if config == "cpu" else ["--config=" + config]
    return flags + shlex.split(_setting(config_settings, "bazel-args", "OPRT_BAZEL_ARGS"))


def _environment():
    """This environment without pip's build isolation: its PYTHONPATH (a sitecustomize that hides
    site-packages from every Python started below, including the one ./bazelw looks for) and its
    temporary PATH entries would reach Bazel and the build's Python."""
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PATH"):
        if key in env:
            kept = [p for p in env[key].split(os.pathsep) if p and "pip-build-env-" not in p]
            if kept:
                env[key] = os.pathsep.join(kept)
            else:
                del env[key]
    env.pop("PYTHONNOUSERSITE", None)
    return env


def _log(message):
    print("operator_runtime build: " + message, file=sys.stderr, flush=True)


def _bazel(args, capture=False):
    command = ["./bazelw"] + args
    _log(" ".join(shlex.quote(a) for a in command))
    result = subprocess.run(command, env=_environment(), stdout=subprocess.PIPE if capture else sys.stderr,
                            stderr=sys.stderr, universal_newlines=True)
    if result.returncode:
        raise RuntimeError("operator_runtime build: `%s` failed (exit %d); its output is above"
                           % (" ".join(command), result.returncode))
    return result.stdout


def get_requires_for_build_wheel(config_settings=None):
    return []  # Bazel brings everything (./bazelw bootstraps it)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if not os.path.exists("bazelw"):
        raise RuntimeError("operator_runtime build: run from the source tree (no ./bazelw in %s)" % os.getcwd())
    flags = _bazel_flags(config_settings)
    start = time.time()
    _bazel(["build"] + flags + ["//python:wheel"])
    outputs = _bazel(["cquery"] + flags + ["--output=files", "//python:wheel"], capture=True).split()
    wheels = [p for d in outputs if os.path.isdir(d) for p in pathlib.Path(d).glob("*.whl")]
    if len(wheels) != 1:
        raise RuntimeError("operator_runtime build: expected one wheel in %s, found %s" % (outputs, wheels))
    os.makedirs(wheel_directory, exist_ok=True)
    target = os.path.join(wheel_directory, wheels[0].name)
    shutil.copyfile(wheels[0], target)  # (Bazel's outputs are read-only; pip may want to move it)
    for path in outputs:
        if path.endswith(".tags.txt"):
            _log("tag evidence (%s):\n%s" % (path, pathlib.Path(path).read_text().rstrip()))
    _log("%s in %.0f s" % (wheels[0].name, time.time() - start))
    if os.path.exists("PKG-INFO"):  # an unpacked sdist (python -m build: a temporary directory)
        _bazel(["clean", "--expunge"])  # its Bazel server and output base would outlive the directory
    return wheels[0].name


# ---------------------------------------------------------------------------------------------- sdist


def get_requires_for_build_sdist(config_settings=None):
    return ['tomli>=1.1; python_version < "3.11"']  # PKG-INFO is made from pyproject.toml


def _source_files():
    """The files of the source tree: git's list in a checkout, else every file but build outputs."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        return sorted(p for p in listed.decode().split("\0") if p and os.path.isfile(p))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk("."):
            dirs[:] = [d for d in dirs if not (d.startswith("bazel-") or d in (".git", "__pycache__", "dist"))]
            files += [os.path.relpath(os.path.join(root, n)) for n in names if not n.endswith(".pyc")]
        return sorted(f for f in files if f not in (".bazelrc.generated", "user.bazelrc"))


def build_sdist(sdist_directory, config_settings=None):
    sys.path.insert(0, os.path.join(os.getcwd(), "tools"))
    import build_wheel  # tools/build_wheel.py: the same metadata as the wheel's

    project = build_wheel.load_project("pyproject.toml")
    base = "%s-%s" % (project["name"].replace("-", "_"), project["version"])
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    pkg_info = build_wheel.metadata_lines(project, project["version"]).encode()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in _source_files():
            tar.add(name, arcname=base + "/" + name, recursive=False)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size, info.mtime, info.mode = len(pkg_info), int(time.time()), 0o644
        import io

        tar.addfile(info, io.BytesIO(pkg_info))
    return os.path.basename(path)
