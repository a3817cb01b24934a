#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds and runs bench/launch/separable_ceiling.cu with nvcc alone (meant for the GPU host): what a bit-exact
# separable K × K filter of a u8 frame could reach at best, timed as bench-convolve times the real one.
#   scripts/gpu/separable-ceiling.sh [output-dir] [-- ceiling arguments]       (default: build-bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build-bench
if [[ $# -gt 0 && $1 != -- ]]; then out=$1; shift; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$out"
if [[ ! -x $out/separable-ceiling || bench/launch/separable_ceiling.cu -nt $out/separable-ceiling ]]; then
    "${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" -O3 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -lineinfo \
        -Icuda/include -Ibench/common -o "$out/separable-ceiling" \
        bench/launch/separable_ceiling.cu cuda/src/common/cuda_raii.cpp cuda/src/common/error.cpp
fi
"$out/separable-ceiling" "$@"
