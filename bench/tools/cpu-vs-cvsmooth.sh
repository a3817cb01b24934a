#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudaconvolve backend=cpu against gst-plugins-bad's cvsmooth (OpenCV) through gst-launch-1.0, on the same frames:
# one random 1080p GRAY8 frame repeated by imagefreeze into fakesink, beside identity. Runs the pipelines in turn,
# ROUNDS times, and prints the best frames per second of each (wall clock of the whole process) and its CPU time.
# Needs gstreamer1.0-opencv (cvsmooth) and the plugin on GST_PLUGIN_PATH (default build/plugin).
#
#   bench/tools/cpu-vs-cvsmooth.sh [frames] [rounds]
set -uo pipefail
frames=${1:-600}
rounds=${2:-5}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(cd "$(dirname "$0")/../.." && pwd)/build/plugin}
gst-inspect-1.0 cvsmooth >/dev/null 2>&1 || { echo "cvsmooth not found: install gstreamer1.0-opencv" >&2; exit 1; }
gst-inspect-1.0 cudaconvolve >/dev/null 2>&1 || { echo "cudaconvolve not found on GST_PLUGIN_PATH=$GST_PLUGIN_PATH" >&2; exit 1; }
src="videotestsrc num-buffers=1 pattern=snow ! video/x-raw,format=GRAY8,width=1920,height=1080 ! imagefreeze num-buffers=$frames"
declare -A pipelines=(
  [identity]="identity"
  ["cudaconvolve gaussian 5"]="cudaconvolve backend=cpu preset=gaussian size=5"
  ["cvsmooth gaussian 5"]="cvsmooth type=gaussian kernel-width=5 kernel-height=5"
  ["cudaconvolve box 5"]="cudaconvolve backend=cpu preset=box size=5"
  ["cvsmooth box 5"]="cvsmooth type=blur kernel-width=5 kernel-height=5"
)
order=(identity "cudaconvolve gaussian 5" "cvsmooth gaussian 5" "cudaconvolve box 5" "cvsmooth box 5")
declare -A best cpu
for ((r = 0; r < rounds; ++r)); do
  for name in "${order[@]}"; do
    out=$( { /usr/bin/time -f "%e %U %S" gst-launch-1.0 -q $src ! ${pipelines[$name]} ! fakesink >/dev/null; } 2>&1 | tail -1)
    read -r wall user sys <<<"$out"
    fps=$(python3 -c "print(f'{$frames / $wall:.0f}')")
    if [ -z "${best[$name]:-}" ] || [ "$fps" -gt "${best[$name]}" ]; then
      best[$name]=$fps
      cpu[$name]=$(python3 -c "print(f'{$user + $sys:.2f}')")
    fi
  done
done
echo "1080p GRAY8, $frames frames, imagefreeze ! X ! fakesink, best of $rounds rounds, $(nproc) cores"
echo "| X | fps | CPU s |"
echo "|---|---|---|"
for name in "${order[@]}"; do echo "| $name | ${best[$name]} | ${cpu[$name]} |"; done
