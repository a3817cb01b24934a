#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU host pass for the platforms, in one call, logs into $OUT and a short table last:
# - the element suite on CUDA against GStreamer 1.22 (.gpu-bundle, build-gpu/ packed by scripts/gpu/pack.sh) and
#   against 1.26 (gpu-carry/debian13.tar.xz, a Debian 13 build packed by scripts/gpu/pack-debian13.sh), the latter
#   with the stream tests (CudaStreams.*);
# - the convolution GPU suite built as for GPUs before sm_80 (CUDAFILTERS_NO_CP_ASYNC: the staging path without
#   cp.async, gpu-carry/nocp.tar.xz) beside the normal one;
# - compute-sanitizer on the new paths;
# - on 1.26: nvh264dec ! cudaconvolve ! cudadownload and cudaupload ! cudaconvertscale ! cudahisteq ! cudaconvolve !
#   cudadownload against the same pipelines through system memory (output checksums);
# - bench-pipeline rows (BENCH_ONLY, default the decode and chain rows) on 1.22 and 1.26, alternately, and with the
#   plugin of gpu-carry/before26.tar.xz (an earlier build's libgstcudafilters.so for 1.26) as a third variant, so a
#   change to how frames move is measured against the tree before it in the same call (BENCH_VARIANTS="22 26 26b").
# Made here first:
#   meson setup build-gpu -Dcuda-arch=9.0 -Dopencv=disabled && ninja -C build-gpu && scripts/gpu/pack.sh
#   meson setup build-nocp -Dcuda-arch=9.0 -Dopencv=disabled -Dplugin=disabled -Dcuda_args=-DCUDAFILTERS_NO_CP_ASYNC &&
#     ninja -C build-nocp tests/convolve/convolve-gpu-tests &&
#     strip build-nocp/tests/convolve/convolve-gpu-tests && tar -C build-nocp/tests/convolve -cJf gpu-carry/nocp.tar.xz convolve-gpu-tests
#   in the Debian 13 root (scripts/debian13.sh, then gstreamer1.0-plugins-bad installed there for nvcodec): the same
#   build-gpu in /src/gst-cuda-filters, then scripts/gpu/pack-debian13.sh
# Carry [".gpu-bundle", "gpu-carry"]; steps can be chosen: platforms.sh element convolve sanitize pixels bench
set -uo pipefail
cd "$(dirname "$0")/../.."
# Every log goes into one archive beside the summary: the device returns only a few files.
final=${OUT:-out}
out=$final/logs
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
steps=${*:-"element convolve sanitize pixels bench"}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
summary=()
# What is carried decides what runs (the whole set is above the carry limit: two calls take it): a step whose files
# are absent is left out and said so.
rm -rf build-payload debian13 build-nocp && mkdir -p build-payload build-nocp
[ -f gpu-carry/payload.tar.xz ] && tar -C build-payload -xJf gpu-carry/payload.tar.xz
[ -f gpu-carry/debian13.tar.xz ] && tar -xJf gpu-carry/debian13.tar.xz
[ -f gpu-carry/nocp.tar.xz ] && tar -C build-nocp -xJf gpu-carry/nocp.tar.xz
[ -f gpu-carry/before26.tar.xz ] && mkdir -p debian13/plugin-before && tar -C debian13/plugin-before -xJf gpu-carry/before26.tar.xz
have() { [ -e "$1" ] || { summary+=("left out: $2 ($1 not carried)"); return 1; }; }
# GStreamer's CUDA kernels (cudaconvertscale) compile through NVRTC, which GStreamer opens as plain libnvrtc.so.
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* 2>/dev/null | head -1)
[ -n "$nvrtc" ] && export GST_CUDA_NVRTC_LIBNAME=$nvrtc
run22=".gpu-bundle/run env"
run26=debian13/run
el22="$run22 GST_PLUGIN_PATH=$PWD/build-payload/plugin-test-seam GST_REGISTRY=/tmp/reg22-seam.bin"
el26="$run26 GST_PLUGIN_PATH=$PWD/debian13/plugin-test-seam GST_REGISTRY=/tmp/reg26-seam.bin"
prod22="$run22 GST_PLUGIN_PATH=$PWD/build-payload/plugin GST_REGISTRY=/tmp/reg22.bin"
prod26="$run26 GST_PLUGIN_PATH=$PWD/debian13/plugin GST_REGISTRY=/tmp/reg26.bin"
prod26b="$run26 GST_PLUGIN_PATH=$PWD/debian13/plugin-before GST_REGISTRY=/tmp/reg26b.bin"
gtest_line() {
  echo "rc=$1 $(grep -E '^\[  PASSED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  FAILED  \] [0-9]+' "$2" | tail -1) $(grep -E '^\[  SKIPPED \] [0-9]+' "$2" | tail -1)"
}
sanitizer_line() { echo "rc=$1 $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$2" | tail -1) $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]' "$2" | tail -2 | paste -sd' ')"; }
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -1; } >"$out/device.txt" 2>&1
cat "$out/device.txt"
$prod26 gst-inspect-1.0 --version >"$out/gst26-version.txt" 2>&1
summary+=("GStreamer of the Debian 13 bundle: $(head -2 "$out/gst26-version.txt" | tail -1)")

if step element; then
  start=$SECONDS
  if have build-payload/tests/element-tests "element suite on 1.22"; then
    CUDAFILTERS_TEST_BACKEND=cuda timeout 240 $el22 build-payload/tests/element-tests --gtest_brief=1 >"$out/element-cuda-1.22.log" 2>&1
    summary+=("element-tests cuda, GStreamer 1.22: $(gtest_line $? "$out/element-cuda-1.22.log") ($((SECONDS - start)) s)")
    grep -E '^\[  FAILED  \]' "$out/element-cuda-1.22.log" | head -20
  fi
  start=$SECONDS
  if have debian13/tests/element-tests "element suite on 1.26"; then
  timeout 300 $el26 CUDAFILTERS_TEST_BACKEND=cuda debian13/tests/element-tests --gtest_brief=1 >"$out/element-cuda-1.26.log" 2>&1
  summary+=("element-tests cuda, GStreamer 1.26: $(gtest_line $? "$out/element-cuda-1.26.log") ($((SECONDS - start)) s)")
  grep -E '^\[  FAILED  \]' "$out/element-cuda-1.26.log" | head -20
  timeout 60 $el26 CUDAFILTERS_TEST_BACKEND=cuda debian13/tests/element-tests --gtest_filter='CudaStreams.*' >"$out/streams-1.26.log" 2>&1
  rc=$?
  grep -E 'Failure|Which is|frames' "$out/streams-1.26.log" | head -10
  summary+=("CudaStreams.* on 1.26: $(gtest_line $rc "$out/streams-1.26.log")")
  fi
fi
if step convolve; then
  start=$SECONDS
  if have build-payload/tests/convolve-gpu-tests "convolution suite with cp.async"; then
    timeout 200 build-payload/tests/convolve-gpu-tests --gtest_brief=1 >"$out/convolve-gpu.log" 2>&1
    summary+=("convolve-gpu-tests (cp.async): $(gtest_line $? "$out/convolve-gpu.log") ($((SECONDS - start)) s)")
  fi
  start=$SECONDS
  have build-nocp/convolve-gpu-tests "convolution suite with the pre-sm80 staging" &&
  timeout 420 build-nocp/convolve-gpu-tests >"$out/convolve-gpu-nocp.log" 2>&1
  summary+=("convolve-gpu-tests (pre-sm80 staging): $(gtest_line $? "$out/convolve-gpu-nocp.log") ($((SECONDS - start)) s)")
  grep -E '^\[  FAILED  \]' "$out/convolve-gpu-nocp.log" | head -20
  grep -E '^\[       OK \]' "$out/convolve-gpu-nocp.log" | sort -t'(' -k2 -n -r | head -5
fi
if step sanitize; then
  cs="compute-sanitizer --error-exitcode 9"
  for tool in memcheck racecheck; do
    timeout 100 $cs --tool $tool build-nocp/convolve-gpu-tests --gtest_brief=1 \
      --gtest_filter='SeparableBytes.TakesSevenAndNineAheadOfTheOtherKernels:*385x289*:CudaConvolver.*' \
      >"$out/san-nocp-$tool.log" 2>&1
    summary+=("$tool convolve pre-sm80: $(sanitizer_line $? "$out/san-nocp-$tool.log")")
  done
  # Through Debian 13's loader: the sanitizer starts the loader, which starts the tests.
  for tool in memcheck synccheck; do
    CUDAFILTERS_TEST_BACKEND=cuda GST_PLUGIN_PATH=$PWD/debian13/plugin-test-seam GST_REGISTRY=/tmp/reg26-san.bin \
      GST_PLUGIN_SYSTEM_PATH_1_0=$PWD/debian13/plugins GST_REGISTRY_FORK=no timeout 120 \
      $cs --tool $tool debian13/lib/ld-linux-x86-64.so.2 --library-path debian13/lib debian13/tests/element-tests \
      --gtest_brief=1 --gtest_filter='CudaStreams.*:CudaMemory.*' >"$out/san-1.26-$tool.log" 2>&1
    summary+=("$tool element streams+memory 1.26: $(sanitizer_line $? "$out/san-1.26-$tool.log")")
  done
fi
if step pixels; then
  $prod26 GST_DEBUG=cudanvrtc:6,cudautils:4 gst-inspect-1.0 nvcodec >"$out/nvcodec-1.26.log" 2>&1
  summary+=("1.26 nvcodec: $(grep -cE '^ +cuda(convertscale|convert|scale):' "$out/nvcodec-1.26.log") of cudaconvertscale/cudaconvert/cudascale registered; NVRTC: $(grep -iE 'nvrtc' "$out/nvcodec-1.26.log" | sed 's/.*cudanvrtc[^ ]* *//' | sort -u | head -3 | paste -sd'|')")
  clip=gpu-carry/clip-1080p.h264
  h264="filesrc location=$clip ! video/x-h264,stream-format=byte-stream ! h264parse ! nvh264dec"
  raw() {  # name, pipeline head (ends before the sink)
    local name=$1; shift
    # I420 in tight rows: the CUDA-memory path downloads into padded frames, whose padding filesink would write.
    timeout 60 $prod26 gst-launch-1.0 -q $* ! videoconvert ! video/x-raw,format=I420 ! filesink location=/tmp/$name.raw \
      >"$out/pixels-$name.log" 2>&1
    echo "rc=$? $(md5sum </tmp/$name.raw | cut -c1-32) $(stat -c %s /tmp/$name.raw) bytes"
  }
  a=$(raw decode-cuda "$h264 ! cudaconvolve preset=gaussian size=5 ! cudadownload")
  b=$(raw decode-sys "$h264 ! cudadownload ! cudaconvolve preset=gaussian size=5")
  summary+=("1.26 nvh264dec ! cudaconvolve ! cudadownload: $a")
  summary+=("1.26 nvh264dec ! cudadownload ! cudaconvolve:   $b $([ "${a#* }" = "${b#* }" ] && echo SAME || echo DIFFERENT)")
  src="videotestsrc num-buffers=120 pattern=ball ! video/x-raw,format=NV12,width=1280,height=720 ! cudaupload ! cudaconvertscale ! video/x-raw(memory:CUDAMemory),width=1920,height=1080"
  a=$(raw convert-cuda "$src ! cudahisteq mode=clahe ! cudaconvolve preset=sharpen ! cudadownload")
  b=$(raw convert-sys "$src ! cudadownload ! cudahisteq mode=clahe ! cudaconvolve preset=sharpen")
  summary+=("1.26 cudaupload ! cudaconvertscale ! cudahisteq ! cudaconvolve ! cudadownload: $a")
  summary+=("1.26 the same through system memory:                                 $b $([ "${a#* }" = "${b#* }" ] && echo SAME || echo DIFFERENT)")
fi
if step bench; then
  for round in $(seq ${BENCH_ROUNDS:-2}); do
    for v in ${BENCH_VARIANTS:-22 26 26b}; do
      eval "prod=\$prod$v"
      [ $v = 22 ] && bench=build-payload/bench/bench-pipeline || bench=debian13/bench/bench-pipeline
      [ -e $bench ] || continue
      [ $v = 26b ] && { [ -d debian13/plugin-before ] || continue; }
      for only in ${BENCH_ONLY:-d-decode c-chain}; do
        timeout 150 $prod $bench --seconds ${PIPELINE_SECONDS:-2} --clip gpu-carry/clip-1080p.h264 --only $only \
          >"/tmp/bench.md" 2>"/tmp/bench-pipeline-1.$v-$only-$round.err"
        rc=$?
        { echo "### 1.$v --only $only round $round (rc=$rc)"; cat /tmp/bench.md; } >>"$out/bench.md"
        summary+=("bench-pipeline 1.$v --only $only round $round: rc=$rc")
      done
    done
  done
fi
printf '\n%s\n' "${summary[@]}" | tee "$final/summary.txt"
[ -f "$out/bench.md" ] && cp "$out/bench.md" "$final/bench.md"
tar -C "$final" -cJf "$final/logs.tar.xz" logs && rm -rf "$out"
