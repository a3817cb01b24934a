#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds and runs bench/launch/pcie_devices.cu with nvcc alone (meant for the GPU host): duplex pinned copies of a
# frame on one GPU, then on every GPU at once.
#   scripts/gpu/pcie-devices.sh [output-dir] [-- pcie-devices arguments]       (default: build-bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build-bench
if [[ $# -gt 0 && $1 != -- ]]; then out=$1; shift; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$out"
"${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" -O2 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -DCUDAFILTERS_HAVE_CUDA=1 \
    -Ibench/common -o "$out/pcie-devices" bench/launch/pcie_devices.cu
"$out/pcie-devices" "$@"
