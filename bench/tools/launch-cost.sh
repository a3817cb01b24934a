#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds and runs bench/launch/launch_cost.cu with nvcc alone (meant for the GPU host). Output: host µs per call.
#   bench/tools/launch-cost.sh [output-dir]        (default: build-bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-bench}
mkdir -p "$out"
"${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" -O2 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -o "$out/launch-cost" \
    bench/launch/launch_cost.cu
"$out/launch-cost"
