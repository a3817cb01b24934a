#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Per-block timings of the separable bytes kernel (GPU host, from the repository root):
#   scripts/gpu/separable-block-times/run.sh OUT-DIR [skipedge]
# Builds bench-convolve's objects (build-bench/) if missing, a clocked copy of the kernel, and runs it.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?output folder}; variant=${2:-}
here=scripts/gpu/separable-block-times
[ -d build-bench/obj ] || scripts/gpu/build-bench.sh build-bench
tmp=$(mktemp -d)
python3 $here/clock_blocks.py cuda/src/convolve/cuda/convolve_separable_bytes.cu "$tmp/bytes_clocked.cu" $variant
objs=$(ls build-bench/obj/*.o | grep -v "separable_bytes\|bench_convolve")
nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -DNDEBUG -DCUDAFILTERS_HAVE_CUDA=1 -Icuda/include -Icuda/core \
  -Icuda/src/convolve/cuda -I"$tmp" -o "$tmp/block-times" $here/block_times.cu $objs -ldl
mkdir -p "$out"
"$tmp/block-times" "$out"
