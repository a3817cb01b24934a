#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# This tree against an earlier one on the GPU host, in one call: bench-convolve and bench-histeq of both trees built
# here with nvcc (as scripts/gpu/build-bench*.sh do), then each benchmark run alternately old, new, old, new, and
# bench-pipeline through each tree's plugin the same way. Logs and a per-row comparison (new / old, the better of
# each tree's rounds) into $OUT.
#   here:  git archive OLD | xz > gpu-carry/before-src.tar.xz; the old tree's build-gpu plugin and bench-pipeline in
#          gpu-carry/before-payload.tar.xz (plugin/libgstcudafilters.so, bench/bench-pipeline); scripts/gpu/pack.sh
#   there: scripts/gpu/compare.sh      (COMPARE_STEPS="convolve histeq pipeline", CONVOLVE_ARGS, PIPELINE_ARGS)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
steps=${COMPARE_STEPS:-"convolve histeq pipeline"}
rounds=${COMPARE_ROUNDS:-2}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
[ -d .gpu-bundle ] || tar -xJf gpu-carry/bundle.tar.xz  # the GStreamer runtime, packed by scripts/gpu/pack.sh
rm -rf before build-payload && mkdir -p before build-payload
tar -C before -xJf gpu-carry/before-src.tar.xz
[ -f gpu-carry/payload.tar.xz ] && tar -C build-payload -xJf gpu-carry/payload.tar.xz
[ -f gpu-carry/before-payload.tar.xz ] && mkdir -p before/build-payload &&
    tar -C before/build-payload -xJf gpu-carry/before-payload.tar.xz
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } >"$out/device.txt" 2>&1
cat "$out/device.txt"

# Both trees' kernel benchmarks, built side by side (each build runs its sources in parallel).
pids=()
for tree in before .; do
    tag=$([ "$tree" = . ] && echo new || echo old)
    if step convolve; then
        (cd "$tree" && scripts/gpu/build-bench.sh build-bench) >"$out/build-convolve-$tag.log" 2>&1 &
        pids+=($!)
    fi
    if step histeq; then
        (cd "$tree" && scripts/gpu/build-bench-histeq.sh build-bench-histeq) >"$out/build-histeq-$tag.log" 2>&1 &
        pids+=($!)
    fi
done
for p in "${pids[@]}"; do wait "$p"; done
echo "builds done at ${SECONDS}s"

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
step convolve && alternate convolve build-bench/bench-convolve ${CONVOLVE_ARGS:---ks 3,5,7,9,15,31 --no-fft --runs 15 --frames 4}
step histeq && alternate histeq build-bench-histeq/bench-histeq ${HISTEQ_ARGS:---runs 15}
if step pipeline; then
    for r in $(seq 1 "$rounds"); do
        for tree in before .; do
            tag=$([ "$tree" = . ] && echo new || echo old)
            plugin=$PWD/$tree/build-payload/plugin
            [ "$tree" = . ] && plugin=$PWD/build-payload/plugin
            timeout 240 .gpu-bundle/run env GST_PLUGIN_PATH="$plugin" GST_REGISTRY=/tmp/compare-$tag.bin \
                "$tree/build-payload/bench/bench-pipeline" ${PIPELINE_ARGS:---seconds 1.0} >"$out/pipeline-$tag-$r.log" 2>&1
            echo "pipeline $tag round $r: rc=$? at ${SECONDS}s"
        done
    done
fi
python3 scripts/gpu/compare-rows.py "$out" | tee "$out/compare.txt"
