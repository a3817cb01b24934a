#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One pass on the GPU host for the CUDA equalizer: GPU tests, compute-sanitizer memcheck and racecheck on
# a representative subset, the NPP benchmark (built here with nvcc) and OpenCV CPU CLAHE through python3's cv2.
# Logs go to $OUT (or ./out); a short table is printed last. Run from the repository root with
# build-histeq-gpu/ built for sm_90 (meson setup build-histeq-gpu -Dcuda-arch=9.0 -Dplugin=disabled -Dopencv=disabled).
#   scripts/gpu/histeq-check.sh [--no-tests] [--no-sanitizers] [--no-bench]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
run_tests=1 run_sanitizers=1 run_bench=1
for a in "$@"; do
    case $a in
    --no-tests) run_tests=0 ;;
    --no-sanitizers) run_sanitizers=0 ;;
    --no-bench) run_bench=0 ;;
    esac
done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
build=${HISTEQ_BUILD:-build-histeq-gpu}
tests=$build/tests/histeq/histeq-gpu-tests
summary=()

{ nvidia-smi -L; nvcc --version | tail -1; nproc; } >"$out/device.txt" 2>&1

if ((run_bench)); then
    scripts/gpu/build-bench-histeq.sh build-bench-histeq >"$out/bench-build.log" 2>&1 &
    build_pid=$!
fi

if ((run_tests)); then
    start=$SECONDS
    "$tests" --gtest_brief=1 >"$out/gpu-tests.log" 2>&1
    rc=$?
    summary+=("histeq-gpu-tests: rc=$rc, $(grep -E '^\[  PASSED  \]' "$out/gpu-tests.log" | head -1) $(grep -E '^\[  FAILED  \] [0-9]+' "$out/gpu-tests.log" | head -1) $(grep -E '^\[  SKIPPED \] [0-9]+' "$out/gpu-tests.log" | head -1) ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]|Failure|differ' "$out/gpu-tests.log" | head -30
    # The CPU suite too (reference and own CPU backend; OpenCV comparisons run on the dev machine).
    "$build/tests/histeq/histeq-tests" --gtest_brief=1 >>"$out/gpu-tests.log" 2>&1
    summary+=("histeq-tests (cpu, no OpenCV): rc=$?")
fi

if ((run_sanitizers)); then
    filter='HisteqGpu.ClaheGridAsLargeAsTheFrame:HisteqGpu.Gray16MatchesReference:HisteqGpu.StatisticsMatchReference'
    filter+=':HisteqGpu.SmoothedSequencesMatchReferenceAcrossStreams:HisteqGpu.InPlace:HisteqGpu.RepeatedFramesGiveRepeatedResults'
    for tool in memcheck racecheck; do
        start=$SECONDS
        f=$filter
        [[ $tool == racecheck ]] && f='HisteqGpu.ClaheGridAsLargeAsTheFrame:HisteqGpu.InPlace:HisteqGpu.StatisticsMatchReference'
        timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests" --gtest_brief=1 --gtest_filter="$f" \
            >"$out/sanitizer-$tool.log" 2>&1
        rc=$?
        summary+=("compute-sanitizer $tool: rc=$rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1) $(grep -E '^\[  PASSED  \]' "$out/sanitizer-$tool.log" | head -1) ($((SECONDS - start)) s)")
    done
fi

if ((run_bench)); then
    if wait "$build_pid"; then
        build-bench-histeq/bench-histeq >"$out/bench.log" 2>&1
        summary+=("bench-histeq: rc=$?")
    else
        summary+=("bench-histeq: build failed (see bench-build.log)")
    fi
    python3 scripts/gpu/histeq-opencv-peer.py >"$out/opencv-peer.log" 2>&1
    summary+=("opencv peer: rc=$?")
fi

echo
printf '%s\n' "${summary[@]}"
[[ -f $out/bench.log ]] && grep -E '^device|^NPP|^\|' "$out/bench.log"
[[ -f $out/opencv-peer.log ]] && cat "$out/opencv-peer.log"
