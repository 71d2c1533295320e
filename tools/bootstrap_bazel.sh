#!/usr/bin/env bash
# Sets up Bazel >= 7 on a Debian 12 machine that reaches only Debian's archive (no Bazel registry):
# Debian sid's bazel-bootstrap + its JDK are unpacked into a private prefix and their ELF files are
# pointed at the prefix's own loader, so the host libc/gcc/python stay untouched and what Bazel builds
# links against the host glibc. Idempotent; prints the Bazel version it took.
#   PREFIX (default ~/.cache/operator_runtime/bazel7)  MIRROR (default http://deb.debian.org/debian)
set -euo pipefail
PREFIX=${PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/operator_runtime/bazel7}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MIN_VERSION=7.7
S=$PREFIX/root
if [ -e "$PREFIX/.done" ]; then echo "$PREFIX/bazel"; exit 0; fi

log() { echo "bootstrap_bazel: $*" >&2; }
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v patchelf >/dev/null || need+=(patchelf)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]} from Debian"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi

# 1. Unpack bazel-bootstrap (any revision >= 7.7 that sid offers; sid keeps only its newest) + deps.
#    No chroot, no maintainer scripts. Check-Valid-Until=false: snapshot mirrors carry expired Release files.
rm -rf "$PREFIX"; mkdir -p "$PREFIX"
log "unpacking Debian sid's bazel-bootstrap into $PREFIX (about 630 MB download)"
if ! mmdebstrap --variant=extract --aptopt='Acquire::Check-Valid-Until "false"' ${MMDEBSTRAP_OPTS:-} \
     --include="bazel-bootstrap" sid "$S" "$MIRROR" >"$PREFIX/mmdebstrap.log" 2>&1; then
  tail -n 20 "$PREFIX/mmdebstrap.log" >&2
  log "FAILED: sid's bazel-bootstrap could not be unpacked (sid may be briefly uninstallable); log: $PREFIX/mmdebstrap.log"
  exit 1
fi
B=$S/usr/share/bazel
VERSION=$(cat "$B/build-label.txt" 2>/dev/null || echo 0)
if [ "$(printf '%s\n%s\n' "$MIN_VERSION" "$VERSION" | sort -V | head -n1)" != "$MIN_VERSION" ]; then
  log "FAILED: sid offers Bazel $VERSION, need >= $MIN_VERSION"; exit 1
fi
JDK=$(readlink -f "$S/usr/lib/jvm/default-java")
rm -rf "$S"/usr/share/{doc,man,locale,info} "$S"/usr/libexec/gcc "$S"/usr/lib/gcc "$JDK/jmods"

# 2. Relocate: absolute symlinks into the tree; bazel + JDK ELF files use the tree's ld.so and libs through
#    PT_INTERP + DT_RPATH. Never LD_LIBRARY_PATH: it would leak into the host gcc/python Bazel starts.
LIBDIR=$S/usr/lib/x86_64-linux-gnu; LD=$LIBDIR/ld-linux-x86-64.so.2
find "$S" -type l -lname '/*' -print0 | while IFS= read -r -d '' l; do ln -sfn "$S$(readlink "$l")" "$l"; done
for f in "$S/usr/bin/bazel" "$S"/usr/libexec/x86_64-linux-gnu/bazel/* "$S"/usr/lib/x86_64-linux-gnu/bazel/*.so \
         $(find "$JDK" -type f); do
  [ -f "$f" ] && [ ! -L "$f" ] && [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  old=$(patchelf --print-rpath "$f" 2>/dev/null || true)
  if patchelf --print-interpreter "$f" >/dev/null 2>&1; then set -- --set-interpreter "$LD"; else set --; fi
  patchelf "$@" --force-rpath --set-rpath "${old:+$old:}$LIBDIR" "$f"
done

# 3. Server classpath: Debian lists absolute /usr/share/java jars whose manifests add more absolute
#    Class-Path entries; prefix them all and close the list transitively.
/usr/bin/python3 - "$S" <<'PY'
import os, sys, zipfile
S = sys.argv[1]; f = S + "/usr/share/bazel/bazel_classpath_debian_depends.txt"
def manifest_classpath(jar):
    try: mf = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except Exception: return []
    for line in mf.replace("\r\n", "\n").replace("\n ", "").split("\n"):
        if line.startswith("Class-Path:"):
            return [S + e if e.startswith("/") else os.path.join(os.path.dirname(jar), e) for e in line[11:].split()]
    return []
todo, seen, out = [S + l.strip() for l in open(f) if l.strip()], set(), []
while todo:
    jar = todo.pop(0)
    if jar not in seen and os.path.exists(jar): out.append(jar); todo += manifest_classpath(jar)
    seen.add(jar)
open(f, "w").write("\n".join(out) + "\n")
PY

# 4. Empty stand-ins for modules @bazel_tools depends on that Debian does not ship.
M=$PREFIX/mocks
for m in apple_support protobuf buildozer zlib; do
  mkdir -p "$M/$m"; echo "module(name = \"$m\")" > "$M/$m/MODULE.bazel"; : > "$M/$m/BUILD.bazel"
done
echo 'cc_library(name = "zlib", linkopts = ["-lz"], visibility = ["//visibility:public"])' > "$M/zlib/BUILD.bazel"

# 5. The offline rc file (module overrides to Debian's packaged modules) and a wrapper. This rc lives
#    only here, never in the committed .bazelrc: a user's bazelisk resolves MODULE.bazel from the registry.
{ echo "startup --install_base=$B --trust_install_base --server_javabase=$JDK"
  echo "startup --host_jvm_args=--sun-misc-unsafe-memory-access=allow --host_jvm_args=--enable-native-access=ALL-UNNAMED"
  for m in platforms:tools/platforms bazel_skylib:tools/skylib bazel_features:tools/features rules_cc:rules/cc \
           rules_java:rules/java rules_python:rules/python rules_proto:rules/proto rules_license:rules/license; do
    echo "common --override_module=${m%%:*}=$B/${m#*:}"; done
  for m in apple_support protobuf buildozer zlib; do echo "common --override_module=$m=$M/$m"; done
} > "$PREFIX/bazelrc"
printf '#!/bin/sh\nexec "%s" --bazelrc="%s" "$@"\n' "$S/usr/bin/bazel" "$PREFIX/bazelrc" > "$PREFIX/bazel"
chmod +x "$PREFIX/bazel"
echo "$VERSION" > "$PREFIX/version"; touch "$PREFIX/.done"
log "OK: Bazel $VERSION, $(du -sh "$PREFIX" | cut -f1) in $PREFIX"
echo "$PREFIX/bazel"
