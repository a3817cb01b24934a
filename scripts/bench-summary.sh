#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The benchmark summary on a machine with an NVIDIA GPU: builds, runs the kernel benchmark (with NPP when the CUDA
# toolkit has it) and the element benchmark, prints a table and draws benchmarks.png (needs python3-matplotlib).
# Without a GPU there is nothing to measure: it says so and points to the figures in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUTPUT:-bench-output}
mkdir -p "$out"
if nvidia-smi -L >/dev/null 2>&1; then
  . scripts/env.sh
  build=${BUILD_DIR:-build}
  [ -f "$build/build.ninja" ] || meson setup "$build" $(cuda_arch_option) >/dev/null
  ninja -C "$build" >/dev/null
  scripts/gpu/build-bench.sh "$out/bench-build" >/dev/null
  "$out/bench-build/bench-convolve" --runs 30 --frames 4 >"$out/convolve.md"
  GST_PLUGIN_PATH="$PWD/$build/plugin" "$build/bench/element/bench-element" --seconds 2 --cpu-seconds 3 >"$out/element.md"
  conv=$out/convolve.md element=$out/element.md
else
  echo "bench-summary: no NVIDIA GPU here, nothing to measure; the figures measured on H100 and H200 GPUs, each with" \
    "its date and command, are in docs/performance.md"
  exit 0
fi
python3 scripts/bench-plot.py "$conv" "$element" "$out/benchmarks.png"
