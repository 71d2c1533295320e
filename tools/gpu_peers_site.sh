#!/usr/bin/env bash
# On the GPU machine (no network): the peers' site, /tmp/site, built over several device calls back to back. The
# device tool carries at most 64 MiB a call and QuACK's nvidia-cutlass-dsl-libs-cu13 wheel is 92 MB, so this
# checkout keeps it as parts (cu13.part.NN, split in order) in folders ignored by git (.q1, .q2, .q3, named in
# .git/info/exclude and passed to the device tool's `carry`), and the other peer wheels in .whl2. The machine keeps
# /tmp while it stays warm (about 30 s between calls).
#   tools/gpu_peers_site.sh stage .q1            # a call's parts copied into /tmp/q
#   tools/gpu_peers_site.sh install .q3 .whl2    # the last parts, then every wheel of .whl2 and the cu13 wheel put
#                                                # together from /tmp/q (its sha256 checked) installed into /tmp/site
# Then: PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages. Exits 3 when the parts in /tmp/q do not
# make the wheel (an earlier call ran on another machine).
set -u
CU13_WHEEL=/tmp/nvidia_cutlass_dsl_libs_cu13-4.8.1-cp312-cp312-manylinux_2_28_x86_64.whl
CU13_SHA256=50191a381d8cc1393373ae0bc879b0aefa9a256c23c22d4fa1c2fe3dfe57bc90
case "${1:-}:${2:-}:${3:-}" in
  stage:?*:) ;;
  install:?*:?*) ;;
  *) echo "usage: $0 stage PARTS_DIR | install PARTS_DIR WHEELS_DIR"; exit 2 ;;
esac
step=$1 parts=$2
mkdir -p /tmp/q && cp "$parts"/cu13.part.* /tmp/q/ || exit 2
ls /tmp/q
[ "$step" = stage ] && exit 0
wheels=$3
cat /tmp/q/cu13.part.* > $CU13_WHEEL
echo "$CU13_SHA256  $CU13_WHEEL" | sha256sum -c --quiet || { echo "the staged parts do not make the cu13 wheel"; exit 3; }
rm -rf /tmp/site && python3 -m pip install -q --no-index --no-deps --target /tmp/site "$wheels"/*.whl $CU13_WHEEL 2>&1 | tail -2
echo "peers installed in /tmp/site"
