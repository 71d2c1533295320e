#!/usr/bin/env bash
# The peers' site for the GPU machine (no network), /tmp/site, built over two device calls back to back. A call
# carries the checkout and its carried folders within 64 MiB, and QuACK's nvidia-cutlass-dsl-libs-cu13 wheel is
# 92 MB; its files xz-compressed (-9) take 64 MB, two parts of 32 MB.
#   tools/gpu_peers_site.sh pack WHEELS_DIR     # here: WHEELS_DIR holds every peer wheel (pip download, see
#                                               # bench/peers-method.md); checks the cu13 wheel's sha256, writes its
#                                               # files as xz parts into .q1 and .q2 (with the archive's sha256) and
#                                               # the other wheels into .whl2 (all three ignored by git)
#   tools/gpu_peers_site.sh stage .q1           # there, call 1 (carry .q1): the part copied into /tmp/q
#   tools/gpu_peers_site.sh install .q2 .whl2   # there, call 2 (carry .q2, .whl2): the archive put together (its
#                                               # sha256 checked), every wheel of .whl2 and the cu13 files in /tmp/site
# The machine keeps /tmp while it stays warm (about 30 s between calls). Then:
# PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages (--target skips the wheel's .pth). Exits 3 when
# the parts in /tmp/q do not make the archive (an earlier call ran on another machine).
set -u
CU13_WHEEL=nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
CU13_SHA256=50191a381d8cc1393373ae0bc879b0aefa9a256c23c22d4fa1c2fe3dfe57bc90
ARCHIVE=/tmp/q/cu13-files.tar.xz
case "${1:-}:${2:-}:${3:-}" in
  pack:?*:) ;;
  stage:?*:) ;;
  install:?*:?*) ;;
  *) echo "usage: $0 pack WHEELS_DIR | stage PARTS_DIR | install PARTS_DIR WHEELS_DIR"; exit 2 ;;
esac
step=$1 parts=$2
if [ "$step" = pack ]; then
  wheels=$parts
  echo "$CU13_SHA256  $wheels/$CU13_WHEEL" | sha256sum -c --quiet || { echo "no pinned $CU13_WHEEL in $wheels"; exit 3; }
  work=$(mktemp -d) && unzip -q "$wheels/$CU13_WHEEL" -d "$work/files" || exit 3
  tar cf - -C "$work/files" . | xz -T0 -9 > "$work/cu13-files.tar.xz" || exit 3
  rm -rf .q1 .q2 .whl2 && mkdir -p .q1 .q2 .whl2
  (cd "$work" && sha256sum cu13-files.tar.xz > cu13-files.sha256 && split -n 2 -d cu13-files.tar.xz cu13.part.)
  mv "$work"/cu13.part.00 "$work"/cu13-files.sha256 .q1/ && mv "$work"/cu13.part.01 .q2/ && rm -rf "$work"
  find "$wheels" -maxdepth 1 -name '*.whl' ! -name "$CU13_WHEEL" -exec cp {} .whl2/ \;
  du -sh .q1 .q2 .whl2
  exit 0
fi
mkdir -p /tmp/q && cp "$parts"/cu13* /tmp/q/ || exit 2
ls /tmp/q
[ "$step" = stage ] && exit 0
wheels=$3
cat /tmp/q/cu13.part.* > $ARCHIVE
(cd /tmp/q && sha256sum -c --quiet cu13-files.sha256) || { echo "the staged parts do not make the cu13 archive"; exit 3; }
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site "$wheels"/*.whl 2>&1 | tail -2
xz -dc $ARCHIVE | tar xf - -C /tmp/site || exit 3
echo "peers installed in /tmp/site"
