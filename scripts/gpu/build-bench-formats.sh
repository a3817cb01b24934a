#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds bench-formats (packed 4:2:2 and P010 against their planar equivalents, kernel level) with nvcc alone (no
# meson, no gtest, no OpenCV, no GStreamer): the CUDA convolver and equalizer, and the CPU backends (their own code,
# not OpenCV) and references the results are checked against. Run from anywhere; builds in the repository root.
#   scripts/gpu/build-bench-formats.sh [output-dir]        (default: build-bench-formats)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-bench-formats}
mkdir -p "$out/obj"
cuda_home=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$cuda_home/bin/nvcc}
arch=${CUDA_ARCH:-sm_90}
case $arch in [0-9]*) arch=sm_${arch//./} ;; esac  # scripts/env.sh style "9.0" -> sm_90

flags=(-O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo -DNDEBUG -DCUDAFILTERS_HAVE_CUDA=1
       -Iengine/include -Iengine/histeq/core -Iengine/convolve/gpu -Itests/reference)

sources=(engine/common/backend.cpp engine/common/error.cpp engine/common/image.cpp engine/common/cuda_raii.cpp
         engine/common/device.cpp engine/common/device_copy.cu
         engine/convolve/plan.cpp engine/convolve/presets.cpp engine/convolve/kernel_text.cpp
         engine/convolve/crossover.cpp engine/convolve/factory.cpp
         engine/convolve/cpu/cpu_convolver.cpp engine/convolve/cpu/cpu_responses_own.cpp
         engine/convolve/gpu/*.cpp engine/convolve/gpu/*.cu
         engine/histeq/plan.cpp engine/histeq/cpu/cpu_equalizer.cpp engine/histeq/cpu/cpu_equalizer_own.cpp
         engine/histeq/gpu/cuda_equalizer.cpp engine/histeq/core/histeq_core.cpp
         engine/histeq/gpu/histeq_tile_histogram.cu engine/histeq/gpu/histeq_tile_apply.cu
         engine/histeq/gpu/histeq_clahe_bands.cu engine/histeq/gpu/histeq_global_chunks.cu
         tests/reference/convolve_reference.cpp tests/reference/histeq_reference.cpp
         bench/formats/bench_formats.cpp)

printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'src="$1"; shift; obj="'"$out"'/obj/$(echo "$src" | tr / _).o"; "$@" -c "$src" -o "$obj" || exit 255' \
    sh {} "$nvcc" "${flags[@]}"
"$nvcc" -arch="$arch" -o "$out/bench-formats" "$out"/obj/*.o -ldl  # cuFFT is loaded with dlopen at run time
echo "build-bench-formats: built $out/bench-formats"
