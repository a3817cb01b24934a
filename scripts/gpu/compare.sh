#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# This tree against an earlier one on the GPU host, in one call: bench-convolve, bench-histeq and bench-pipeline of
# both trees run alternately old, new, old, new (COMPARE_ROUNDS), bench-pipeline each through its tree's plugin. Logs
# and a per-row comparison (new against old, the better of each tree's rounds) into $OUT.
#   gpu-carry/payload.tar.xz, gpu-carry/before-payload.tar.xz: each tree's bench/bench-{convolve,histeq,pipeline}
#   (meson's build, stripped) and plugin/libgstcudafilters.so; a kernel benchmark missing from a payload is built
#   here with nvcc from that tree's sources (gpu-carry/before-src.tar.xz: `git archive OLD | xz`).
#   scripts/gpu/compare.sh      (COMPARE_STEPS="convolve histeq pipeline", CONVOLVE_ARGS, HISTEQ_ARGS, PIPELINE_ARGS)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
steps=${COMPARE_STEPS:-"convolve histeq pipeline"}
rounds=${COMPARE_ROUNDS:-2}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# The GStreamer runtime (scripts/gpu/pack.sh makes .gpu-bundle; a call short of room carries it as bundle.tar.xz).
if step pipeline && [ ! -d .gpu-bundle ]; then tar -xJf gpu-carry/bundle.tar.xz; fi
rm -rf before build-payload && mkdir -p before/build-payload build-payload
[ -f gpu-carry/before-src.tar.xz ] && tar -C before -xJf gpu-carry/before-src.tar.xz
tar -C build-payload -xJf gpu-carry/payload.tar.xz
tar -C before/build-payload -xJf gpu-carry/before-payload.tar.xz
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/device.txt" 2>&1
cat "$out/device.txt"

# Kernel benchmarks a payload lacks, built from their tree side by side.
pids=()
for tree in before .; do
    for b in convolve histeq; do
        step $b && [ ! -x "$tree/build-payload/bench/bench-$b" ] || continue
        script=scripts/gpu/build-bench.sh && [ $b = histeq ] && script=scripts/gpu/build-bench-histeq.sh
        (cd "$tree" && $script build-bench-$b && mkdir -p build-payload/bench &&
            cp build-bench-$b/bench-$b build-payload/bench/) >"$out/build-$b-$(basename "$PWD/$tree").log" 2>&1 &
        pids+=($!)
    done
done
for p in "${pids[@]}"; do wait "$p"; done
echo "ready at ${SECONDS}s"

alternate() {  # name, command relative to a tree; runs old/new alternately, $rounds rounds
    local name=$1
    shift
    for r in $(seq 1 "$rounds"); do
        for tree in before .; do
            tag=$([ "$tree" = . ] && echo new || echo old)
            (cd "$tree" && timeout 240 "$@") >"$out/$name-$tag-$r.log" 2>&1
            echo "$name $tag round $r: rc=$? at ${SECONDS}s"
        done
    done
}
step convolve && alternate convolve build-payload/bench/bench-convolve ${CONVOLVE_ARGS:---ks 3,5,7,9,15,31 --no-fft --runs 15 --frames 4}
step histeq && alternate histeq build-payload/bench/bench-histeq ${HISTEQ_ARGS:---runs 15}
if step pipeline; then
    for r in $(seq 1 "$rounds"); do
        for tree in before .; do
            tag=$([ "$tree" = . ] && echo new || echo old)
            plugin=$PWD/$tree/build-payload/plugin
            timeout 240 .gpu-bundle/run env GST_PLUGIN_PATH="$plugin" GST_REGISTRY=/tmp/compare-$tag.bin \
                "$PWD/$tree/build-payload/bench/bench-pipeline" ${PIPELINE_ARGS:---seconds 1.0} >"$out/pipeline-$tag-$r.log" 2>&1
            echo "pipeline $tag round $r: rc=$? at ${SECONDS}s"
        done
    done
fi
python3 scripts/gpu/compare-rows.py "$out" | tee "$out/compare.txt"
