#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where one kernel launch's instructions and stalls go: Nsight Compute (--set full, source counters) on the first
# launch of the kernel whose mangled name matches REGEX in a bench-convolve run, then bench/tools/instruction_mix.py
# on its SASS page. Run on the GPU host after scripts/gpu/build-bench.sh built build-bench/.
#   bench/tools/instruction-mix.sh NAME REGEX [bench-convolve arguments]   (output: $OUT/NAME-*.txt, NAME-sass.csv)
# e.g. the u8 separable kernel, 4K GRAY8 K = 31 (one channel, 4 blocks per SM, two barriers a chunk):
#   bench/tools/instruction-mix.sh g31 'separableStagedU8KernelILi31ELi1ELb0ELi4ELin1ELb0E' --size 3840x2160 --ks 31 --no-fft
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n 3,8p "$0"; exit 2; }
name=$1 regex=$2
shift 2
out=$(realpath -m "${OUT:-out}")
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
ncu --clock-control none --kernel-name-base mangled -k "regex:$regex" --launch-skip 0 --launch-count 1 --set full \
    --import-source yes -o "$out/$name" -f build-bench/bench-convolve --runs 3 --frames 1 "$@" >"$out/$name-ncu.txt" 2>&1
ncu --import "$out/$name.ncu-rep" --page details >"$out/$name-details.txt" 2>&1
ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass >"$out/$name-sass.csv" 2>&1
rm -f "$out/$name.ncu-rep"
grep -E "Duration|Executed Ipc Active|Executed Instructions|Issue Slots Busy|Grid Size|Registers Per" "$out/$name-details.txt"
python3 bench/tools/instruction_mix.py "$out/$name-sass.csv" --regions | tee "$out/$name-mix.txt"
