"""The wheel //python:wheel (what `pip install .` installs) tells the truth about itself: its file name's
tags match what it holds (cp310-abi3 for the stable-ABI extension; manylinux_2_N the oldest policy that
covers the glibc / libstdc++ symbol versions its .so files need, cross-checked with objdump where it is
installed), its metadata (Requires-Python >= 3.10, dependencies, extras, license) is pyproject.toml's,
the LICENSE is inside, and RECORD matches the files."""

import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

import operator_runtime as oprt
from operator_runtime import testing
from tools import build_wheel

ROOT = pathlib.Path(__file__).resolve().parent.parent
RUNFILES = pathlib.Path(os.environ.get("TEST_SRCDIR", ROOT.parent)) / "_main"
WHEEL_NAME = re.compile(r"(?P<name>operator_runtime)-(?P<version>[0-9.]+)(?P<local>\+(cu\d+|maca))?"
                        r"-(?P<python>cp310)-(?P<abi>abi3)-(?P<platform>(manylinux_2_(?P<glibc>\d+)_)?(linux_)?x86_64)\.whl")


def _file(relative):
    for base in (RUNFILES, ROOT):
        if (base / relative).exists():
            return base / relative
    pytest.skip("%s is not in the runfiles" % relative)


@pytest.fixture(scope="module")
def wheel():
    wheels = list(_file("python/wheel").glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def project():
    return build_wheel.load_project(_file("pyproject.toml"))


def _read(zf, suffix):
    names = [n for n in zf.namelist() if n.endswith(suffix)]
    assert len(names) == 1, (suffix, names)
    return zf.read(names[0])


def test_file_name_tags(wheel, project):
    m = WHEEL_NAME.fullmatch(wheel.name)
    assert m, wheel.name
    assert m["version"] == project["version"] == oprt.__version__
    with zipfile.ZipFile(wheel) as zf:
        info = _read(zf, ".dist-info/WHEEL").decode()
        assert "Tag: %s-%s-%s" % (m["python"], m["abi"], m["platform"]) in info.splitlines()
        assert "Root-Is-Purelib: false" in info.splitlines()
        assert "operator_runtime/_fastcall.abi3.so" in zf.namelist()
        assert "operator_runtime/libcamp_ops.so" in zf.namelist()
        assert "%s-%s%s.dist-info/METADATA" % (m["name"], m["version"], m["local"] or "") in zf.namelist()


def test_the_extension_is_built_for_the_stable_abi_of_python_3_10():
    source = _file("python/operator_runtime/_fastcall.c").read_text()
    assert "#define Py_LIMITED_API 0x030A0000" in source


def _needed_glibc(elf_bytes):
    info = build_wheel.read_elf(elf_bytes)
    return build_wheel.required_versions({"x": info})


def test_platform_tag_is_the_oldest_that_covers_the_symbol_versions(wheel):
    with zipfile.ZipFile(wheel) as zf:
        sos = {n: zf.read(n) for n in zf.namelist() if n.endswith(".so")}
    elves = {n: build_wheel.read_elf(b) for n, b in sos.items()}
    foreign = {lib for e in elves.values() for lib in e.needed} - build_wheel._SYSTEM_LIBRARIES
    m = WHEEL_NAME.fullmatch(wheel.name)
    if m["glibc"] is None:  # linux_x86_64: only for a library outside every manylinux policy (e.g. libasan)
        assert m["platform"] == "linux_x86_64" and foreign, (wheel.name, foreign)
        return
    assert not foreign, foreign
    glibc = int(m["glibc"])
    needed = build_wheel.required_versions(elves)
    assert tuple(map(int, needed["GLIBC"].split("."))) <= (2, glibc), needed
    policies = [p for p in build_wheel._POLICIES if p[0] == "manylinux_2_%d" % glibc]
    assert policies, "manylinux_2_%d is not in the policy table" % glibc
    index = build_wheel._POLICIES.index(policies[0])
    if index:  # the policy before it must NOT cover what the files need (else the tag is too strict)
        _, *limits, gcc = build_wheel._POLICIES[index - 1]
        limits = dict(zip(build_wheel._NAMESPACES, limits + [gcc["x86_64"]]))
        assert any(build_wheel._version(needed[ns]) > build_wheel._version(limits[ns]) for ns in needed), needed


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_symbol_versions_agree_with_objdump(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as zf:
        for name in [n for n in zf.namelist() if n.endswith(".so")]:
            path = tmp_path / os.path.basename(name)
            path.write_bytes(zf.read(name))
            dump = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True).stdout
            theirs = {}
            for ns, v in re.findall(r"\b(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)\b", dump):
                if ns not in theirs or build_wheel._version(v) > build_wheel._version(theirs[ns]):
                    theirs[ns] = v
            assert _needed_glibc(path.read_bytes()) == theirs, name


def test_metadata_is_pyprojects(wheel, project):
    with zipfile.ZipFile(wheel) as zf:
        lines = _read(zf, ".dist-info/METADATA").decode().split("\n\n", 1)[0].splitlines()
        license_text = _read(zf, ".dist-info/LICENSE")
    assert "Requires-Python: >=3.10" in lines
    assert project["requires-python"] == ">=3.10"
    assert "License: Apache-2.0" in lines and "License-File: LICENSE" in lines
    assert license_text == _file("LICENSE").read_bytes() and b"Apache License" in license_text
    requires = [l.split(": ", 1)[1] for l in lines if l.startswith("Requires-Dist: ")]
    assert set(project["dependencies"]) <= set(requires)
    assert any(r.startswith("numpy") for r in requires) and any(r.startswith("ml-dtypes") for r in requires)
    assert 'absl-py>=1.4; extra == "tools"' in requires  # tools/run_ops.py's, not the library's
    assert "Provides-Extra: tools" in lines


def test_record_matches_the_files(wheel):
    with zipfile.ZipFile(wheel) as zf:
        record = _read(zf, ".dist-info/RECORD").decode().splitlines()
        listed = set()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            listed.add(name)
            if name.endswith("/RECORD"):
                continue
            data = zf.read(name)
            expect = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, int(size)) == (expect, len(data)), name
        assert listed == set(zf.namelist())


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
