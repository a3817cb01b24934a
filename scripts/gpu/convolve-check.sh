#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One pass on the GPU host for the CUDA convolution backend: GPU tests, compute-sanitizer memcheck and racecheck
# on a representative subset, the NPP benchmark (built here with nvcc). Logs go to $OUT (or ./out); a short
# summary is printed last. Run from the repository root with build-cuda/tests/convolve/convolve-gpu-tests built for sm_90
# (TESTS=path/to/convolve-gpu-tests for another build directory).
#   scripts/gpu/convolve-check.sh [--no-tests] [--no-sanitizers] [--no-bench] [bench args...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
run_tests=1 run_sanitizers=1 run_bench=1
bench_args=()
for a in "$@"; do
    case $a in
    --no-tests) run_tests=0 ;;
    --no-sanitizers) run_sanitizers=0 ;;
    --no-bench) run_bench=0 ;;
    *) bench_args+=("$a") ;;
    esac
done
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
tests=${TESTS:-build-cuda/tests/convolve/convolve-gpu-tests}
summary=()

nvidia-smi -L | tee "$out/device.txt"
nvcc --version | tail -1 >>"$out/device.txt"

# Build the benchmark in the background while the tests run.
if ((run_bench)); then
    scripts/gpu/build-bench.sh build-bench >"$out/bench-build.log" 2>&1 &
    build_pid=$!
fi

if ((run_tests)); then
    start=$SECONDS
    "$tests" --gtest_brief=1 >"$out/gpu-tests.log" 2>&1
    rc=$?
    summary+=("convolve-gpu-tests: rc=$rc, $(grep -E '^\[  PASSED  \]' "$out/gpu-tests.log" | head -1) $(grep -E '^\[  FAILED  \] [0-9]+' "$out/gpu-tests.log" | head -1) $(grep -E '^\[  SKIPPED \] [0-9]+' "$out/gpu-tests.log" | head -1) ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]|Failure|max \|diff\|' "$out/gpu-tests.log" | head -40
fi

if ((run_sanitizers)); then
    filter='Sweep/CudaVsReference.Matches/7x3_k31_reflect_int:*385x289_k31_constant_real:*385x289_k3_wrap_int'
    filter+=':*385x289_k4_wrap_real:*separable_gaussian31:*separable_gaussian5_u16:*bank2_k31_combine3'
    filter+=':*bank_sobel3_combine0:*bank3_rgba_mask7_combine0:*multichannel_rgba_to_2_u16:*channels4_mask7_direct'
    filter+=':*channels3_mask5_separable:*u16_k15_reflect101:*1x1_k15_wrap_int:*separable_given_7x7:CudaConvolver.*'
    filter+=':*DirectKernel.*/k5_7x3_constant:*DirectKernel.*/k9_385x289_reflect:*DirectKernel.*/k3_bank2_u16_wrap_odd'
    filter+=':*DirectKernel.*/k7_64x40_wrap:*SeparableKernel.*/k31_rgba_wrap:*SeparableKernel.*/k31_u16_constant_odd'
    filter+=':*SeparableKernel.*/k9_200x150_reflect_odd:*SeparableKernel.*/k5_1x1_wrap:*385x289_k5_reflect_real'
    filter+=':SeparableStream.*'
    filter+=':*InterleavedKernel.*/k3_c4_129x17*:*InterleavedKernel.*/k9_c3_7x3*:*InterleavedKernel.*/k5_c4_385x289*'
    filter+=':InterleavedKernel.*'
    for tool in memcheck racecheck; do
        start=$SECONDS
        compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests" --gtest_brief=1 --gtest_filter="$filter" \
            >"$out/sanitizer-$tool.log" 2>&1
        rc=$?
        summary+=("compute-sanitizer $tool: rc=$rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1) $(grep -E '^\[  PASSED  \]' "$out/sanitizer-$tool.log" | head -1) ($((SECONDS - start)) s)")
    done
fi

if ((run_bench)); then
    if wait "$build_pid"; then
        build-bench/bench-convolve "${bench_args[@]}" >"$out/bench.log" 2>&1
        summary+=("bench-convolve: rc=$?")
    else
        summary+=("bench build FAILED (see bench-build.log)")
        tail -20 "$out/bench-build.log"
    fi
fi

echo
echo "==== summary ===="
printf '%s\n' "${summary[@]}"
if ((run_bench)) && [[ -f $out/bench.log ]]; then
    echo
    grep -vE '^\s*$' "$out/bench.log"
fi
