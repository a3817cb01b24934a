#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds one of the standalone GPU probes in bench/launch with nvcc alone (meant for the GPU host) and runs it:
#   bench/tools/launch-tool.sh NAME [output-dir] [-- NAME's arguments]       (default output-dir: build-bench)
# NAME: separable-ceiling (the best a bit-exact separable filter of u8 frames could reach, timed as bench-convolve
# times ours), pcie-devices (duplex pinned copies on one GPU, then on every GPU at once).
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:?usage: bench/tools/launch-tool.sh NAME [output-dir] [-- arguments]}
shift
source=bench/launch/${name//-/_}.cu
[[ -f $source ]] || { echo "launch-tool: no $source" >&2; exit 2; }
out=build-bench
if [[ $# -gt 0 && $1 != -- ]]; then out=$1; shift; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$out"
if [[ ! -x $out/$name || $source -nt $out/$name ]]; then
    "${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" -O3 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -lineinfo \
        --expt-relaxed-constexpr -DCUDAFILTERS_HAVE_CUDA=1 -Iengine/include -Iengine/histeq/core -Iengine/convolve/gpu \
        -Ibench/common -o "$out/$name" "$source" engine/common/cuda_raii.cpp engine/common/error.cpp
fi
"$out/$name" "$@"
