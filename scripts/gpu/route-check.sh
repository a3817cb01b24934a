#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One call on the GPU host for a change that must leave every frame's kernel and launch as an earlier tree has them:
# the convolve and histeq GPU suites of this tree, then bench-convolve and bench-histeq of both trees, each built here
# with nvcc alone from its own sources (scripts/gpu/build-bench.sh, build-bench-histeq.sh; NPP where present), run
# alternately old, new, old, new. Printed last: the suites' totals, the rows whose route (bench-convolve's notes) or
# exactness (bench-histeq) differ between the trees, and scripts/gpu/compare-rows.py's speed ratios (new against old).
#   here:     scripts/gpu/route-check.sh pack OLD      (OLD: a commit; BUILD=build-gpu, meson, -Dcuda-arch=9.0)
#             writes gpu-carry/route-payload.tar.xz (the two GPU suites, stripped) and gpu-carry/before-src.tar.xz
#             (`git archive OLD`)
#   GPU host: scripts/gpu/route-check.sh               (carry ["gpu-carry"]; STEPS="tests sanitize bench", ROUNDS=1,
#             CONVOLVE_ARGS, HISTEQ_ARGS; a call of one step each keeps within a command's 10 minutes)
set -uo pipefail
cd "$(dirname "$0")/../.."

if [[ ${1:-} == pack ]]; then
    set -e
    old=${2:?usage: scripts/gpu/route-check.sh pack OLD-COMMIT}
    build=${BUILD:-build-gpu}
    stage=$(mktemp -d)
    cp "$build"/tests/convolve/convolve-gpu-tests "$build"/tests/histeq/histeq-gpu-tests "$stage"/
    strip "$stage"/*
    mkdir -p gpu-carry
    tar -C "$stage" -cJf gpu-carry/route-payload.tar.xz convolve-gpu-tests histeq-gpu-tests
    git archive "$old" | xz -T2 >gpu-carry/before-src.tar.xz
    rm -rf "$stage"
    ls -l gpu-carry/route-payload.tar.xz gpu-carry/before-src.tar.xz
    exit 0
fi

out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rounds=${ROUNDS:-1}
steps=${STEPS:-tests bench}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
summary=()
{ date -u; nvidia-smi -L; nvcc --version | tail -1; } >"$out/device.txt" 2>&1
cat "$out/device.txt"

rm -rf before build-route && mkdir -p before build-route
tar -C before -xJf gpu-carry/before-src.tar.xz
tar -C build-route -xJf gpu-carry/route-payload.tar.xz

# Both trees' kernel benchmarks, built side by side while the suites run.
pids=()
step bench && for tree in before .; do
    (cd "$tree" && scripts/gpu/build-bench.sh build-bench) >"$out/build-convolve-$([ "$tree" = . ] && echo new || echo old).log" 2>&1 &
    pids+=($!)
    (cd "$tree" && scripts/gpu/build-bench-histeq.sh build-bench-histeq) >"$out/build-histeq-$([ "$tree" = . ] && echo new || echo old).log" 2>&1 &
    pids+=($!)
done

gtest_line() { echo "rc=$1 $(grep -E '^\[  PASSED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  FAILED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  SKIPPED \] [0-9]+' "$2" | tail -1)"; }
step tests && for suite in convolve histeq; do
    start=$SECONDS
    timeout 540 "build-route/$suite-gpu-tests" --gtest_brief=1 >"$out/$suite-gpu-tests.log" 2>&1
    summary+=("$suite-gpu-tests: $(gtest_line $? "$out/$suite-gpu-tests.log") ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]' "$out/$suite-gpu-tests.log" | head -20
done

# compute-sanitizer over representative subsets of both suites (odd sizes, every layout, retunes, the streaming kernels).
sanitizer_line() { echo "rc=$1 $(grep -E 'ERROR SUMMARY' "$2" | tail -1) $(grep -E '^\[  PASSED  \] [0-9]+' "$2" | tail -1)"; }
step sanitize && for tool in ${SANITIZERS:-memcheck racecheck}; do
    cs="compute-sanitizer --error-exitcode 9 --tool $tool"
    timeout 200 $cs build-route/histeq-gpu-tests --gtest_brief=1 \
        --gtest_filter='HisteqGpu.InPlace*:HisteqGpu.Smoothed*:HisteqGpu.Statistics*:HisteqGpuRetune.*:HisteqGpu.TenBit*:HisteqGpu.LumaPairs*:HisteqGpuGlobalGray8.*:HisteqGpuClahePlanes.*:HisteqGpuGlobalLuma.*:HisteqGpuClaheLuma.*' \
        >"$out/san-histeq-$tool.log" 2>&1
    summary+=("$tool histeq: $(sanitizer_line $? "$out/san-histeq-$tool.log")")
    timeout 200 $cs build-route/convolve-gpu-tests --gtest_brief=1 \
        --gtest_filter='*385x289*:CudaConvolver.*:CudaConvolverRetune.*:*SeparableStream*:*SeparableBytes*:*InterleavedKernel.*/k3_c4_129x17*:*InterleavedKernel.*/k9_c3_7x3*:InterleavedKernel.Saturates*:*InterleavedKernel*k5_c2_129x17*:Cases/CudaCopyMask.*:Cases/CudaSampleBits.*:EdgeFirstGrid.*:SeparableRegisters.*:DirectRegisters.*' \
        >"$out/san-convolve-$tool.log" 2>&1
    summary+=("$tool convolve: $(sanitizer_line $? "$out/san-convolve-$tool.log")")
done

built=0
if step bench; then
    built=1
    for p in "${pids[@]}"; do wait "$p" || built=0; done
    ((built)) || summary+=("a benchmark did not build (see $out/build-*.log)")
fi
if ((built)); then
    for r in $(seq 1 "$rounds"); do
        for tree in before .; do
            tag=$([ "$tree" = . ] && echo new || echo old)
            (cd "$tree" && timeout 400 build-bench/bench-convolve ${CONVOLVE_ARGS:---ks 3,5,7,9,15,31 --no-fft --runs 15 --frames 4}) \
                >"$out/convolve-$tag-$r.log" 2>&1
            summary+=("bench-convolve $tag round $r: rc=$?")
            (cd "$tree" && timeout 300 build-bench-histeq/bench-histeq ${HISTEQ_ARGS:---runs 15}) >"$out/histeq-$tag-$r.log" 2>&1
            summary+=("bench-histeq $tag round $r: rc=$?")
        done
    done
fi

echo
echo "==== summary ===="
printf '%s\n' "${summary[@]}"
if ((built)); then
    python3 scripts/gpu/compare-rows.py "$out" --same --all | tee "$out/compare.txt"
fi
