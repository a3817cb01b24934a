#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Packs what the GPU host runs (plugin, GPU test suites, element benchmark, demo) from build-gpu/ into
# gpu-carry/payload.tar.xz (stripped, xz: the fat binaries shrink ~10x), and the GStreamer runtime into .gpu-bundle/.
#   meson setup build-gpu -Dcuda-arch=9.0 -Dopencv=disabled && ninja -C build-gpu && scripts/gpu/pack.sh
# Then run scripts/gpu/all.sh there with carry [".gpu-bundle", "gpu-carry"].
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-gpu}
mkdir -p .git/info && touch .git/info/exclude
# NVIDIA's GStreamer elements (nvcodec: nvh264dec, cudaupload, cudadownload) and GStreamer's CUDA library, which the
# plugin links for memory:CUDAMemory, with what they load (GL through glvnd, as Debian builds them).
EXTRA_DEBS="libgstreamer-plugins-bad1.0-0 gstreamer1.0-plugins-bad libgstreamer-gl1.0-0 libegl1 libgl1 libglx0 libglvnd0 \
libgbm1 libdrm2 libgudev-1.0-0 libudev1 libwayland-client0 libwayland-cursor0 libwayland-egl1 libwayland-server0 \
libx11-6 libx11-xcb1 libxau6 libxcb1 libxdmcp6 libbsd0 libmd0" \
KEEP_PLUGINS="coreelements app videotestsrc videoconvertscale videorate typefindfunctions png jpeg multifile matroska \
isomp4 rawparse videofilter compositor autodetect pbtypes avi playback imagefreeze nvcodec videoparsersbad" \
  ../shared/gpu-host/bundle.sh
stage=$(mktemp -d)
mkdir -p "$stage"/{plugin,tests,bench,examples}
cp "$build"/plugin/libgstcudafilters.so "$stage"/plugin/
mkdir -p "$stage"/plugin-test-seam && cp "$build"/plugin/test-seam/libgstcudafilters.so "$stage"/plugin-test-seam/
cp "$build"/tests/element/element-tests "$build"/tests/convolve/convolve-gpu-tests "$build"/tests/histeq/histeq-gpu-tests "$stage"/tests/
cp "$build"/bench/element/bench-element "$build"/bench/pipeline/bench-pipeline "$build"/bench/pipeline/bench-live-latency "$stage"/bench/
cp "$build"/tests/soak/soak "$stage"/tests/
cp "$build"/examples/cudafilters-demo "$stage"/examples/
strip "$stage"/*/*
# ONLY="plugin/... tests/element-tests ..." keeps those paths of the payload alone (a call that needs few of them
# leaves room in the carry for another bundle).
if [ -n "${ONLY:-}" ]; then
  (cd "$stage" && find . -type f | sed 's#^\./##' | while read -r f; do
    case " $ONLY " in *" $f "*) ;; *) rm -f "$f" ;; esac
  done)
fi
mkdir -p gpu-carry
# The H.264 clip of the decode case (bench-pipeline --clip): 1080p60, 600 frames, made here with x264enc
# (gstreamer1.0-plugins-ugly) since the GPU host has no encoder.
[ -f gpu-carry/clip-1080p.h264 ] || gst-launch-1.0 -q videotestsrc num-buffers=600 pattern=ball motion=sweep \
  background-color=0xff303060 ! video/x-raw,width=1920,height=1080,framerate=60/1,format=I420 ! \
  x264enc speed-preset=ultrafast bitrate=6000 key-int-max=60 ! \
  video/x-h264,stream-format=byte-stream,profile=constrained-baseline ! filesink location=gpu-carry/clip-1080p.h264
# The same content in MP4 (decoded through qtdemux by scripts/gpu/all.sh).
[ -f gpu-carry/clip-1080p.mp4 ] || gst-launch-1.0 -q videotestsrc num-buffers=600 pattern=ball motion=sweep \
  background-color=0xff303060 ! video/x-raw,width=1920,height=1080,framerate=60/1,format=I420 ! \
  x264enc speed-preset=ultrafast bitrate=6000 key-int-max=60 ! h264parse ! mp4mux ! filesink location=gpu-carry/clip-1080p.mp4
tar -C "$stage" -cJf gpu-carry/payload.tar.xz .
rm -rf "$stage"
du -sh gpu-carry/payload.tar.xz gpu-carry/clip-1080p.h264 .gpu-bundle
