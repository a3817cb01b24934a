#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The frame pipeline on the GPU host, in one call: the element suite on CUDA (sharded over the host's cores), the
# frame-flow and live-latency tests alone (their timings), a compute-sanitizer pass over the frame-flow tests, and
# bench-live-latency and bench-pipeline through this tree's plugin and an earlier one's, alternately. Logs into $OUT.
#   gpu-carry/payload.tar.xz: plugin/, plugin-old/, plugin-test-seam/ (libgstcudafilters.so each; plugin-cur/
#   optional, a third tree timed as "cur" beside the two), tests/element-tests,
#   bench/bench-pipeline, bench/bench-live-latency (stripped); gpu-carry/bundle.tar.xz: the GStreamer runtime
#   (.gpu-bundle, scripts/gpu/pack.sh). FLOW_STEPS picks steps of "tests timing memcheck live pipeline"; GROUPS_ONLY the
#   bench-pipeline groups; TAGS the trees bench-pipeline times ("old new", or "old cur new" where plugin-cur/ came).
#   The logs come back as $OUT/frame-flow-logs.tar.xz.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
[ -d .gpu-bundle ] || tar -xJf gpu-carry/bundle.tar.xz
rm -rf build-payload && mkdir build-payload && tar -C build-payload -xJf gpu-carry/payload.tar.xz
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$out/device.txt" 2>&1
p=$PWD/build-payload
run_tests() {  # log, registry, gtest args...
    local log=$1 reg=$2
    shift 2
    CUDAFILTERS_TEST_BACKEND=cuda .gpu-bundle/run env GST_PLUGIN_PATH="$p/plugin-test-seam" GST_REGISTRY="/tmp/$reg.bin" \
        CUDAFILTERS_TEST_GST_PLUGINS_DIR="$PWD/.gpu-bundle/root/usr/lib/x86_64-linux-gnu/gstreamer-1.0" "$p/tests/element-tests" "$@" >"$out/$log" 2>&1
}
steps=${FLOW_STEPS:-"tests timing memcheck live pipeline"}
step() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
timing='LiveLatency.*:LiveRamp.*:CpuPipelining.*:Elements/FlowCase.*LiveSource*:SerializedEvents.ATag*'
shards=${SHARDS:-6}
step tests && for s in $(seq 0 $((shards - 1))); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$s run_tests "element-$s.log" "reg$s" --gtest_filter="-$timing" &
done
wait
step tests && grep -h -E '^\[  (PASSED|FAILED)|tests ran' "$out"/element-*.log
step timing && run_tests element-timing.log regt --gtest_filter="$timing"
step timing && grep -E '^\[  (PASSED|FAILED)|^\[ (live|events|cpu)' "$out/element-timing.log"
if step memcheck; then
    timeout 240 bash -c "CUDAFILTERS_TEST_BACKEND=cuda .gpu-bundle/run env GST_PLUGIN_PATH=$p/plugin-test-seam \
        GST_REGISTRY=/tmp/regm.bin compute-sanitizer --tool memcheck --error-exitcode 9 $p/tests/element-tests \
        --gtest_filter='Elements/FlowCase.*Flags*:Elements/FlowCase.*Pause*:Depths/Depth.Frames*'" >"$out/memcheck.log" 2>&1
    echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)"
fi
step live && for tag in old new; do
    dir=plugin && [ $tag = old ] && dir=plugin-old
    timeout 200 .gpu-bundle/run env GST_PLUGIN_PATH="$p/$dir" GST_REGISTRY="/tmp/live-$tag.bin" \
        "$p/bench/bench-live-latency" ${LIVE_ARGS:---seconds 5} >"$out/live-$tag.log" 2>&1
    echo "live $tag: rc=$?"
    grep -E 'reached|added' "$out/live-$tag.log" | sed "s/^/  $tag /"
done
# bench-pipeline groups (--only), each tree in turn, ROUNDS times; the whole standard set takes longer than a call.
tags="old new" && [ -d "$p/plugin-cur" ] && tags="old cur new"
tags=${TAGS:-$tags}
step pipeline && for r in $(seq 1 "${ROUNDS:-2}"); do
    for group in ${GROUPS_ONLY:-b-ring b-freeze r-element c-chain}; do
        for tag in $tags; do
            dir=plugin-$tag && [ $tag = new ] && dir=plugin
            timeout 120 .gpu-bundle/run env GST_PLUGIN_PATH="$p/$dir" GST_REGISTRY="/tmp/bench-$tag.bin" \
                "$p/bench/bench-pipeline" ${PIPELINE_ARGS:---seconds 0.5} --only "$group" \
                >"$out/pipeline-$tag-$r-$group.log" 2>&1
            echo "pipeline $tag round $r $group: rc=$?"
        done
    done
done
step pipeline && python3 scripts/gpu/compare-rows.py "$out" --all
step pipeline && [[ " $tags " == *" cur "* ]] && python3 scripts/gpu/compare-rows.py "$out" --all --tags cur,new
# The device returns a limited number of files: the logs travel as one archive, the summary above on stdout.
tar -C "$out" -cJf /tmp/frame-flow-logs.tar.xz . && find "$out" -mindepth 1 -delete && mv /tmp/frame-flow-logs.tar.xz "$out/"
