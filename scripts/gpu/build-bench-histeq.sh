#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds bench-histeq with nvcc alone (no meson, no gtest, no OpenCV, no GStreamer), linking NPP when its headers
# are present -- meant for the GPU host, where NPP lives. Run from the repository root.
#   scripts/gpu/build-bench-histeq.sh [output-dir]        (default: build-bench-histeq)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-bench-histeq}
mkdir -p "$out/obj"
cuda_home=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$cuda_home/bin/nvcc}
arch=${CUDA_ARCH:-sm_90}

flags=(-O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo -DNDEBUG -DCUDAFILTERS_HAVE_CUDA=1
       -Iengine/include -Iengine/histeq/core -Iengine/histeq/gpu -Itests/reference)
libs=()
if [[ -f $cuda_home/include/nppi_statistics_functions.h ]]; then
    flags+=(-DCUDAFILTERS_HAVE_NPP=1 -I"$cuda_home/include")
    # nppist: histogram; nppicc: LUT; nppc: core.
    libs+=(-L"$cuda_home/lib64" -lnppist -lnppicc -lnppc)
    echo "build-bench-histeq: NPP found in $cuda_home"
else
    echo "build-bench-histeq: no NPP headers in $cuda_home/include; building without the NPP comparison"
fi

# The engine sources the CUDA equalizer and the reference need (CPU backend without OpenCV).
sources=(engine/common/backend.cpp engine/common/error.cpp engine/common/image.cpp engine/common/cuda_raii.cpp
         engine/common/device.cpp engine/common/device_copy.cu
         engine/histeq/plan.cpp engine/histeq/cpu/cpu_equalizer.cpp engine/histeq/cpu/cpu_equalizer_own.cpp
         engine/histeq/gpu/cuda_equalizer.cpp engine/histeq/core/histeq_core.cpp
         engine/histeq/gpu/histeq_tile_histogram.cu engine/histeq/gpu/histeq_tile_apply.cu
         engine/histeq/gpu/histeq_clahe_bands.cu engine/histeq/gpu/histeq_global_chunks.cu
         tests/reference/histeq_reference.cpp
         bench/histeq/bench_histeq.cpp)

printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'src="$1"; shift; obj="'"$out"'/obj/$(echo "$src" | tr / _).o"; "$@" -c "$src" -o "$obj" || exit 255' \
    sh {} "$nvcc" "${flags[@]}"
"$nvcc" -arch="$arch" -o "$out/bench-histeq" "$out"/obj/*.o "${libs[@]}"
echo "build-bench-histeq: built $out/bench-histeq"
