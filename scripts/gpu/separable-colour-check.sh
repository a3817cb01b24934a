#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU host pass for the u8 streaming separable kernel's colour and K = 7 / 9 paths, in one call:
# its GPU tests, the four compute-sanitizer tools on the K = 9 routing test, bench-convolve (every row, NPP beside) and
# bench-pipeline rows through gst_parse_launch (Gaussian 7, 9 and 15 on RGBA and NV12 from videotestsrc, and on a 4K
# RGBA frame resident in CUDA memory, each beside an identity baseline). Logs into $OUT, packed into one tar (a call
# brings back 8 files at most). Needs gpu-carry/payload.tar.xz and .gpu-bundle (scripts/gpu/pack.sh). Steps can be
# chosen: separable-colour-check.sh [tests] [sanitize] [bench] [base] [pipeline] (default: all but base). base:
# bench-convolve also built from gpu-carry/base.tar.xz (`git archive BASE cuda bench scripts/gpu/build-bench.sh | xz`),
# the two run in alternating rounds (BENCH_ROUNDS, default 2).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${OUT:-out}")
r=$out/separable-colour
mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
rm -rf build-payload && mkdir -p build-payload && tar -C build-payload -xJf gpu-carry/payload.tar.xz
run=.gpu-bundle/run
steps=${*:-"tests sanitize bench pipeline"}
case " $steps " in *" base "*) steps="$steps bench" ;; esac
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$r/device.txt" 2>&1
cat "$r/device.txt"
if step bench; then
    scripts/gpu/build-bench.sh build-bench >"$r/bench-build.log" 2>&1 &
    bench_build=$!
fi
if step base; then
    rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xJf gpu-carry/base.tar.xz
    (cd /tmp/base && bash scripts/gpu/build-bench.sh build-bench >"$r/base-build.log" 2>&1) &
    base_build=$!
fi
tests=build-payload/tests/convolve-gpu-tests
line() { echo "rc=$1 $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+' "$2" | paste -sd' ')"; }
if step tests; then
    start=$SECONDS
    stdbuf -oL timeout ${TEST_LIMIT:-400} $tests --gtest_brief=1 \
        --gtest_filter="${TEST_FILTER:-SeparableBytes.*:SeparableVariants.*:SeparableRegisters.*:InterleavedKernel.SeparablePlans*}" \
        >"$r/tests.log" 2>&1
    echo "separable tests: $(line $? "$r/tests.log") ($((SECONDS - start)) s)"
    grep -E '^\[  FAILED  \]' "$r/tests.log" | head -20
fi
if step sanitize; then
    for tool in memcheck racecheck initcheck synccheck; do
        start=$SECONDS
        timeout 120 compute-sanitizer --error-exitcode 9 --tool $tool $tests \
            --gtest_filter="${SANITIZE_FILTER:-SeparableBytes.TakesSevenAndNineAheadOfTheOtherKernels}" >"$r/$tool.log" 2>&1
        echo "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$r/$tool.log" | tail -1) ($((SECONDS - start)) s)"
    done
fi
if step bench; then
    wait $bench_build
    step base && wait $base_build
    for round in $(seq 1 ${BENCH_ROUNDS:-2}); do
        for tree in $(step base && echo base) new; do
            bench=build-bench/bench-convolve
            [ $tree = base ] && bench=/tmp/base/build-bench/bench-convolve
            start=$SECONDS
            timeout ${BENCH_LIMIT:-100} $bench --runs 20 --frames 4 --no-fft ${BENCH_ARGS:-} \
                >"$r/bench-convolve-$tree-$round.md" 2>&1
            echo "bench-convolve $tree, round $round: rc=$? ($((SECONDS - start)) s)"
        done
    done
fi
if step pipeline; then
    start=$SECONDS
    sink='fakesink name=sink sync=false'
    cuda='video/x-raw(memory:CUDAMemory)'
    rgba='videotestsrc ! video/x-raw,format=RGBA,width=1920,height=1080'
    nv12='videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080'
    # One 4K RGBA frame resident in CUDA memory, pushed again and again by imagefreeze; output in CUDA memory.
    res="videotestsrc num-buffers=1 pattern=snow ! video/x-raw,format=RGBA,width=3840,height=2160 ! cudaconvolve preset=identity ! $cuda ! imagefreeze"
    args=(--pipeline "$rgba ! identity ! $sink")
    for k in 7 9 15; do args+=(--pipeline "$rgba ! cudaconvolve preset=gaussian size=$k ! $sink"); done
    args+=(--pipeline "$nv12 ! identity ! $sink")
    for k in 7 9 15; do args+=(--pipeline "$nv12 ! cudaconvolve preset=gaussian size=$k planes=all ! $sink"); done
    args+=(--pipeline "$res ! $cuda ! $sink")
    for k in 7 9 15; do args+=(--pipeline "$res ! cudaconvolve preset=gaussian size=$k ! $cuda ! $sink"); done
    timeout 240 $run env GST_PLUGIN_PATH=$PWD/build-payload/plugin GST_REGISTRY=/tmp/cudafilters-registry.bin \
        build-payload/bench/bench-pipeline --seconds ${PIPELINE_SECONDS:-2} --repeat ${PIPELINE_REPEAT:-2} "${args[@]}" \
        >"$r/bench-pipeline.md" 2>"$r/bench-pipeline.err"
    echo "bench-pipeline: rc=$? ($((SECONDS - start)) s)"
    grep -E '^\|' "$r/bench-pipeline.md" | sed -E 's/videotestsrc num-buffers=1 .* imagefreeze/(4K RGBA resident)/' | cut -c1-200
    tail -3 "$r/bench-pipeline.err"
fi
tar -C "$out" -cJf "$out/separable-colour.tar.xz" separable-colour && rm -rf "$r"
