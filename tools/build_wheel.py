"""Writes a wheel (PEP 427) from files given as DEST=SRC pairs, with tags read off the files. Used by
tools/wheel.bzl (Debian's packaged rules_python lacks py_wheel's wheelmaker, and we cannot fetch it).

The metadata comes from pyproject.toml's [project] table (the one place it is written). The tags are
the truth about the files, not a setting:
  * python/abi: cp310-abi3 when the wheel carries a stable-ABI extension (*.abi3.so, built with
    Py_LIMITED_API 0x030A0000), else py3-none;
  * platform: manylinux_2_<N>_<arch>, the oldest manylinux policy (auditwheel's manylinux-policy.json)
    whose symbol versions cover every GLIBC_/GLIBCXX_/CXXABI_/GCC_ version the ELF files need, read from
    their .gnu.version_r sections, and whose library list holds every DT_NEEDED library not shipped in the
    wheel; linux_<arch> (not uploadable, but honest) when no policy fits.
`--evidence FILE` writes what the tag was decided from (also printed by `--inspect WHEEL`).
"""

import argparse
import base64
import hashlib
import io
import os
import re
import struct
import sys
import zipfile

# ---------------------------------------------------------------------------------------------- ELF


class ElfInfo:
    def __init__(self, machine, needed, versions):
        self.machine = machine  # "x86_64", "aarch64", ...
        self.needed = needed  # DT_NEEDED names
        self.versions = versions  # {library: {"GLIBC_2.34", ...}} from .gnu.version_r


_MACHINES = {62: "x86_64", 183: "aarch64", 3: "i686", 20: "ppc", 21: "ppc64le", 22: "s390x"}
_SHT_DYNAMIC, _SHT_GNU_VERNEED, _DT_NEEDED = 6, 0x6FFFFFFE, 1


def read_elf(data: bytes):
    """ElfInfo of an ELF shared object, or None for anything else."""
    if data[:4] != b"\x7fELF":
        return None
    is64, end = data[4] == 2, "<" if data[5] == 1 else ">"
    machine = struct.unpack_from(end + "H", data, 18)[0]
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
        section_fmt, dyn_fmt = end + "IIQQQQIIQQ", end + "qQ"
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
        section_fmt, dyn_fmt = end + "IIIIIIIIII", end + "iI"
    sections = []
    for i in range(shnum):
        _, kind, _, _, offset, size, link, info, _, _ = struct.unpack_from(section_fmt, data, shoff + i * shentsize)
        sections.append((kind, offset, size, link, info))

    def string(table, at):
        start = sections[table][1] + at
        return data[start:data.index(b"\0", start)].decode()

    needed, versions = [], {}
    for kind, offset, size, link, info in sections:
        if kind == _SHT_DYNAMIC:
            step = struct.calcsize(dyn_fmt)
            for at in range(offset, offset + size, step):
                tag, value = struct.unpack_from(dyn_fmt, data, at)
                if tag == _DT_NEEDED:
                    needed.append(string(link, value))
        elif kind == _SHT_GNU_VERNEED:
            at = offset
            for _ in range(info):
                _, count, file_name, aux, next_entry = struct.unpack_from(end + "HHIII", data, at)
                names, aux_at = versions.setdefault(string(link, file_name), set()), at + aux
                for _ in range(count):
                    _, _, _, name, next_aux = struct.unpack_from(end + "IHHII", data, aux_at)
                    names.add(string(link, name))
                    aux_at += next_aux
                at += next_entry
    return ElfInfo(_MACHINES.get(machine, "unknown%d" % machine), needed, versions)


# ------------------------------------------------------------------------------------------- policy

# From auditwheel 6.8's manylinux-policy.json: per policy, the newest version of each symbol-version
# namespace it allows (GLIBC, GLIBCXX, CXXABI agree on x86_64 and aarch64 for these policies; GCC_ differs).
_POLICIES = [  # (name, GLIBC, GLIBCXX, CXXABI, {arch: GCC})
    ("manylinux_2_17", "2.17", "3.4.19", "1.3.7", {"x86_64": "4.8.0", "aarch64": "4.7.0"}),
    ("manylinux_2_24", "2.24", "3.4.22", "1.3.10", {"x86_64": "4.8.0", "aarch64": "4.7.0"}),
    ("manylinux_2_27", "2.27", "3.4.24", "1.3.11", {"x86_64": "7.0.0", "aarch64": "7.0.0"}),
    ("manylinux_2_28", "2.28", "3.4.24", "1.3.11", {"x86_64": "7.0.0", "aarch64": "7.0.0"}),
    ("manylinux_2_31", "2.31", "3.4.28", "1.3.12", {"x86_64": "7.0.0", "aarch64": "7.0.0"}),
    ("manylinux_2_34", "2.34", "3.4.29", "1.3.13", {"x86_64": "7.0.0", "aarch64": "11.0"}),
    ("manylinux_2_35", "2.35", "3.4.30", "1.3.13", {"x86_64": "12.0.0", "aarch64": "11.0"}),
    ("manylinux_2_36", "2.36", "3.4.30", "1.3.13", {"x86_64": "12.0.0", "aarch64": "11.0"}),
    ("manylinux_2_38", "2.38", "3.4.30", "1.3.13", {"x86_64": "12.0.0", "aarch64": "11.0"}),
    ("manylinux_2_39", "2.39", "3.4.33", "1.3.15", {"x86_64": "14.0.0", "aarch64": "14.0.0"}),
    ("manylinux_2_41", "2.41", "3.4.33", "1.3.15", {"x86_64": "14.0.0", "aarch64": "14.0.0"}),
]
_NAMESPACES = ("GLIBC", "GLIBCXX", "CXXABI", "GCC")
# Libraries every manylinux system provides (the policies' lib_whitelist), the dynamic loaders added.
_SYSTEM_LIBRARIES = {
    "libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libmvec.so.1", "libanl.so.1", "libdl.so.2",
    "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1", "libpthread.so.0", "libresolv.so.2", "libz.so.1",
    "libexpat.so.1", "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1",
    "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}


def _version(text):
    return tuple(int(p) for p in text.split("."))


def required_versions(elves):
    """{namespace: newest version needed} over all ELF files, e.g. {"GLIBC": "2.34", "GLIBCXX": "3.4.29"}."""
    newest = {}
    for info in elves.values():
        for names in info.versions.values():
            for name in names:
                match = re.fullmatch(r"([A-Z]+)_([0-9.]+)", name)
                if match and match.group(1) in _NAMESPACES:
                    ns, v = match.groups()
                    if ns not in newest or _version(v) > _version(newest[ns]):
                        newest[ns] = v
    return newest


def platform_tag(elves):
    """(platform tag, reasons): the manylinux tag the ELF files allow, else linux_<arch>."""
    machines = {info.machine for info in elves.values()}
    if not elves:
        return "any", ["no compiled files"]
    if len(machines) != 1:
        return None, ["ELF files of several machines: %s" % sorted(machines)]
    arch = machines.pop()
    shipped = {os.path.basename(name) for name in elves}
    foreign = sorted({lib for info in elves.values() for lib in info.needed} - _SYSTEM_LIBRARIES - shipped)
    newest = required_versions(elves)
    reasons = ["needs %s" % ", ".join("%s_%s" % (ns, newest[ns]) for ns in _NAMESPACES if ns in newest)]
    if foreign:
        return "linux_" + arch, reasons + ["links libraries outside every manylinux policy: %s" % ", ".join(foreign)]
    if arch not in ("x86_64", "aarch64"):
        return "linux_" + arch, reasons + ["no manylinux policy table for %s here" % arch]
    for name, glibc, glibcxx, cxxabi, gcc in _POLICIES:
        limits = (glibc, glibcxx, cxxabi, gcc[arch])
        if all(_version(newest[ns]) <= _version(limit) for ns, limit in zip(_NAMESPACES, limits) if ns in newest):
            return "%s_%s" % (name, arch), reasons
    return "linux_" + arch, reasons + ["newer than the newest manylinux policy known here"]


def evidence(elves):
    lines = []
    for name in sorted(elves):
        info = elves[name]
        lines.append("%s: %s, NEEDED %s" % (name, info.machine, " ".join(info.needed)))
        for lib in sorted(info.versions):
            lines.append("  %s: %s" % (lib, " ".join(sorted(info.versions[lib], key=_sort_key))))
    return lines


def _sort_key(name):
    match = re.fullmatch(r"([A-Za-z_]+?)_([0-9.]+)", name)
    return (match.group(1), _version(match.group(2))) if match else (name, ())


# ------------------------------------------------------------------------------------------ metadata


def load_project(path):
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            sys.exit("build_wheel: reading %s needs Python >= 3.11 (tomllib) or the tomli package" % path)
    with open(path, "rb") as f:
        return tomllib.load(f)["project"]


def metadata_lines(project, version, readme_text=None):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + version]
    if project.get("description"):
        lines.append("Summary: " + project["description"])
    license_ = project.get("license")
    if isinstance(license_, dict):
        license_ = license_.get("text")
    if license_:
        lines.append("License: " + license_)
    for path in project.get("license-files", []):
        lines.append("License-File: " + os.path.basename(path))
    for classifier in project.get("classifiers", []):
        lines.append("Classifier: " + classifier)
    if project.get("requires-python"):
        lines.append("Requires-Python: " + project["requires-python"])
    lines += ["Requires-Dist: " + r for r in project.get("dependencies", [])]
    for extra, requirements in sorted(project.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in requirements]
    for label, url in project.get("urls", {}).items():
        lines.append("Project-URL: %s, %s" % (label, url))
    text = "\n".join(lines) + "\n"
    if readme_text is not None:
        text += "Description-Content-Type: text/markdown\n\n" + readme_text
    return text


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=" + digest


def local_version_of(args):
    """'' or the local version label (+cu13) of this build."""
    label = args.local_version
    if args.cuda_version_file:
        with open(args.cuda_version_file) as f:
            match = re.search(r"(?:release |cuda_)(\d+)\.(\d+)", f.read())
        if not match:
            sys.exit("build_wheel: no CUDA version (release X.Y / cuda_X.Y) in %s" % args.cuda_version_file)
        label = "cu" + match.group(1)
    return "+" + label if label else ""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out_dir", help="the wheel is written here under its PEP 427 file name")
    parser.add_argument("--pyproject", help="pyproject.toml: [project] gives the metadata")
    parser.add_argument("--readme", help="long description (markdown)")
    parser.add_argument("--license_file", action="append", default=[], help="copied into .dist-info/")
    parser.add_argument("--python_tag", default="cp310", help="python tag when a stable-ABI extension is inside")
    parser.add_argument("--local_version", default="", help="local version label, e.g. cu13 or maca")
    parser.add_argument("--cuda_version_file", help="nvcc --version output: the local version becomes +cu<major>")
    parser.add_argument("--evidence", help="writes the symbol versions the platform tag was decided from")
    parser.add_argument("--inspect", help="prints the tag evidence of an existing wheel and exits")
    parser.add_argument("files", nargs="*", help="DEST=SRC")
    args = parser.parse_args()

    if args.inspect:
        with zipfile.ZipFile(args.inspect) as zf:
            elves = {n: read_elf(zf.read(n)) for n in zf.namelist() if n.endswith(".so")}
        elves = {n: e for n, e in elves.items() if e}
        tag, reasons = platform_tag(elves)
        print("\n".join(evidence(elves) + ["platform tag allowed: %s (%s)" % (tag, "; ".join(reasons))]))
        return

    project = load_project(args.pyproject)
    name = project["name"].replace("-", "_")
    version = project["version"] + local_version_of(args)
    pairs = sorted(pair.split("=", 1) for pair in args.files)
    contents = {}
    for dest, src in pairs:
        with open(src, "rb") as f:
            contents[dest] = f.read()
    elves = {dest: read_elf(data) for dest, data in contents.items() if dest.endswith(".so")}
    elves = {dest: info for dest, info in elves.items() if info}
    abi3 = any(dest.endswith(".abi3.so") for dest in contents)
    plat, reasons = platform_tag(elves)
    if plat is None:
        sys.exit("build_wheel: " + "; ".join(reasons))
    tag = "%s-%s-%s" % (args.python_tag if abi3 else "py3", "abi3" if abi3 else "none", plat)
    if args.evidence:
        with open(args.evidence, "w") as f:
            f.write("\n".join(evidence(elves) + ["tag: %s (%s)" % (tag, "; ".join(reasons))]) + "\n")

    readme = None
    if args.readme:
        with open(args.readme, encoding="utf-8") as f:
            readme = f.read()
    dist_info = "%s-%s.dist-info" % (name, version)
    wheel = ["Wheel-Version: 1.0", "Generator: operator_runtime tools/build_wheel.py", "Root-Is-Purelib: false",
             "Tag: " + tag]
    out = os.path.join(args.out_dir, "%s-%s-%s.whl" % (name, version, tag))
    record = []
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        def add(dest: str, data: bytes, executable: bool = False) -> None:
            info = zipfile.ZipInfo(dest, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            record.append("%s,%s,%d" % (dest, _record_hash(data), len(data)))

        for dest, data in contents.items():
            add(dest, data, executable=dest.endswith(".so"))
        for path in args.license_file:
            with open(path, "rb") as f:
                add("%s/%s" % (dist_info, os.path.basename(path)), f.read())
        add(dist_info + "/METADATA", metadata_lines(project, version, readme).encode())
        add(dist_info + "/WHEEL", ("\n".join(wheel) + "\n").encode())
        record.append(dist_info + "/RECORD,,")
        info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, "\n".join(record) + "\n")
    with open(out, "wb") as f:
        f.write(buffer.getvalue())


if __name__ == "__main__":
    main()
