#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# valgrind memcheck over the element suite's edge cases on the CPU backend: every format at 7x3 and 1x1 (CLAHE of
# one-pixel tiles there), a CLAHE grid clamped to a 3x1 frame, odd offsets and strides, buffers and metas that do not
# fit the caps, caps too large to lay out, packed 4:2:2 widths, and the property refusals. Any memcheck error or
# definite leak fails the run; no suppression is needed (none of GLib, GStreamer or OpenCV reports here).
# Frames come from the tests (every byte written): `videotestsrc pattern=smpte` at 3x1 leaves pixels of its line
# buffer unpainted, which memcheck then reports wherever a filter indexes a table with them (equalizeHist alike).
# VALGRIND_BUILD_DIR picks the build (default build-cpu, made with -Dcuda=disabled when missing).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${VALGRIND_BUILD_DIR:-build-cpu}
if ! command -v valgrind >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends valgrind >/dev/null || exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dcuda=disabled >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
fi
ninja -C "$build" tests/element/element-tests >/dev/null || exit 1
plugin="$PWD/$build/plugin/test-seam"
[ -d "$plugin" ] || plugin="$PWD/$build/plugin"
export GST_PLUGIN_PATH="$plugin" GST_REGISTRY="$PWD/$build/registry-valgrind.bin" GST_PLUGIN_SYSTEM_PATH_1_0=
export CUDAFILTERS_TEST_BACKEND=cpu GTEST_COLOR=no
mkdir -p "$build/tests/results"
export GTEST_OUTPUT="xml:$PWD/$build/tests/results/valgrind-element.xml"
filter=${VALGRIND_FILTER:-'Formats/*Pixels*/*_7x3_*:Formats/*Pixels*/*_8x3_*:Formats/*Pixels*/*_1x1_*:Formats/*Pixels*/*_2x1_*:TenBitPixels.*:Formats/Strides.*:Elements/InputLayout.*:TilesClamp.*:Packed422.*:RefusedWhilePlaying.*:Elements/ReadyOnly.*'}
log="$build/valgrind.log"
valgrind --tool=memcheck --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --num-callers=30 \
  "$build/tests/element/element-tests" --gtest_filter="$filter" >"$log" 2>&1
rc=$?
grep -E '^\[  (PASSED|FAILED) |^\[==========\]' "$log"
summary=$(grep 'ERROR SUMMARY' "$log" | tail -1)
echo "valgrind: ${summary#*== }, exit $rc (log: $log)"
[ "$rc" -eq 0 ] || { grep -B2 -A30 -E 'Invalid|uninitialised|definitely lost|Conditional jump' "$log" | head -120; exit 1; }
