#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test command: installs what is missing, builds (CUDA too when nvcc is present), runs every suite and
# ends with one line "N passed, N failed, N skipped". GPU tests are skipped, not passed, without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/install-deps.sh || exit 1
build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" $(cuda_arch_option) -Dtest-seams=enabled ${MESON_ARGS:-} >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
fi
grep -E 'CUDA backend|OpenCV CPU|GStreamer plugin|tests  ' "$build/meson-logs/meson-log.txt" | tail -4 || true
ninja -C "$build" || exit 1
rm -rf "$build/tests/results"
meson test -C "$build" --print-errorlogs --num-processes "${TEST_JOBS:-2}" --timeout-multiplier "${TIMEOUT_MULTIPLIER:-1}"
python3 scripts/test-summary.py "$build"
