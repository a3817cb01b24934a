// SPDX-License-Identifier: LGPL-2.1-or-later
// Element benchmark: cudaconvolve (5x5 Gaussian) on 1080p GRAY8 and 4K RGBA at pipeline depth 1, 2, 3 on CUDA and on
// the CPU backend, fed by a source that costs nothing per frame (buffers of the element's proposed pool, filled once
// and pushed again and again), and the PCIe duplex bound (upload ‖ download of one frame on two streams, pinned)
// measured in the same run. Prints a markdown table and the targets.
//
//   GST_PLUGIN_PATH=build/plugin bench-element [--seconds S] [--cpu-seconds S]
#include "pcie_bound.hpp"

#include <cudafilters/device.hpp>

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Case {
    const char* name;
    const char* format;
    int width, height;
};

struct Result {
    double fps = 0;
    double latencyMedianMs = 0;
    double latencyP95Ms = 0;
    long frames = 0;
    std::string backend;
};

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Result runElement(const Case& c, const char* backend, int depth, double budgetSeconds) {
    GstElement* element = gst_element_factory_make("cudaconvolve", nullptr);
    if (!element) {
        std::fprintf(stderr, "cudaconvolve not found: set GST_PLUGIN_PATH to the build's plugin folder\n");
        std::exit(1);
    }
    gst_util_set_object_arg(G_OBJECT(element), "backend", backend);
    gst_util_set_object_arg(G_OBJECT(element), "preset", "gaussian");
    g_object_set(element, "size", 5, "pipeline-depth", depth, "qos", FALSE, nullptr);
    GstHarness* h = gst_harness_new_with_element(element, "sink", "src");
    gst_object_unref(element);
    const std::string caps = std::string("video/x-raw,format=") + c.format + ",width=" + std::to_string(c.width) +
                             ",height=" + std::to_string(c.height) + ",framerate=30/1";
    gst_harness_set_src_caps_str(h, caps.c_str());
    gst_harness_play(h);

    // The source: buffers of the pool the element proposes (pinned with CUDA), filled once.
    GstVideoInfo info;
    GstCaps* gcaps = gst_caps_from_string(caps.c_str());
    gst_video_info_from_caps(&info, gcaps);
    GstQuery* query = gst_query_new_allocation(gcaps, TRUE);
    GstBufferPool* pool = nullptr;
    if (gst_pad_peer_query(h->srcpad, query) && gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
    if (pool) gst_buffer_pool_set_active(pool, TRUE);
    std::vector<GstBuffer*> frames;
    std::mt19937 rng(7);
    for (int i = 0; i < 8; ++i) {
        GstBuffer* b = nullptr;
        if (!pool || gst_buffer_pool_acquire_buffer(pool, &b, nullptr) != GST_FLOW_OK)
            b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
        GstMapInfo map;
        gst_buffer_map(b, &map, GST_MAP_WRITE);
        for (gsize k = 0; k < map.size; ++k) map.data[k] = std::uint8_t(rng());
        gst_buffer_unmap(b, &map);
        frames.push_back(b);
    }

    std::map<GstClockTime, Clock::time_point> pushedAt;
    std::vector<double> latencies;
    long pushed = 0, received = 0;
    auto drain = [&] {
        while (GstBuffer* out = gst_harness_try_pull(h)) {
            const auto now = Clock::now();
            auto it = pushedAt.find(GST_BUFFER_PTS(out));
            if (it != pushedAt.end()) {
                latencies.push_back(seconds(now - it->second) * 1e3);
                pushedAt.erase(it);
            }
            ++received;
            gst_buffer_unref(out);
        }
    };
    auto push = [&](long i) {
        GstBuffer* b = gst_buffer_make_writable(gst_buffer_ref(frames[std::size_t(i) % frames.size()]));
        // make_writable copies a shared buffer's struct (not its memory): the pool memory is pushed as is.
        GST_BUFFER_PTS(b) = GstClockTime(i) * (GST_SECOND / 30);
        GST_BUFFER_DURATION(b) = GST_SECOND / 30;
        pushedAt[GST_BUFFER_PTS(b)] = Clock::now();
        if (gst_harness_push(h, b) != GST_FLOW_OK) {
            std::fprintf(stderr, "push failed\n");
            std::exit(1);
        }
        drain();
    };

    for (long i = 0; i < 10; ++i) push(pushed++);  // warm-up: allocations, first-frame set-up
    latencies.clear();
    const long receivedBefore = received;
    const auto start = Clock::now();
    while (seconds(Clock::now() - start) < budgetSeconds || pushed < 30) push(pushed++);
    gst_harness_push_event(h, gst_event_new_eos());
    drain();
    const double elapsed = seconds(Clock::now() - start);

    Result r;
    r.frames = received - receivedBefore;
    r.fps = double(r.frames) / elapsed;
    std::sort(latencies.begin(), latencies.end());
    if (!latencies.empty()) {
        r.latencyMedianMs = latencies[latencies.size() / 2];
        r.latencyP95Ms = latencies[std::min(latencies.size() - 1, latencies.size() * 95 / 100)];
    }
    gchar* active = nullptr;
    g_object_get(h->element, "active-backend", &active, nullptr);
    r.backend = active ? active : "?";
    g_free(active);

    for (GstBuffer* b : frames) gst_buffer_unref(b);
    if (pool) {
        gst_buffer_pool_set_active(pool, FALSE);
        gst_object_unref(pool);
    }
    gst_query_unref(query);
    gst_caps_unref(gcaps);
    gst_harness_teardown(h);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    double budget = 2.0, cpuBudget = 2.0;
    for (int i = 1; i + 1 < argc; ++i) {
        if (!std::strcmp(argv[i], "--seconds")) budget = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--cpu-seconds")) cpuBudget = std::atof(argv[++i]);
    }
    const bool cuda = cudafilters::cudaDeviceCount() > 0;
    std::printf("# cudaconvolve element benchmark: preset=gaussian size=5, source = pool buffers filled once\n");
    std::printf("device: %s\n\n", cuda ? cudafilters::cudaDeviceDescription(0).c_str() : "none (CPU only)");

    const Case cases[] = {{"1080p GRAY8", "GRAY8", 1920, 1080}, {"4K RGBA", "RGBA", 3840, 2160}};
    std::printf("| case | backend | depth | frames | fps | latency median (ms) | latency p95 (ms) | %% of PCIe duplex bound |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    std::map<std::string, double> fps;
    std::map<std::string, double> bound;
    for (const Case& c : cases) {
        GstVideoInfo info;
        gst_video_info_set_format(&info, gst_video_format_from_string(c.format), guint(c.width), guint(c.height));
        const double duplex = cuda ? benchcommon::pcieFps(GST_VIDEO_INFO_SIZE(&info), /*duplex=*/true, 1.0) : 0;
        bound[c.name] = duplex;
        if (cuda)
            std::printf("| %s | PCIe duplex bound (H2D ‖ D2H, pinned) | - | - | %.0f | - | - | 100 |\n", c.name, duplex);
        if (cuda) {
            for (int depth : {1, 2, 3}) {
                const Result r = runElement(c, "cuda", depth, budget);
                fps[std::string(c.name) + " cuda " + std::to_string(depth)] = r.fps;
                std::printf("| %s | %s | %d | %ld | %.0f | %.3f | %.3f | %.1f |\n", c.name, r.backend.c_str(), depth,
                            r.frames, r.fps, r.latencyMedianMs, r.latencyP95Ms, duplex > 0 ? 100 * r.fps / duplex : 0);
                std::fflush(stdout);
            }
        }
        const Result r = runElement(c, "cpu", 1, cpuBudget);
        fps[std::string(c.name) + " cpu"] = r.fps;
        std::printf("| %s | %s | 1 | %ld | %.1f | %.3f | %.3f | %s |\n", c.name, r.backend.c_str(), r.frames, r.fps,
                    r.latencyMedianMs, r.latencyP95Ms,
                    duplex > 0 ? std::to_string(100 * r.fps / duplex).substr(0, 5).c_str() : "-");
        std::fflush(stdout);
    }
    if (cuda) {
        const double best4k = std::max({fps["4K RGBA cuda 1"], fps["4K RGBA cuda 2"], fps["4K RGBA cuda 3"]});
        const double best1080 = std::max({fps["1080p GRAY8 cuda 1"], fps["1080p GRAY8 cuda 2"], fps["1080p GRAY8 cuda 3"]});
        auto verdict = [](bool ok) { return ok ? "met" : "MISSED"; };
        std::printf("\n## Targets\n\n| target | measured | |\n|---|---|---|\n");
        std::printf("| 4K RGBA 5x5 >= 85%% of PCIe duplex bound | %.1f %% (best depth) | %s |\n",
                    100 * best4k / bound["4K RGBA"], verdict(best4k >= 0.85 * bound["4K RGBA"]));
        const double ratio = fps["4K RGBA cuda 2"] / fps["4K RGBA cuda 1"];
        const double ratio1080 = fps["1080p GRAY8 cuda 2"] / fps["1080p GRAY8 cuda 1"];
        std::printf("| depth 2 >= 1.6x depth 1 | 4K RGBA %.2fx, 1080p GRAY8 %.2fx | %s |\n", ratio, ratio1080,
                    verdict(ratio >= 1.6));
        std::printf("| 1080p GRAY8 >= 3000 fps | %.0f fps | %s |\n", best1080, verdict(best1080 >= 3000));
        std::printf("| 4K: CUDA >= 10x CPU backend | %.1fx | %s |\n", best4k / fps["4K RGBA cpu"],
                    verdict(best4k >= 10 * fps["4K RGBA cpu"]));
    }
    gst_deinit();
    return 0;
}
