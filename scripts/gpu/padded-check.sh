#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU host pass for kernel sizes without compiled kernels (cuda/src/convolve/cuda/padded_plan.hpp), in one call:
# the padded-plan tests, the rest of the convolve GPU suite and the element suite on CUDA, memcheck and racecheck on
# the padded paths, bench-convolve --padded (padded against unpadded and NPP, same run) and bench-pipeline rows through
# gst_parse_launch (videotestsrc into cudaconvolve at a padded size, a compiled size and an identity baseline).
# Logs into $OUT. Needs gpu-carry/payload.tar.xz and .gpu-bundle (scripts/gpu/pack.sh). Steps can be chosen:
# padded-check.sh [tests] [sanitize] [bench] [pipeline] (default: all four).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
rm -rf build-payload && mkdir -p build-payload && tar -C build-payload -xJf gpu-carry/payload.tar.xz
run=.gpu-bundle/run
steps=${*:-"tests sanitize bench pipeline"}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/device.txt" 2>&1
cat "$out/device.txt"
if step bench; then
    scripts/gpu/build-bench.sh build-bench >"$out/bench-build.log" 2>&1 &
    bench_build=$!
fi
tests=build-payload/tests/convolve-gpu-tests
line() { echo "rc=$1 $(grep -E '^\[  (PASSED|FAILED|SKIPPED) \] [0-9]+' "$2" | paste -sd' ')"; }
if step tests; then
    start=$SECONDS
    timeout 150 $tests --gtest_filter='PaddedPlan.*:PaddedSizes.*' >"$out/padded-tests.log" 2>&1
    echo "padded tests: $(line $? "$out/padded-tests.log") ($((SECONDS - start)) s)"
    grep -E '^\[  FAILED  \]|Failure|differ' "$out/padded-tests.log" | head -20
    start=$SECONDS
    timeout ${SUITE_LIMIT:-240} $tests --gtest_brief=1 --gtest_filter='-PaddedPlan.*:PaddedSizes.*' >"$out/convolve-gpu.log" 2>&1
    echo "convolve suite: $(line $? "$out/convolve-gpu.log") ($((SECONDS - start)) s)"
    grep -E '^\[  FAILED  \]' "$out/convolve-gpu.log" | head -20
    start=$SECONDS
    CUDAFILTERS_TEST_BACKEND=cuda timeout 120 $run env GST_PLUGIN_PATH=$PWD/build-payload/plugin-test-seam \
        GST_REGISTRY=/tmp/cudafilters-registry-test.bin build-payload/tests/element-tests --gtest_brief=1 >"$out/element-cuda.log" 2>&1
    echo "element suite (cuda): $(line $? "$out/element-cuda.log") ($((SECONDS - start)) s)"
    grep -E '^\[  FAILED  \]' "$out/element-cuda.log" | head -20
fi
if step sanitize; then
    for tool in memcheck racecheck; do
        start=$SECONDS
        timeout 120 compute-sanitizer --error-exitcode 9 --tool $tool $tests \
            --gtest_filter="${SANITIZE_FILTER:-Sweep/CudaVsReference.Matches/*combine3*:PaddedSizes.RetuneKeepsThePadding}" >"$out/$tool.log" 2>&1
        echo "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | tail -1) ($((SECONDS - start)) s)"
    done
fi
if step bench; then
    wait $bench_build
    start=$SECONDS
    for round in $(seq 1 ${BENCH_ROUNDS:-1}); do
        timeout ${BENCH_LIMIT:-150} build-bench/bench-convolve --padded --runs 20 --frames 4 >"$out/bench-padded-$round.md" 2>&1
        echo "bench-convolve --padded, round $round: rc=$? ($((SECONDS - start)) s)"
        grep -E '^\|' "$out/bench-padded-$round.md"
    done
fi
if step pipeline; then
    start=$SECONDS
    # (a) frames from videotestsrc in system memory (1080p GRAY8); (r) one 4K GRAY8 frame resident in CUDA memory, pushed
    # again and again by imagefreeze (uploaded by our identity preset: nvcodec's cudaupload takes no GRAY8), output in CUDA
    # memory. algorithm=fft at 13 is what auto chose for a 13 x 13 Gaussian before padding (the generic crossover, K = 6).
    src='videotestsrc pattern=snow ! video/x-raw,format=GRAY8,width=1920,height=1080'
    cuda='video/x-raw(memory:CUDAMemory)'
    res="videotestsrc num-buffers=1 pattern=snow ! video/x-raw,format=GRAY8,width=3840,height=2160 ! cudaconvolve preset=identity ! $cuda ! imagefreeze"
    sink='fakesink name=sink sync=false'
    # output=channels: Sobel x, Sobel y, Laplacian (and a box) to the colour components.
    edges3='-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1 | 0 1 0; 1 -4 1; 0 1 0'
    edges4="$edges3 | 1 1 1; 1 1 1; 1 1 1"
    timeout 240 $run env GST_PLUGIN_PATH=$PWD/build-payload/plugin GST_REGISTRY=/tmp/cudafilters-registry.bin \
        build-payload/bench/bench-pipeline --seconds ${PIPELINE_SECONDS:-2} --repeat 3 \
        --pipeline "$src ! identity ! $sink" \
        --pipeline "$src ! cudaconvolve preset=gaussian size=13 ! $sink" \
        --pipeline "$src ! cudaconvolve preset=gaussian size=13 algorithm=fft ! $sink" \
        --pipeline "$src ! cudaconvolve preset=gaussian size=15 ! $sink" \
        --pipeline "$res ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=gaussian size=13 ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=gaussian size=13 algorithm=fft ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=gaussian size=15 ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=gaussian size=21 ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=gaussian size=21 algorithm=fft ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve preset=box size=4 ! $cuda ! $sink" \
        --pipeline "$res ! cudaconvolve output=channels bias=128 kernel=\"$edges3\" ! $cuda,format=RGB ! $sink" \
        --pipeline "$res ! cudaconvolve output=channels bias=128 kernel=\"$edges4\" ! $cuda,format=RGBA ! $sink" \
        >"$out/bench-pipeline.md" 2>"$out/bench-pipeline.err"
    echo "bench-pipeline: rc=$? ($((SECONDS - start)) s)"
    grep -E '^\|' "$out/bench-pipeline.md" | cut -c1-300
    tail -3 "$out/bench-pipeline.err"
fi
