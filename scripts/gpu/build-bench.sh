#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds bench-convolve with nvcc alone (no meson, no gtest, no GStreamer), linking NPP when its headers are
# present -- meant for the GPU host, where NPP lives. Run from the repository root.
#   scripts/gpu/build-bench.sh [output-dir]        (default: build-bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-bench}
mkdir -p "$out/obj"
cuda_home=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$cuda_home/bin/nvcc}
arch=${CUDA_ARCH:-sm_90}

flags=(-O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo -DNDEBUG -DCUDAFILTERS_HAVE_CUDA=1
       -Iengine/include -Iengine/histeq/core -Iengine/convolve/gpu)
libs=()
if [[ -f $cuda_home/include/nppi_filtering_functions.h ]]; then
    flags+=(-DCUDAFILTERS_HAVE_NPP=1 -I"$cuda_home/include")
    libs+=(-L"$cuda_home/lib64" -lnppif -lnppist -lnppicc -lnppc)
    echo "build-bench: NPP found in $cuda_home"
else
    echo "build-bench: no NPP headers in $cuda_home/include; building without the NPP comparison"
fi

# The engine sources the CUDA path needs (no OpenCV, no CPU backend on OpenCV).
sources=(engine/common/backend.cpp engine/common/error.cpp engine/common/image.cpp engine/common/cuda_raii.cpp engine/common/device.cpp engine/common/device_copy.cu
         engine/convolve/plan.cpp engine/convolve/presets.cpp engine/convolve/kernel_text.cpp
         engine/convolve/crossover.cpp
         engine/convolve/gpu/*.cpp engine/convolve/gpu/*.cu
         bench/convolve/bench_convolve.cpp)

printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'src="$1"; shift; obj="'"$out"'/obj/$(echo "$src" | tr / _).o"; "$@" -c "$src" -o "$obj" || exit 255' \
    sh {} "$nvcc" "${flags[@]}"
"$nvcc" -arch="$arch" -o "$out/bench-convolve" "$out"/obj/*.o "${libs[@]}" -ldl  # cuFFT is loaded with dlopen at run time
echo "build-bench: built $out/bench-convolve"
