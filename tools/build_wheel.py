"""Writes a wheel (PEP 427) from files given as DEST=SRC pairs. Used by tools/wheel.bzl.

Debian's packaged rules_python lacks py_wheel's wheelmaker tool, and we cannot fetch it offline.
"""

import argparse
import base64
import hashlib
import zipfile


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=" + digest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--tag", required=True, help="e.g. py3-none-linux_x86_64")
    parser.add_argument("--summary", default="")
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("--python_requires", default="")
    parser.add_argument("files", nargs="*", help="DEST=SRC")
    args = parser.parse_args()

    dist_info = "%s-%s.dist-info" % (args.name, args.version)
    metadata = ["Metadata-Version: 2.1", "Name: " + args.name, "Version: " + args.version]
    if args.summary:
        metadata.append("Summary: " + args.summary)
    if args.python_requires:
        metadata.append("Requires-Python: " + args.python_requires)
    metadata += ["Requires-Dist: " + r for r in args.requires]
    wheel = ["Wheel-Version: 1.0", "Generator: operator_runtime tools/build_wheel.py", "Root-Is-Purelib: false",
             "Tag: " + args.tag]

    record = []
    with zipfile.ZipFile(args.out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        def add(dest: str, data: bytes, executable: bool = False) -> None:
            info = zipfile.ZipInfo(dest, date_time=(1980, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            record.append("%s,%s,%d" % (dest, _record_hash(data), len(data)))

        for pair in sorted(args.files):
            dest, src = pair.split("=", 1)
            with open(src, "rb") as f:
                add(dest, f.read(), executable=dest.endswith(".so"))
        add(dist_info + "/METADATA", ("\n".join(metadata) + "\n").encode())
        add(dist_info + "/WHEEL", ("\n".join(wheel) + "\n").encode())
        record.append(dist_info + "/RECORD,,")
        info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
        zf.writestr(info, "\n".join(record) + "\n")


if __name__ == "__main__":
    main()
