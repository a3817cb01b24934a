#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Packs a build made in the Debian 13 root (GStreamer 1.26, scripts/debian13.sh) for the GPU host, whose C library
# is older than Debian 13's: the build's plugin, element tests and pipeline benchmark, GStreamer's tools and the
# plugins the GPU steps use, with every library they load, Debian 13's C library and its loader, into
# gpu-carry/debian13.tar.xz. There, `debian13/run [VAR=value ...] program args` starts a program through that loader
# (GStreamer scans plugins in-process: its scanner would start under the host's loader).
# WITH_NVRTC=1 adds the root's NVRTC (Debian's toolkit's, which a Debian 13 user's GStreamer compiles its CUDA kernels
# with) for cudaconvertscale; the host's may be too new for the architecture GStreamer asks it for.
#   DEBIAN13_ROOT=debian13-root BUILD=/src/gst-cuda-filters/build-gpu scripts/gpu/pack-debian13.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(realpath "${DEBIAN13_ROOT:-debian13-root}")
build=${BUILD:-/src/gst-cuda-filters/build-gpu}  # inside the root
multiarch=x86_64-linux-gnu
gst=/usr/lib/$multiarch/gstreamer-1.0
plugins="coreelements app videotestsrc videoconvertscale videorate typefindfunctions videoparsersbad nvcodec imagefreeze \
isomp4 rawparse videofilter multifile"
stage=$(mktemp -d)/debian13
mkdir -p "$stage"/{lib,plugins,bin,plugin,plugin-test-seam,tests,bench}
programs=("$build/tests/element/element-tests" "$build/bench/pipeline/bench-pipeline" /usr/bin/gst-launch-1.0
  /usr/bin/gst-inspect-1.0 "$build/plugin/libgstcudafilters.so" "$build/plugin/test-seam/libgstcudafilters.so")
for p in $plugins; do programs+=("$gst/libgst$p.so"); done
# Every library any of them loads, as the root's loader resolves it; the driver's own libraries come from the host.
chroot "$root" /bin/sh -c "for f in ${programs[*]}; do ldd \$f; done" | awk '/=> \// {print $3} /^\t\/lib64/ {print $1}' |
  sort -u | grep -vE 'libcuda\.so|libnvidia' >"$stage/libs.txt"
# Read inside the root: some names are links through /etc/alternatives, which must resolve there.
from_root() { chroot "$root" cat "$1" >"$2/$(basename "$1")"; }
while read -r lib; do from_root "$lib" "$stage/lib"; done <"$stage/libs.txt"
from_root /lib64/ld-linux-x86-64.so.2 "$stage/lib"
chmod +x "$stage/lib/ld-linux-x86-64.so.2"
for p in $plugins; do from_root "$gst/libgst$p.so" "$stage/plugins"; done
if [ "${WITH_NVRTC:-0}" = 1 ]; then
  for lib in libnvrtc.so.12 libnvrtc-builtins.so.12.4; do from_root /usr/lib/$multiarch/$lib "$stage/lib"; done
fi
for p in gst-launch-1.0 gst-inspect-1.0; do from_root /usr/bin/$p "$stage/bin"; done
chmod +x "$stage"/bin/*
cp "$root$build/plugin/libgstcudafilters.so" "$stage/plugin/"
cp "$root$build/plugin/test-seam/libgstcudafilters.so" "$stage/plugin-test-seam/"
cp "$root$build/tests/element/element-tests" "$stage/tests/"
cp "$root$build/bench/pipeline/bench-pipeline" "$stage/bench/"
strip "$stage"/plugin*/*.so "$stage"/tests/* "$stage"/bench/*
rm "$stage/libs.txt"
cat >"$stage/run" <<'EOF'
#!/bin/sh
# debian13/run [VAR=value ...] program args: the program through Debian 13's loader and libraries.
here=$(dirname "$(readlink -f "$0")")
export GST_PLUGIN_SYSTEM_PATH_1_0="$here/plugins" GST_REGISTRY_FORK=no
while [ $# -gt 0 ]; do case $1 in *=*) export "$1"; shift ;; *) break ;; esac; done
prog=$1; shift
[ -x "$prog" ] || prog="$here/bin/$prog"
# GStreamer's CUDA library loads NVRTC (cudaconvertscale's kernels): Debian's where packed, else the host's toolkit's.
[ -f "$here/lib/libnvrtc.so.12" ] && export GST_CUDA_NVRTC_LIBNAME="$here/lib/libnvrtc.so.12"
exec "$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib:${CUDA_HOME:-/usr/local/cuda}/lib64" "$prog" "$@"
EOF
chmod +x "$stage/run"
mkdir -p gpu-carry
tar -C "$(dirname "$stage")" -cJf gpu-carry/debian13.tar.xz debian13
rm -rf "$(dirname "$stage")"
du -sh gpu-carry/debian13.tar.xz
