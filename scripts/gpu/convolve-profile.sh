#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Nsight Compute speed-of-light for a few convolution kernels (1080p GRAY8 from bench-convolve --quick).
# Run after scripts/gpu/convolve-check.sh built build-bench/bench-convolve. Output: $OUT/ncu-*.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
export PATH=/usr/local/cuda/bin:$PATH
profile() {  # name, mangled-name regex, matching launches to skip
    ncu --clock-control none --kernel-name-base mangled -k "regex:$2" --launch-skip "$3" --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        build-bench/bench-convolve --quick --runs 10 >"$out/ncu-$1.txt" 2>&1
    echo "== $1"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Stall|Theoretical Occupancy" "$out/ncu-$1.txt" | head -14
}
profile direct3 'directKernelIhLi3ELi1E' 12
profile direct31 'directKernelIhLi31ELi1E' 12
profile separable31 'separableKernelIhLi31E' 12
