#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU host pass for the whole project, in one call: element suite on CUDA, the engine GPU suites, compute-sanitizer
# (memcheck, racecheck, initcheck, synccheck) on representative subsets, the element and histeq benchmarks (NPP
# built here with nvcc), the pipeline benchmark (real pipelines through gst_parse_launch, nvcodec's elements and the
# H.264 decode case) and the demo on CUDA. Logs into $OUT; a short table last. Needs gpu-carry/payload.tar.xz and
# .gpu-bundle (scripts/gpu/pack.sh). Steps can be chosen: all.sh element histeq convolve sanitize bench formats fft pipeline
# graphs soak demo; `kernels` is bench without the element benchmark (BENCH_CONVOLVE_ARGS: e.g. "--ks 3,5 --no-fft").
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
rm -rf build-payload && mkdir -p build-payload && tar -C build-payload -xJf gpu-carry/payload.tar.xz
steps=${*:-"element histeq convolve sanitize bench pipeline soak demo"}
run=.gpu-bundle/run
# The element tests load the plugin built with the test seam; everything else the product (no seam).
run_test="$run env GST_PLUGIN_PATH=$PWD/build-payload/plugin-test-seam GST_REGISTRY=/tmp/cudafilters-registry-test.bin"
run_prod="$run env GST_PLUGIN_PATH=$PWD/build-payload/plugin GST_REGISTRY=/tmp/cudafilters-registry.bin"
summary=()
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
gtest_line() {  # rc and gtest totals of a log
    echo "rc=$1 $(grep -E '^\[  PASSED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  FAILED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  SKIPPED \] [0-9]+' "$2" | tail -1)"
}
sanitizer_line() { echo "rc=$1 $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$2" | tail -1) $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]' "$2" | tail -2 | paste -sd' ')"; }

{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1; } >"$out/device.txt" 2>&1
cat "$out/device.txt"

if step formats; then
    scripts/gpu/build-bench-formats.sh build-bench-formats >"$out/bench-formats-build.log" 2>&1 &
    formats_build=$!
fi
if step bench || step kernels || step fft; then
    scripts/gpu/build-bench-histeq.sh build-bench-histeq >"$out/bench-histeq-build.log" 2>&1 &
    bench_build=$!
    scripts/gpu/build-bench.sh build-bench >"$out/bench-convolve-build.log" 2>&1 &
    conv_build=$!
fi
if step element; then
    start=$SECONDS
    CUDAFILTERS_TEST_BACKEND=cuda timeout 240 $run_test build-payload/tests/element-tests --gtest_brief=1 >"$out/element-cuda.log" 2>&1
    summary+=("element-tests backend=cuda: $(gtest_line $? "$out/element-cuda.log") ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]' "$out/element-cuda.log" | head -20
fi
if step histeq; then
    start=$SECONDS
    timeout 200 build-payload/tests/histeq-gpu-tests --gtest_brief=1 >"$out/histeq-gpu.log" 2>&1
    summary+=("histeq-gpu-tests: $(gtest_line $? "$out/histeq-gpu.log") ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]' "$out/histeq-gpu.log" | head -20
fi
if step convolve; then
    start=$SECONDS
    timeout 200 build-payload/tests/convolve-gpu-tests --gtest_brief=1 >"$out/convolve-gpu.log" 2>&1
    summary+=("convolve-gpu-tests: $(gtest_line $? "$out/convolve-gpu.log") ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]' "$out/convolve-gpu.log" | head -20
fi
if step sanitize; then
    cs="compute-sanitizer --error-exitcode 9"
    el_filter='CudaMemory.*:CudaMemoryFault.*:HostRegistration.*:Depths/*:Allocation.*:Backend.*:HistEq.*:LiveChangeFault.*:SerializedEvents.KeepTheirPlace*:Drain.*:HistEqLive.*:ConvolveLive.*:Formats/*RGBA_385x289*:Formats/*I420_385x289*:Formats/*GRAY16_LE_385x289*:Formats/*YUY2_386x289*:Formats/*P010_10LE_385x289*:Packed422.*'
    CUDAFILTERS_TEST_BACKEND=cuda timeout 150 $run_test $cs --tool memcheck build-payload/tests/element-tests --gtest_brief=1 \
        --gtest_filter="$el_filter" >"$out/san-element-memcheck.log" 2>&1
    summary+=("memcheck element: $(sanitizer_line $? "$out/san-element-memcheck.log")")
    CUDAFILTERS_TEST_BACKEND=cuda timeout 200 $run_test $cs --tool memcheck build-payload/tests/element-tests --gtest_brief=1 \
        --gtest_filter='*Strides*:Sizes.*' >"$out/san-element-strides-memcheck.log" 2>&1
    summary+=("memcheck element strides/8K: $(sanitizer_line $? "$out/san-element-strides-memcheck.log")")
    for tool in memcheck racecheck initcheck synccheck; do
        timeout 240 $cs --tool $tool build-payload/tests/histeq-gpu-tests --gtest_brief=1 \
            --gtest_filter='HisteqGpu.InPlace*:HisteqGpu.Smoothed*:HisteqGpu.Statistics*:HisteqGpuRetune.*:HisteqGpu.TenBit*:HisteqGpu.LumaPairs*:HisteqGpuGlobalGray8.*' >"$out/san-histeq-$tool.log" 2>&1
        summary+=("$tool histeq: $(sanitizer_line $? "$out/san-histeq-$tool.log")")
    done
    for tool in memcheck racecheck initcheck synccheck; do
        timeout 150 $cs --tool $tool build-payload/tests/convolve-gpu-tests --gtest_brief=1 \
            --gtest_filter='*385x289*:CudaConvolver.*:CudaConvolverRetune.*:*SeparableStream*:*InterleavedKernel.*/k3_c4_129x17*:*InterleavedKernel.*/k9_c3_7x3*:InterleavedKernel.Saturates*:InterleavedKernel.SeparablePlans*:*InterleavedKernel*k5_c2_129x17*:*InterleavedKernel*_c2_*_keep*:*InterleavedKernel*k5_c4*_keep*:Cases/CudaCopyMask.*:Cases/CudaSampleBits.*' \
            >"$out/san-convolve-$tool.log" 2>&1
        summary+=("$tool convolve: $(sanitizer_line $? "$out/san-convolve-$tool.log")")
    done
fi
if step bench; then
    timeout 150 $run_prod build-payload/bench/bench-element --seconds 2 --cpu-seconds 3 >"$out/bench-element.md" 2>&1
    summary+=("bench-element: rc=$?")
fi
if step bench || step kernels; then
    wait $bench_build
    timeout 60 build-bench-histeq/bench-histeq >"$out/bench-histeq.md" 2>&1
    summary+=("bench-histeq: rc=$?")
    wait $conv_build
    timeout 300 build-bench/bench-convolve --runs ${BENCH_RUNS:-30} --frames 4 ${BENCH_CONVOLVE_ARGS:-} >"$out/bench-convolve.md" 2>&1
    summary+=("bench-convolve: rc=$?")
fi
if step formats; then
    wait $formats_build
    timeout 200 build-bench-formats/bench-formats --runs ${BENCH_RUNS:-30} >"$out/bench-formats.md" 2>&1
    summary+=("bench-formats: rc=$?")
fi
if step fft; then
    step bench || step kernels || wait $conv_build
    timeout 240 build-bench/bench-convolve --fft --runs 15 --frames 2 >"$out/bench-convolve-fft.md" 2>&1
    summary+=("bench-convolve --fft: rc=$?")
    # A 63 x 63 Gaussian (separable, no compiled passes) through the element: the generic kernel (algorithm=direct)
    # against what auto picks (the FFT), 1080p GRAY8 frames already in the element's pool (imagefreeze).
    for algorithm in direct auto; do
        start=$(date +%s%N)
        timeout 120 $run_prod gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=snow ! \
            video/x-raw,format=GRAY8,width=1920,height=1080,framerate=30/1 ! imagefreeze num-buffers=300 ! \
            cudaconvolve preset=gaussian size=63 algorithm=$algorithm ! fakesink sync=false >/dev/null 2>&1
        rc=$?
        summary+=("gaussian 63x63 1080p GRAY8 algorithm=$algorithm: rc=$rc, 300 frames in $((($(date +%s%N) - start) / 1000000)) ms")
    done
fi
if step pipeline; then
    start=$SECONDS
    timeout 240 $run_prod build-payload/bench/bench-pipeline --seconds ${PIPELINE_SECONDS:-2} --clip gpu-carry/clip-1080p.h264 \
        >"$out/bench-pipeline.md" 2>"$out/bench-pipeline.err"
    summary+=("bench-pipeline: rc=$? ($((SECONDS - start)) s)")
    # What the decoder negotiates (a not-linked stop after nvh264dec shows here): caps and errors only.
    GST_DEBUG=nvh264dec:4,nvdecoder:4,cudacontext:4,cudafilter:4,GST_CAPS:3 timeout 30 $run_prod gst-launch-1.0 -v \
        filesrc location=gpu-carry/clip-1080p.h264 ! video/x-h264,stream-format=byte-stream ! h264parse ! nvh264dec ! cudaconvolve preset=gaussian size=5 ! \
        cudadownload ! fakesink >"$out/decode-debug.log" 2>&1
    summary+=("decode gst-launch: rc=$? $(grep -cE 'ERROR|not-linked' "$out/decode-debug.log") error lines")
    # MP4 through qtdemux (no filter): the decode path without our element.
    GST_DEBUG=nvh264dec:4,qtdemux:3,h264parse:3 timeout 30 $run_prod gst-launch-1.0 \
        filesrc location=gpu-carry/clip-1080p.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudadownload ! fakesink \
        >"$out/decode-mp4.log" 2>&1
    summary+=("decode mp4 (qtdemux ! h264parse ! nvh264dec ! cudadownload): rc=$? $(grep -E 'ERROR|not-linked|Execution ended' "$out/decode-mp4.log" | head -3 | paste -sd' ' | cut -c1-300)")
    # What happens per frame in CUDA memory (function-level counts of the debug log over 60 frames).
    GST_DEBUG_NO_COLOR=1 GST_DEBUG=cudafilter:6,cudaallocator:6,cudabufferpool:6,cudapoolallocator:6,bufferpool:5,GST_PERFORMANCE:5 \
        timeout 60 $run_prod gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=RGBA,width=3840,height=2160 ! \
        cudaconvolve preset=gaussian size=5 ! 'video/x-raw(memory:CUDAMemory)' ! cudaconvolve preset=sharpen ! \
        'video/x-raw(memory:CUDAMemory)' ! fakesink 2>&1 | awk '{print $5, $6}' | sed -E 's/<[^>]*>//' | sort | uniq -c | \
        sort -rn | head -40 >"$out/cuda-memory-debug.log"
    # Where videotestsrc's frames lie when it writes into the proposed pool (staged = copied on the streaming thread).
    GST_DEBUG=cudafilter:6 timeout 30 $run_prod gst-launch-1.0 videotestsrc num-buffers=200 ! \
        video/x-raw,format=RGBA,width=3840,height=2160 ! cudaconvolve preset=gaussian size=5 ! fakesink 2>&1 | \
        grep -E 'proposing|pool|staged|registered' | sort | uniq -c | sort -rn | head -20 >"$out/videotestsrc-staging.log"
fi
if step graphs; then
    # Resident frames with CUDA graphs off and on, interleaved (not in the default steps: about a minute).
    timeout 200 $run_prod bench/tools/graphs-resident.sh ${GRAPH_ROUNDS:-3} >"$out/graphs-resident.md" 2>&1
    summary+=("graphs-resident: rc=$?")
fi
if step soak; then
    # 4K GRAY8 through cudaconvolve ! cudahisteq on CUDA, RSS / device / pinned memory sampled every 10 %.
    timeout ${SOAK_SECONDS:-200} $run_prod build-payload/tests/soak --frames=${SOAK_FRAMES:-300000} --width=3840 --height=2160 \
        --backend=cuda >"$out/soak.log" 2>&1
    summary+=("soak 4K cuda: rc=$? $(grep -E 'frames in|passed|FAILED' "$out/soak.log" | head -3 | paste -sd' ')")
fi
if step demo; then
    timeout 60 $run_prod build-payload/examples/cudafilters-demo --backend cuda --frames 300 --size 1280x720 \
        --output "$out/demo" >"$out/demo.log" 2>&1
    summary+=("demo (cuda): rc=$? $(grep -E 'fps' "$out/demo.log")")
    (cd "$out/demo" && tar -cf ../demo.tar snapshot-0[0-4].png 2>/dev/null) && rm -rf "$out/demo"
fi
# What failed, first in the fetched files (a gtest log under --gtest_brief=1 holds only the failures).
for log in "$out"/*.log; do
    grep -qE '^\[  FAILED  \]' "$log" || continue
    echo "== $(basename "$log")"
    grep -E -B14 '^\[  FAILED  \] .*\([0-9]+ ms\)' "$log" | cut -c1-400 | head -120
done >"$out/00-failures.txt"
echo
echo "=== bench-element"; tail -25 "$out/bench-element.md" 2>/dev/null
echo "=== bench-histeq"; tail -12 "$out/bench-histeq.md" 2>/dev/null
echo "=== bench-convolve"; grep -E '^\|' "$out/bench-convolve.md" 2>/dev/null | head -60
echo "=== bench-formats"; grep -E '^\||FAILED' "$out/bench-formats.md" 2>/dev/null | head -40
echo "=== bench-pipeline"; grep -E '^\|' "$out/bench-pipeline.md" 2>/dev/null | cut -c1-260 | head -70
echo "=== cuda-memory-debug"; head -30 "$out/cuda-memory-debug.log" 2>/dev/null
echo "=== graphs-resident"; cat "$out/graphs-resident.md" 2>/dev/null
echo "=== soak"; tail -25 "$out/soak.log" 2>/dev/null
echo "=== summary"
printf '%s\n' "${summary[@]}"
