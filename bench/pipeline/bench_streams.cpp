// SPDX-License-Identifier: LGPL-2.1-or-later
// Many live streams in one process: N independent pipelines, each `appsrc (live) ! FILTERS ! fakesink sync=true`,
// fed by one thread that pushes every stream a frame each 1/fps from a ring of frames made once in system memory
// (so the source costs almost nothing; each stream has frames of its own, as each camera has, so no memory is read by
// more than one stream). For each N: the frames pushed, those the sink got on time (before their
// render time, PTS + the pipeline's LATENCY answer) and late, those lost; the latency each filter adds (sink pad to
// src pad, median and p99 over every stream); per stream, the host memory the plugin keeps page-locked, the resident
// memory, the device memory and the CPU time. With --non-live the sources push as fast as the pipelines take frames,
// into sinks that do not sync: the aggregate throughput.
//
//   GST_PLUGIN_PATH=build/plugin bench-streams [--streams N,N,…] [--seconds S] [--size WxH] [--format F] [--fps F]
//       [--filters 'DESC'] [--cuda-memory] [--non-live]
//   default: --streams 1,8 --seconds 10 --size 1920x1080 --format NV12 --fps 30
//            --filters 'cudahisteq mode=clahe ! cudaconvolve preset=gaussian size=5'
//   (--cuda-memory: the default filters with CUDA memory between them)
#include "filter_latency.hpp"
#include "process_memory.hpp"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using cudafilters::test::deviceUsedMiB;
using cudafilters::test::pinnedKiB;
using cudafilters::test::statusKiB;

struct Options {
    std::vector<int> streams = {1, 8};
    double seconds = 10;
    int width = 1920, height = 1080, fps = 30;
    std::string format = "NV12";
    std::string filters = "cudahisteq mode=clahe ! cudaconvolve preset=gaussian size=5";
    bool live = true;
};

using benchcommon::FilterLatency;

struct Stream {
    GstElement* pipeline = nullptr;
    GstElement* src = nullptr;
    GstClockTime latency = 0;                           // the pipeline's LATENCY answer
    std::vector<std::unique_ptr<FilterLatency>> filters;  // in pipeline order
    bool live = true;
    std::atomic<bool> measuring{false};
    std::atomic<guint64> pushed{0}, received{0};  // every frame, from the start to the drained end
    std::atomic<guint64> window{0}, late{0};      // frames at the sink while measuring, and the late ones
};

// At the sink: on time when the frame arrives before its render time, PTS + the LATENCY answer, in running time.
GstPadProbeReturn onSink(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
    auto* s = static_cast<Stream*>(data);
    ++s->received;
    if (!s->measuring) return GST_PAD_PROBE_OK;
    ++s->window;
    if (!s->live) return GST_PAD_PROBE_OK;
    GstElement* sink = gst_pad_get_parent_element(pad);
    GstClock* clock = sink ? gst_element_get_clock(sink) : nullptr;
    if (clock) {
        const GstClockTime now = gst_clock_get_time(clock) - gst_element_get_base_time(sink);
        const GstClockTime pts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
        if (GST_CLOCK_TIME_IS_VALID(pts) && now > pts + s->latency) ++s->late;
        gst_object_unref(clock);
    }
    if (sink) gst_object_unref(sink);
    return GST_PAD_PROBE_OK;
}

double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Random frame content, made once; each stream's ring holds copies of it in memory of its own.
std::vector<std::uint8_t> randomFrame(const GstVideoInfo& info) {
    std::vector<std::uint8_t> bytes(GST_VIDEO_INFO_SIZE(&info));
    std::mt19937 rng(7);
    for (std::uint8_t& b : bytes) b = std::uint8_t(rng() >> 24);
    return bytes;
}

constexpr int kRingFrames = 2;  // per stream: the frame in flight and the next

std::vector<GstBuffer*> makeRing(const std::vector<std::uint8_t>& frame, int count) {
    std::vector<GstBuffer*> ring;
    for (int i = 0; i < count; ++i) {
        GstBuffer* b = gst_buffer_new_allocate(nullptr, frame.size(), nullptr);
        gst_buffer_fill(b, 0, frame.data(), frame.size());
        ring.push_back(b);
    }
    return ring;
}

std::string description(const Options& o, const std::string& caps) {
    return "appsrc name=src is-live=" + std::string(o.live ? "true" : "false") + " format=time max-buffers=4 block=" +
           (o.live ? "false" : "true") + " caps=\"" + caps +
           "\" ! " + o.filters + " ! fakesink name=sink sync=" + (o.live ? "true" : "false") + " qos=false";
}

std::unique_ptr<Stream> makeStream(const std::string& desc, bool live) {
    GError* error = nullptr;
    auto s = std::make_unique<Stream>();
    s->live = live;
    s->pipeline = gst_parse_launch(desc.c_str(), &error);
    if (!s->pipeline) {
        std::fprintf(stderr, "could not build %s: %s\n", desc.c_str(), error ? error->message : "?");
        g_clear_error(&error);
        return nullptr;
    }
    s->src = gst_bin_get_by_name(GST_BIN(s->pipeline), "src");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(s->pipeline), "sink");
    GstPad* sinkPad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(sinkPad, GST_PAD_PROBE_TYPE_BUFFER, onSink, s.get(), nullptr);
    gst_object_unref(sinkPad);
    gst_object_unref(sink);
    GstIterator* it = gst_bin_iterate_sorted(GST_BIN(s->pipeline));
    GValue item = G_VALUE_INIT;
    std::vector<GstElement*> sorted;  // sink first
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        sorted.push_back(GST_ELEMENT(g_value_get_object(&item)));
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    std::reverse(sorted.begin(), sorted.end());
    for (GstElement* e : sorted) {
        if (!benchcommon::isFilter(e)) continue;
        auto p = std::make_unique<FilterLatency>();
        p->name = GST_OBJECT_NAME(gst_element_get_factory(e));
        p->measuring = false;
        benchcommon::watchFilter(e, p.get());
        s->filters.push_back(std::move(p));
    }
    return s;
}

// The first error any pipeline posted, or "".
std::string firstError(const std::vector<std::unique_ptr<Stream>>& streams) {
    for (const auto& s : streams) {
        GstBus* bus = gst_element_get_bus(s->pipeline);
        GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
        gst_object_unref(bus);
        if (!m) continue;
        GError* e = nullptr;
        gst_message_parse_error(m, &e, nullptr);
        std::string text = e ? e->message : "error";
        g_clear_error(&e);
        gst_message_unref(m);
        return text;
    }
    return "";
}

void setMeasuring(std::vector<std::unique_ptr<Stream>>& streams, bool on) {
    for (auto& s : streams) {
        s->measuring = on;
        for (auto& f : s->filters) f->measuring = on;
    }
}

bool runStreams(const Options& o, int n, const std::vector<std::uint8_t>& frame, const std::string& caps) {
    const std::vector<GstBuffer*> ring = makeRing(frame, n * kRingFrames);  // stream i: frames kRingFrames * i + …
    // Measured once the sources' frames exist: what the pipelines add.
    const long rss0 = statusKiB("VmRSS:"), pinned0 = std::max(0L, pinnedKiB()), device0 = deviceUsedMiB();
    std::vector<std::unique_ptr<Stream>> streams;
    for (int i = 0; i < n; ++i) {
        auto s = makeStream(description(o, caps), o.live);
        if (!s) return false;
        streams.push_back(std::move(s));
    }
    for (auto& s : streams) gst_element_set_state(s->pipeline, GST_STATE_PLAYING);

    std::atomic<bool> stop{false};
    GstClock* clock = gst_system_clock_obtain();  // every pipeline's clock
    const auto period = std::chrono::nanoseconds(1000000000LL / o.fps);
    // Live: one thread pushes every stream its frame each period, stamped with the running time of its push, as a
    // camera source stamps its capture time. Non-live: one thread per stream pushes as fast as the pipeline takes
    // frames (appsrc blocks when full).
    std::vector<std::thread> pushers;
    auto pushTo = [&](Stream& s, std::size_t i, std::size_t k) {
        GstBuffer* b = gst_buffer_copy(ring[i * kRingFrames + k % kRingFrames]);  // new metadata over the ring's memory
        GST_BUFFER_DURATION(b) = GST_SECOND / GstClockTime(o.fps);
        if (o.live) {
            const GstClockTime base = gst_element_get_base_time(s.pipeline), now = gst_clock_get_time(clock);
            GST_BUFFER_PTS(b) = now > base ? now - base : 0;
        } else {
            GST_BUFFER_PTS(b) = GstClockTime(k) * GST_SECOND / GstClockTime(o.fps);
        }
        if (gst_app_src_push_buffer(GST_APP_SRC(s.src), b) == GST_FLOW_OK) ++s.pushed;
    };
    if (o.live) {
        pushers.emplace_back([&] {
            auto next = std::chrono::steady_clock::now();
            for (std::size_t k = 0; !stop; ++k) {
                for (std::size_t i = 0; i < streams.size(); ++i) pushTo(*streams[i], i, k);
                next += period;
                std::this_thread::sleep_until(next);
            }
        });
    } else {
        for (std::size_t i = 0; i < streams.size(); ++i)
            pushers.emplace_back([&, i] {
                for (std::size_t k = 0; !stop; ++k) pushTo(*streams[i], i, k);
            });
    }

    std::string error;
    const auto waitFor = [&](double seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (error.empty() && std::chrono::steady_clock::now() < end) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            error = firstError(streams);
        }
    };
    waitFor(2.0);  // warm-up: negotiation, pools, the slots' first frames
    for (auto& s : streams) {
        GstQuery* q = gst_query_new_latency();
        if (gst_element_query(s->pipeline, q)) gst_query_parse_latency(q, nullptr, &s->latency, nullptr);
        gst_query_unref(q);
    }
    const double cpu0 = cpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    setMeasuring(streams, true);
    waitFor(o.seconds);
    setMeasuring(streams, false);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpuSeconds() - cpu0;
    const long rss = statusKiB("VmRSS:"), pinned = std::max(0L, pinnedKiB()), device = deviceUsedMiB();
    stop = true;
    for (std::thread& t : pushers) t.join();
    // Drained: every frame pushed has reached its sink or is lost.
    for (auto& s : streams) gst_app_src_end_of_stream(GST_APP_SRC(s->src));
    for (auto& s : streams) {
        GstBus* bus = gst_element_get_bus(s->pipeline);
        GstMessage* m = gst_bus_timed_pop_filtered(bus, 20 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
        if (m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR && error.empty()) error = "error while draining";
        if (!m && error.empty()) error = "a stream did not drain within 20 s";
        if (m) gst_message_unref(m);
        gst_object_unref(bus);
    }
    for (auto& s : streams) gst_element_set_state(s->pipeline, GST_STATE_NULL);
    gst_object_unref(clock);

    guint64 pushed = 0, received = 0, window = 0, late = 0;
    std::vector<std::vector<double>> added;
    for (auto& s : streams) {
        pushed += s->pushed;
        received += s->received;
        window += s->window;
        late += s->late;
        for (std::size_t f = 0; f < s->filters.size(); ++f) {
            if (added.size() <= f) added.resize(f + 1);
            std::lock_guard<std::mutex> guard(s->filters[f]->lock);
            added[f].insert(added[f].end(), s->filters[f]->addedMs.begin(), s->filters[f]->addedMs.end());
        }
    }
    const guint64 lost = pushed > received ? pushed - received : 0;
    static bool header = false;
    if (!header) {
        header = true;
        std::printf("| streams | fps in all | frames measured | on time | late | lost (of all pushed) |");
        for (const auto& f : streams[0]->filters) std::printf(" %s added, median / p99 ms |", f->name.c_str());
        std::printf(" pinned MiB / stream | RSS MiB / stream | device MiB / stream | CPU %% of a core / stream |\n|");
        for (std::size_t c = 0; c < 10 + streams[0]->filters.size(); ++c) std::printf("---|");
        std::printf("\n");
    }
    std::printf("| %d | %.0f | %llu | %llu | %llu | %llu |", n, double(window) / wall, (unsigned long long)window,
                (unsigned long long)(window - std::min(window, late)), (unsigned long long)late,
                (unsigned long long)lost);
    for (auto& a : added) std::printf(" %.2f / %.2f |", benchcommon::percentile(a, 0.5), benchcommon::percentile(a, 0.99));
    std::printf(" %.1f | %.1f | %s | %.1f |%s\n", double(pinned - pinned0) / 1024.0 / n, double(rss - rss0) / 1024.0 / n,
                device >= 0 && device0 >= 0 ? std::to_string((device - device0) / n).c_str() : "–",
                100.0 * cpu / wall / n, error.empty() ? "" : (" stopped: " + error).c_str());
    std::fflush(stdout);
    for (auto& s : streams) {
        gst_object_unref(s->src);
        gst_object_unref(s->pipeline);
    }
    for (GstBuffer* b : ring) gst_buffer_unref(b);
    return error.empty();
}

std::vector<int> parseInts(const char* text) {
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(std::max(1, std::atoi(item.c_str())));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    Options o;
    bool cudaMemory = false, filtersGiven = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--streams" && more) o.streams = parseInts(argv[++i]);
        else if (a == "--seconds" && more) o.seconds = std::atof(argv[++i]);
        else if (a == "--size" && more && std::sscanf(argv[++i], "%dx%d", &o.width, &o.height) == 2) continue;
        else if (a == "--format" && more) o.format = argv[++i];
        else if (a == "--fps" && more) o.fps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--filters" && more) o.filters = argv[++i], filtersGiven = true;
        else if (a == "--cuda-memory") cudaMemory = true;
        else if (a == "--non-live") o.live = false;
        else {
            std::fprintf(stderr, "usage: bench-streams [--streams N,N,...] [--seconds S] [--size WxH] [--format F] "
                                 "[--fps F] [--filters 'DESC'] [--cuda-memory] [--non-live]\n");
            return 2;
        }
    }
    if (cudaMemory && !filtersGiven)
        o.filters = "cudahisteq mode=clahe ! video/x-raw(memory:CUDAMemory) ! cudaconvolve preset=gaussian size=5 ! "
                    "video/x-raw";
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(o.format.c_str()), guint(o.width), guint(o.height));
    GST_VIDEO_INFO_FPS_N(&info) = o.fps;
    GST_VIDEO_INFO_FPS_D(&info) = 1;
    if (GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_UNKNOWN) {
        std::fprintf(stderr, "unknown format %s\n", o.format.c_str());
        return 2;
    }
    GstCaps* caps = gst_video_info_to_caps(&info);
    gchar* capsText = gst_caps_to_string(caps);
    const std::vector<std::uint8_t> frame = randomFrame(info);
    std::printf("%s %dx%d %s at %d fps, %s, %.0f s a row, %u cores: `appsrc ! %s ! fakesink%s`\n\n",
                o.live ? "live" : "non-live", o.width, o.height, o.format.c_str(), o.fps,
                o.live ? "frames pushed on the clock" : "frames pushed as fast as taken", o.seconds,
                std::thread::hardware_concurrency(), o.filters.c_str(), o.live ? " sync=true" : " sync=false");
    bool ok = true;
    for (int n : o.streams) ok = runStreams(o, n, frame, capsText) && ok;
    g_free(capsText);
    gst_caps_unref(caps);
    return ok ? 0 : 1;
}
