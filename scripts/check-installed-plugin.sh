#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks a plugin as installed (by the Debian package or `meson install`) into PLUGIN_DIR, with no GST_PLUGIN_PATH:
# the plugin file is there, gst-inspect-1.0 finds cudaconvolve, a pipeline through both elements runs, and the
# file has no test seam. Writes one JUnit testcase per check into REPORT (counted by scripts/test-summary.py).
#   scripts/check-installed-plugin.sh NAME PLUGIN_DIR REPORT.xml
set -uo pipefail
name=$1 plugin_dir=$(realpath -m "$2") report=$3
echo "$name: checking $plugin_dir"
system_dir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/gstreamer-1.0
mkdir -p "$(dirname "$report")"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# GStreamer looks for plugins in GST_PLUGIN_PATH (unset here) and then in the system folders. Installed into the
# machine, the plugin lies in the system folder itself; installed into a scratch root (dpkg -x, meson install
# --destdir) it does not, so GST_PLUGIN_SYSTEM_PATH_1_0 names the scratch plugin folder and then the system one (for
# videotestsrc and fakesink). A registry of its own keeps the user's cache out of it.
run_gst() {
  env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH_1_0="$plugin_dir:$system_dir" \
    GST_REGISTRY="$scratch/registry.bin" "$@"
}

cases="" failures=0 count=0
check() {  # description, command...
  local description=$1; shift
  local start=$SECONDS
  count=$((count + 1))
  if "$@" >"$scratch/out" 2>&1; then
    echo "ok: $description"
    cases+="<testcase classname=\"$name\" name=\"$description\" time=\"$((SECONDS - start))\"/>"
  else
    failures=$((failures + 1))
    echo "FAILED: $description"; tail -20 "$scratch/out"
    local message; message=$(tail -5 "$scratch/out" | tr -d '<>&"' | tr '\n' ' ')
    cases+="<testcase classname=\"$name\" name=\"$description\"><failure message=\"$message\"/></testcase>"
  fi
}
plugin_file() { test -f "$plugin_dir/libgstcudafilters.so"; }
inspect() {  # and from the installed file
  run_gst gst-inspect-1.0 cudaconvolve >"$scratch/inspect" && cat "$scratch/inspect" &&
    grep -F "Filename" "$scratch/inspect" | grep -qF "$plugin_dir/libgstcudafilters.so"
}
pipeline() {
  run_gst gst-launch-1.0 -q videotestsrc num-buffers=10 ! cudahisteq ! cudaconvolve preset=sobel ! fakesink
}
no_test_seam() { ! grep -q -a -e TEST_INJECT -e CUDAFILTERS_TEST "$plugin_dir/libgstcudafilters.so"; }

check "plugin file libgstcudafilters.so installed" plugin_file
check "gst-inspect-1.0 cudaconvolve loads it" inspect
check "videotestsrc num-buffers=10 ! cudahisteq ! cudaconvolve preset=sobel ! fakesink" pipeline
check "no test seam (TEST_INJECT) in the plugin" no_test_seam
echo "<testsuites><testsuite name=\"$name\" tests=\"$count\" failures=\"$failures\">$cases</testsuite></testsuites>" >"$report"
echo "$name: $((count - failures)) of $count checks passed"
[ "$failures" -eq 0 ]
