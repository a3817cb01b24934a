#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CPU path built with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included) running the unit,
# histogram and element suites. Any report fails the run (UBSan halts, ASan/LSan exit non-zero).
# Reports land in build-asan/tests/results/ for scripts/test-summary.py.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${ASAN_BUILD_DIR:-build-asan}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dcuda=disabled -Dexamples=disabled -Dtest-seams=enabled -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized >/dev/null || exit 1
fi
ninja -C "$build" tests/convolve/convolve-tests tests/histeq/histeq-tests tests/element/element-tests plugin/test-seam/libgstcudafilters.so \
  >"$build.ninja.log" 2>&1 || { tail -30 "$build.ninja.log"; exit 1; }
results="$PWD/$build/tests/results"
rm -rf "$results" && mkdir -p "$results"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Only the plugin under test, as meson's test environment has it: a registry of every system plugin makes GLib create
# more than 2048 quarks, and GLib then leaks its first quark block on purpose (16 KB, reported by LeakSanitizer).
export GST_PLUGIN_PATH="$PWD/$build/plugin/test-seam" GST_REGISTRY="$PWD/$build/registry.bin" GST_PLUGIN_SYSTEM_PATH_1_0=
# The plugin is ASan-instrumented: load it in the test process, not in the (uninstrumented) plugin scanner.
export GST_REGISTRY_FORK=no
# Building the registry the first time leaves one GLib allocation that is never freed (16 KB, inside GStreamer's
# registry scan); do that once without leak checking, so the checked runs below see only our code.
ASAN_OPTIONS=detect_leaks=0 "$build/tests/element/element-tests" --gtest_filter='Passthrough.*' >/dev/null 2>&1
status=0
for exe in convolve/convolve-tests histeq/histeq-tests element/element-tests; do
  name=$(basename "$exe")
  GTEST_OUTPUT="xml:$results/asan-$name.xml" "$build/tests/$exe" --gtest_brief=1 >"$build/$name.log" 2>&1
  rc=$?
  echo "sanitize: $name rc=$rc $(grep -E '^\[  PASSED  \]' "$build/$name.log")"
  if [ $rc -ne 0 ]; then
    status=1
    grep -E -A20 'ERROR: (Address|Leak)Sanitizer|runtime error' "$build/$name.log" | head -40
    # A sanitizer report after the last test leaves a clean XML: record it as a failed case.
    grep -q '<failure' "$results/asan-$name.xml" 2>/dev/null || cat >"$results/asan-$name-exit.xml" <<XML
<testsuites><testsuite name="sanitizer"><testcase name="$name exit status $rc"><failure message="sanitizer report or crash, see $build/$name.log"/></testcase></testsuite></testsuites>
XML
  fi
done
exit $status
