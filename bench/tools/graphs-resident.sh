#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Resident frames with CUDA graphs off and on (CUDAFILTERS_CUDA_GRAPHS=0 / unset), interleaved rounds: gst-launch-1.0
# of `cudaupload ! imagefreeze num-buffers=N ! ELEMENT ! video/x-raw(memory:CUDAMemory) ! fakesink`, wall and CPU
# seconds from bash's `time`, the start-up (the same pipeline with one frame) subtracted. Prints a Markdown table.
#   bench/tools/graphs-resident.sh [rounds] [frames]      (GST_PLUGIN_PATH and the runtime from the caller: run it
#                                                          under .gpu-bundle/run with the plugin on the path)
# Elements and sizes: the `cases` array below, "WxH FORMAT | element and properties"; `identity` is the baseline (the
# pipeline without a filter; the graphs setting does not touch it).
set -uo pipefail
rounds=${1:-2}
frames=${2:-100000}
cases=(
    "1920x1080 NV12 | identity"
    "1920x1080 NV12 | cudahisteq mode=clahe"
    "1920x1080 NV12 | cudahisteq mode=global"
    "1920x1080 NV12 | cudaconvolve preset=gaussian size=3"
)
TIMEFORMAT='%R %U %S'
launch() {  # size format element frames graphs: prints "wall user sys"
    local size=$1 format=$2 element=$3 n=$4 graphs=$5
    local env=()
    [ "$graphs" = off ] && env=(CUDAFILTERS_CUDA_GRAPHS=0)
    { time env "${env[@]}" gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=snow ! \
        "video/x-raw,format=$format,width=${size%x*},height=${size#*x},framerate=30/1" ! cudaupload ! \
        'video/x-raw(memory:CUDAMemory)' ! imagefreeze num-buffers="$n" ! $element ! \
        'video/x-raw(memory:CUDAMemory)' ! fakesink sync=false >/dev/null 2>&1; } 2>&1 | tail -1
}
gst-inspect-1.0 cudahisteq >/dev/null 2>&1  # the registry is built once, outside every timed run
echo "| case | graphs | wall s per round | host CPU µs per frame (start-up subtracted), per round | fps (frames / (wall − start-up)), per round |"
echo "|---|---|---|---|---|"
for c in "${cases[@]}"; do
    read -r size format <<<"${c%%|*}"
    element=${c#*| }
    read -r wall0 user0 sys0 <<<"$(launch "$size" "$format" "$element" 1 on)"
    declare -A walls=() cpus=() fpss=()
    for r in $(seq "$rounds"); do
        for graphs in off on; do
            read -r wall user sys <<<"$(launch "$size" "$format" "$element" "$frames" $graphs)"
            walls[$graphs]+="${walls[$graphs]:+ / }$wall"
            cpus[$graphs]+="${cpus[$graphs]:+ / }$(awk -v u="$user" -v s="$sys" -v u0="$user0" -v s0="$sys0" -v n="$frames" \
                'BEGIN { printf "%.1f", (u + s - u0 - s0) * 1e6 / n }')"
            fpss[$graphs]+="${fpss[$graphs]:+ / }$(awk -v w="$wall" -v w0="$wall0" -v n="$frames" 'BEGIN { printf "%.0f", n / (w - w0) }')"
        done
    done
    for graphs in off on; do
        echo "| $size $format \`$element\` (start-up ${wall0} s) | $graphs | ${walls[$graphs]} | ${cpus[$graphs]} | ${fpss[$graphs]} |"
    done
    unset walls cpus fpss
done
