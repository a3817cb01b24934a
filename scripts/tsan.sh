#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ThreadSanitizer run of the CPU path: builds the plugin and element tests with clang -fsanitize=thread and runs the
# concurrency, fault-injection and pipeline tests. Any TSan report fails the run (halt_on_error). GLib's locks are
# made visible to TSan by tests/element/tsan_glib_locks.cpp; tests/tsan.supp only holds justified GLib/GStreamer
# internals. CUDAFILTERS_STRESS=<n> multiplies the concurrency iterations (default 1).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TSAN_BUILD_DIR:-build-tsan}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dcuda=disabled -Db_sanitize=thread -Db_lundef=false -Dexamples=disabled -Dtest-seams=enabled \
    >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
fi
ninja -C "$build" -j"${TSAN_JOBS:-2}" plugin/test-seam/libgstcudafilters.so tests/element/element-tests >/dev/null || exit 1
export GST_PLUGIN_PATH="$PWD/$build/plugin/test-seam" GST_REGISTRY="$PWD/$build/registry-tsan.bin" GST_PLUGIN_SYSTEM_PATH_1_0=
export GST_REGISTRY_FORK=no  # load the instrumented plugin in the instrumented process, not gst-plugin-scanner
# GLib 2.74's slice allocator recycles GObject memory without free(): TSan would take the locks of a new pad for
# those of a freed one at the same address and report lock-order inversions between unrelated objects.
export G_SLICE=always-malloc
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 report_signal_unsafe=0 suppressions=$PWD/tests/tsan.supp ${TSAN_OPTIONS:-}"
mkdir -p "$build/tests/results"
export GTEST_OUTPUT="xml:$PWD/$build/tests/results/tsan-element.xml" GTEST_COLOR=no
filter=${TSAN_FILTER:-'Elements/Concurrency.*:Calls/AutoFallback.*:Calls/FatalFault.*:*Negotiation*:FaultSeam.*:Depths/Depth.*:Backend.*:HistEq.*:Passthrough.*'}
"$build/tests/element/element-tests" --gtest_filter="$filter" 2>"$build/tsan.log" | grep -E '^\[  (PASSED|FAILED) |^\[ concurrency|^\[==========\]'
rc=${PIPESTATUS[0]}
reports=$(grep -c 'WARNING: ThreadSanitizer' "$build/tsan.log")
echo "tsan: $reports report(s), exit $rc (log: $build/tsan.log)"
[ "$reports" -eq 0 ] && [ "$rc" -eq 0 ] || { grep -A30 'WARNING: ThreadSanitizer' "$build/tsan.log" | head -120; exit 1; }
