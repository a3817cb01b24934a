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
KEEP_PLUGINS="coreelements app videotestsrc videoconvertscale videorate typefindfunctions png jpeg multifile matroska \
isomp4 rawparse videofilter compositor autodetect pbtypes avi playback" ../shared/gpu-host/bundle.sh
stage=$(mktemp -d)
mkdir -p "$stage"/{plugin,tests,bench,examples}
cp "$build"/plugin/libgstcudafilters.so "$stage"/plugin/
mkdir -p "$stage"/plugin-test-seam && cp "$build"/plugin/test-seam/libgstcudafilters.so "$stage"/plugin-test-seam/
cp "$build"/tests/element/element-tests "$build"/tests/convolve/convolve-gpu-tests "$build"/tests/histeq/histeq-gpu-tests "$stage"/tests/
cp "$build"/bench/element/bench-element "$stage"/bench/
cp "$build"/tests/soak/soak "$stage"/tests/
cp "$build"/examples/cudafilters-demo "$stage"/examples/
strip "$stage"/*/*
mkdir -p gpu-carry
tar -C "$stage" -cJf gpu-carry/payload.tar.xz .
rm -rf "$stage"
du -sh gpu-carry/payload.tar.xz .gpu-bundle
