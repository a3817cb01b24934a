#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A soak longer than one device call (10 min): `start SECONDS` unpacks the payload and runs the 4K GRAY8 soak on CUDA
# for SECONDS detached by setsid (it outlives the call while the machine stays warm); `wait` (the next call)
# waits for it and copies its log to $OUT. Needs gpu-carry/payload.tar.xz and .gpu-bundle (scripts/gpu/pack.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=/tmp/cudafilters-soak
case "${1:-}" in
start)
    rm -rf "$dir" && mkdir -p "$dir/payload" && tar -C "$dir/payload" -xJf gpu-carry/payload.tar.xz
    { date -u; nvidia-smi -L; } >"$dir/device.txt" 2>&1
    GST_PLUGIN_PATH=$dir/payload/plugin setsid bash -c "$PWD/.gpu-bundle/run $dir/payload/tests/soak --seconds=${2:-660} --width=3840 --height=2160 \
        --backend=cuda >$dir/soak.log 2>&1; echo \$? >$dir/rc" </dev/null >/dev/null 2>&1 &
    sleep 5
    echo "soak started for ${2:-660} s: $(pgrep -f 'tests/soak --seconds' | head -1)"
    ;;
wait)
    while [ ! -f "$dir/rc" ]; do sleep 2; done
    mkdir -p "${OUT:-out}"
    cp "$dir/device.txt" "${OUT:-out}/soak-device.txt"
    cp "$dir/soak.log" "${OUT:-out}/soak-long.log"
    tail -20 "$dir/soak.log"
    echo "soak rc=$(cat "$dir/rc")"
    ;;
*)
    echo "usage: $0 start [SECONDS] | wait" >&2
    exit 2
    ;;
esac
