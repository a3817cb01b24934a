#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for FUZZ_SECONDS (default 60): the kernel-text
# parser, preset/size/sigma combinations, and random property values on both elements between random buffers/caps.
# Crashes land in tests/fuzz/findings/; each one becomes a regression test.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dcuda=disabled -Dplugin=enabled -Dexamples=disabled -Dfuzzing=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null || exit 1
fi
ninja -C "$build" tests/fuzz/fuzz-kernel-text tests/fuzz/fuzz-preset tests/fuzz/fuzz-element plugin/libgstcudafilters.so \
  >/dev/null || exit 1
# fuzz-element loads the (instrumented) plugin in its own process.
build_path=$(cd "$build" && pwd)
export GST_PLUGIN_PATH="$build_path/plugin" GST_REGISTRY="$build_path/registry-fuzz.bin" GST_REGISTRY_FORK=no
mkdir -p tests/fuzz/findings
results="$build/tests/results"
rm -rf "$results" && mkdir -p "$results"
status=0
for target in kernel_text preset element; do
  exe="$build/tests/fuzz/fuzz-${target//_/-}"
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/$target/* "$corpus"/ 2>/dev/null
  dict=""
  [ -f tests/fuzz/$target.dict ] && dict="-dict=tests/fuzz/$target.dict"
  # GStreamer keeps process-wide caches (types, registry, buffer pools) that a per-input leak check would flag;
  # leaks of the element are checked by the LeakSanitizer run of the element suite (scripts/sanitize.sh).
  leaks=1
  [ "$target" = element ] && leaks=0
  ASAN_OPTIONS=detect_leaks=$leaks UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$exe" $dict -max_total_time="$seconds" -max_len=4096 \
    -artifact_prefix=tests/fuzz/findings/$target- -print_final_stats=1 "$corpus" 2>"$build/fuzz-$target.log"
  rc=$?
  runs=$(grep -E 'stat::number_of_executed_units' "$build/fuzz-$target.log" | awk '{print $2}')
  echo "fuzz: $target ${runs:-?} executions in ${seconds}s, exit $rc"
  # One test case per target for scripts/test-summary.py: passed when the run ended without a finding.
  if [ $rc -eq 0 ] && [ -n "$runs" ]; then
    echo "<testsuites><testsuite name=\"fuzz\"><testcase name=\"$target ($runs executions)\"/></testsuite></testsuites>" \
      >"$results/fuzz-$target.xml"
  else
    status=1
    tail -30 "$build/fuzz-$target.log"
    echo "<testsuites><testsuite name=\"fuzz\"><testcase name=\"$target\"><failure message=\"exit $rc, see $build/fuzz-$target.log and tests/fuzz/findings\"/></testcase></testsuite></testsuites>" \
      >"$results/fuzz-$target.xml"
  fi
  rm -rf "$corpus"
done
exit $status
