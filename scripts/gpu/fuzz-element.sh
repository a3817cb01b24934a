#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two halves of guided fuzzing of the element target with the CUDA backend, on the GPU host.
#   Here:  scripts/gpu/fuzz-element.sh pack [corpus-dir]
#          builds build-fuzz-gpu (clang ASan + UBSan + libFuzzer, nvcc with clang++ as host compiler, the engine and
#          plugin instrumented for coverage) and packs the target, the plugin and a corpus into gpu-carry/fuzz.tar.xz.
#   There: scripts/gpu/fuzz-element.sh run SECONDS [WORKERS]
#          runs WORKERS (default: one per core) libFuzzer processes sharing one corpus with FUZZ_ELEMENT_BACKEND=auto
#          (CUDA there), then leaves in $OUT the device and a traced input (device.txt), each worker's totals
#          (workers.txt), the sum and any findings (total.txt), the worker logs (logs.tar.xz), the findings
#          (findings.tar.xz) and the corpus (corpus.tar.xz, to seed the next call: `pack` it again from its unpacked
#          folder) — seven files at most, under the device tool's limit of eight.
# Carry [".gpu-bundle", "gpu-carry"].
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:?pack or run}

if [ "$mode" = pack ]; then
    corpus=${2:-tests/fuzz/corpus/element}
    build=build-fuzz-gpu
    if [ ! -f "$build/build.ninja" ]; then
        CC=clang CXX=clang++ NVCC_CCBIN=clang++ meson setup "$build" -Dcuda=enabled -Dcuda-arch=9.0 -Dopencv=disabled \
            -Dplugin=enabled -Dexamples=disabled -Dtests=enabled -Dfuzzing=true -Db_sanitize=address,undefined \
            -Db_lundef=false -Dbuildtype=debugoptimized -Dcuda_args=-ccbin=clang++ -Dcuda_link_args=-ccbin=clang++ \
            >/dev/null || exit 1
    fi
    ninja -C "$build" plugin/libgstcudafilters.so tests/fuzz/fuzz-element >/dev/null || exit 1
    stage=$(mktemp -d)
    mkdir -p "$stage"/plugin "$stage"/corpus
    cp "$build"/plugin/libgstcudafilters.so "$stage"/plugin/
    cp "$build"/tests/fuzz/fuzz-element "$stage"/
    strip --strip-debug "$stage"/fuzz-element "$stage"/plugin/*.so  # function names stay for the reports
    cp "$corpus"/* "$stage"/corpus/
    mkdir -p gpu-carry
    tar -C "$stage" -cJf gpu-carry/fuzz.tar.xz .
    rm -rf "$stage"
    du -sh gpu-carry/fuzz.tar.xz
    exit 0
fi

seconds=${2:?seconds}
workers=${3:-$(nproc)}
out=${OUT:-out}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xJf gpu-carry/fuzz.tar.xz
mkdir -p "$work/findings" "$work/logs"
logs=$work/logs
nvidia-smi -L >"$out/device.txt" 2>&1
# CUDA maps memory where ASan keeps its shadow gap: protect_shadow_gap=0. Leaks are the element suite's LeakSanitizer
# run's business (GStreamer's process-wide caches would be flagged per input).
export ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export FUZZ_ELEMENT_BACKEND=auto GST_REGISTRY_FORK=no
# One input first, traced: proves the CUDA backend is the one in use.
FUZZ_ELEMENT_TRACE=1 GST_REGISTRY=/tmp/fuzz-reg-0.bin .gpu-bundle/run env GST_PLUGIN_PATH="$work/plugin" \
    "$work/fuzz-element" -runs=1 "$work"/corpus/seed0 2>&1 | grep -E 'element|caps|active-backend|ERROR' | head -12 \
    >"$logs/trace.txt"
cat "$logs/trace.txt" | tee -a "$out/device.txt"
pids=()
for w in $(seq 1 "$workers"); do
    GST_REGISTRY=/tmp/fuzz-reg-$w.bin .gpu-bundle/run env GST_PLUGIN_PATH="$work/plugin" \
        "$work/fuzz-element" -max_total_time="$seconds" -max_len=4096 -reload=30 -print_final_stats=1 \
        -artifact_prefix="$work/findings/w$w-" "$work/corpus" 2>&1 | grep -v WARNING >"$logs/worker-$w.log" &
    pids+=($!)
done
wait "${pids[@]}"
for w in $(seq 1 "$workers"); do
    n=$(grep -E 'stat::number_of_executed_units' "$logs/worker-$w.log" | awk '{print $2}')
    echo "worker $w: ${n:-?} executions, $(grep -aE '^#[0-9]+' "$logs/worker-$w.log" | tail -1 | cut -c1-110)"
done | tee "$out/workers.txt"
total=$(awk '{s += $3} END {print s}' "$out/workers.txt")
echo "total executions: $total in $seconds s on $workers workers" | tee "$out/total.txt"
echo "findings: $(ls "$work/findings" | wc -l) $(ls "$work/findings" | head -20 | paste -sd' ')" | tee -a "$out/total.txt"
tar -C "$work" -cJf "$out/logs.tar.xz" logs
[ -n "$(ls "$work/findings")" ] && tar -C "$work" -cJf "$out/findings.tar.xz" findings
tar -C "$work" -cJf "$out/corpus.tar.xz" corpus
rm -rf "$work"
