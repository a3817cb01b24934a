#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The demo command: installs what is missing, builds, and runs the demo on its built-in scene. Writes
# demo-output/demo.avi (original | CLAHE | CLAHE + Sobel magnitude) and demo-output/snapshot-*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/install-deps.sh
build=${BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" $(cuda_arch_option) ${MESON_ARGS:-} >/dev/null
ninja -C "$build" >/dev/null
export GST_PLUGIN_PATH="$PWD/$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY="$PWD/$build/registry.bin"
"$build/examples/cudafilters-demo" --output "${DEMO_OUTPUT:-demo-output}" "$@"
