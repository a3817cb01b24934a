// SPDX-License-Identifier: LGPL-2.1-or-later
// How frames flow through the elements at every pipeline-depth: a frame leaves as soon as it is filtered (never
// waiting for the next one), with its own flags, timestamps and GAP; one frame prerolls; slow, paused and
// variable-rate live sources lose nothing; the latency added on a live source is the processing time; the CPU backend
// filters the frames in flight side by side.
#include "element_harness.hpp"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

namespace elementtest {
namespace {

constexpr GstClockTime kFrame30 = GST_SECOND / 30;

struct ElementCase {
    const char* factory;
    std::vector<std::string> props;
};

const ElementCase kElements[] = {
    {"cudaconvolve", {"preset=gaussian", "size=5"}},
    {"cudahisteq", {"mode=clahe"}},
};

std::string describe(const ElementCase& e) {
    std::string s = e.factory;
    for (const std::string& p : e.props) s += " " + p;
    return s;
}

std::string launchProps(const ElementCase& e) {
    std::string s = std::string(e.factory) + " name=x backend=" + testBackend();
    for (const std::string& p : e.props) s += " " + p;
    return s;
}

// "0D 1 2G" — a frame's number (PTS in frames) and its DISCONT / GAP / DELTA_UNIT flags.
std::string flagText(GstBuffer* b) {
    std::string s = std::to_string(GST_BUFFER_PTS(b) / kFrame30);
    if (GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DISCONT)) s += "D";
    if (GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_GAP)) s += "G";
    if (GST_BUFFER_FLAG_IS_SET(b, GST_BUFFER_FLAG_DELTA_UNIT)) s += "U";
    if (gst_buffer_get_size(b) == 0) s += "(empty)";
    return s;
}

// Pulls one buffer, waiting at most `seconds` (null when none came).
GstBuffer* pullWithin(GstHarness* h, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        if (GstBuffer* b = gst_harness_try_pull(h)) return b;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return nullptr;
}

class FlowCase : public ::testing::TestWithParam<std::tuple<int, int>> {
protected:
    const ElementCase& element() const { return kElements[std::get<0>(GetParam())]; }
    int depth() const { return std::get<1>(GetParam()); }
};

// Flags in = flags out, frame by frame: GAP kept (the GAP frame unfiltered), DISCONT where upstream put it and
// nowhere else, DELTA_UNIT kept; an empty GAP buffer passes as one.
TEST_P(FlowCase, EveryFrameKeepsItsOwnFlagsAndTimestamps) {
    const GstVideoInfo info = videoInfo("GRAY8", 32, 24);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness(element().factory, element().props, depth(), bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 32, 24).c_str());
    struct In {
        int n;
        guint flags;
        bool empty;
    };
    const std::vector<In> ins = {{0, GST_BUFFER_FLAG_DISCONT, false}, {1, GST_BUFFER_FLAG_DELTA_UNIT, false},
                                 {2, GST_BUFFER_FLAG_GAP, false},     {3, 0, false},
                                 {4, GST_BUFFER_FLAG_GAP, true},      {5, 0, false},
                                 {9, GST_BUFFER_FLAG_DISCONT, false}, {10, GST_BUFFER_FLAG_DELTA_UNIT, false}};
    std::vector<std::string> sent;
    GstBuffer* gapIn = nullptr;
    for (const In& in : ins) {
        GstBuffer* b = in.empty ? gst_buffer_new() : randomFrame(info, std::uint32_t(in.n));
        GST_BUFFER_PTS(b) = GstClockTime(in.n) * kFrame30;
        GST_BUFFER_DURATION(b) = kFrame30;
        GST_BUFFER_FLAG_SET(b, in.flags);
        if (in.n == 2) gapIn = gst_buffer_ref(b);
        sent.push_back(flagText(b));
        ASSERT_EQ(gst_harness_push(h, b), GST_FLOW_OK) << sent.back();
    }
    std::vector<GstBuffer*> outputs = finish(h);
    std::vector<std::string> got;
    for (GstBuffer* b : outputs) got.push_back(flagText(b));
    EXPECT_EQ(got, sent);
    if (outputs.size() == ins.size()) {
        GstMapInfo a, b;
        gst_buffer_map(gapIn, &a, GST_MAP_READ);
        gst_buffer_map(outputs[2], &b, GST_MAP_READ);
        EXPECT_TRUE(a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0) << "a GAP frame is not filtered";
        gst_buffer_unmap(gapIn, &a);
        gst_buffer_unmap(outputs[2], &b);
    }
    std::vector<GstMessage*> errors = popMessages(bus, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : messageText(errors[0]));
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_buffer_unref(gapIn);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

// An input pause: the frame in flight leaves without a next one, at every depth.
TEST_P(FlowCase, NothingIsHeldWhenTheInputPauses) {
    const GstVideoInfo info = videoInfo("GRAY8", 64, 48);
    GstHarness* h = makeHarness(element().factory, element().props, depth());
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 64, 48).c_str());
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(gst_harness_push(h, randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame30)), GST_FLOW_OK);
        GstBuffer* out = pullWithin(h, 5.0);
        ASSERT_NE(out, nullptr) << "frame " << i << " was held with no frame after it";
        EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * kFrame30);
        gst_buffer_unref(out);
    }
    gst_harness_teardown(h);
}

// appsrc ! element ! appsink: PAUSED with one buffer prerolls (the sink gets it) at every depth.
TEST_P(FlowCase, OneFramePrerolls) {
    const std::string launch = "appsrc name=s format=time caps=" + capsString("GRAY8", 64, 48) + " ! " +
                               launchProps(element()) + " pipeline-depth=" + std::to_string(depth()) +
                               " ! appsink name=k";
    GstElement* pipeline = gst_parse_launch(launch.c_str(), nullptr);
    ASSERT_NE(pipeline, nullptr);
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "s");
    EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_ASYNC);
    const GstVideoInfo info = videoInfo("GRAY8", 64, 48);
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), randomFrame(info, 1, 0)), GST_FLOW_OK);
    EXPECT_EQ(gst_element_get_state(pipeline, nullptr, nullptr, 10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS)
        << "one frame prerolls the pipeline";
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(pipeline);
}

// A live source slower than its caps say (30/1 caps, a frame every 100 ms), and one with a variable rate (0/1):
// a synced sink that drops frames later than 20 ms renders every one.
void liveSourceLosesNothing(const ElementCase& element, int depth, int fpsN, const std::vector<int>& gapsMs) {
    const std::string caps = "video/x-raw,format=GRAY8,width=64,height=48,framerate=" + std::to_string(fpsN) + "/1";
    const std::string launch = "appsrc name=s is-live=true do-timestamp=true format=time caps=" + caps + " ! " +
                               launchProps(element) + " pipeline-depth=" + std::to_string(depth) +
                               " ! appsink name=k sync=true max-lateness=20000000 qos=true emit-signals=false";
    GstElement* pipeline = gst_parse_launch(launch.c_str(), nullptr);
    ASSERT_NE(pipeline, nullptr);
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "s");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "k");
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    const GstVideoInfo info = videoInfo("GRAY8", 64, 48);
    int rendered = 0;
    std::thread puller([&] {
        while (GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 2 * GST_SECOND)) {
            ++rendered;
            gst_sample_unref(s);
        }
    });
    for (std::size_t i = 0; i < gapsMs.size(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(gapsMs[i]));
        GstBuffer* b = randomFrame(info, std::uint32_t(i));
        GST_BUFFER_PTS(b) = GST_CLOCK_TIME_NONE;  // do-timestamp: the running time of the push
        GST_BUFFER_DURATION(b) = GST_CLOCK_TIME_NONE;
        ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* m = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    EXPECT_TRUE(m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS);
    if (m) gst_message_unref(m);
    gst_object_unref(bus);
    puller.join();
    EXPECT_EQ(rendered, int(gapsMs.size())) << "every frame rendered";
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
}

TEST_P(FlowCase, ALiveSourceSlowerThanItsCapsLosesNoFrame) {
    liveSourceLosesNothing(element(), depth(), 30, std::vector<int>(8, 100));
}

TEST_P(FlowCase, AVariableRateLiveSourceLosesNoFrame) {
    liveSourceLosesNothing(element(), depth(), 0, {60, 20, 90, 35, 70, 15, 100, 40, 25, 80});
}

INSTANTIATE_TEST_SUITE_P(Elements, FlowCase, ::testing::Combine(::testing::Values(0, 1), ::testing::Values(1, 2, 3, 4)),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
                             return std::string(kElements[std::get<0>(info.param)].factory) + "_depth" +
                                    std::to_string(std::get<1>(info.param));
                         });

// ---------------------------------------------------------------------------------------------------------------
// Latency on a live source, measured as GStreamer's latency tracer does: from a frame's arrival on the element's sink
// pad to its push on the src pad.

struct Arrivals {
    std::mutex lock;
    std::map<GstClockTime, gint64> in;  // PTS → monotonic µs
    std::vector<double> addedMs;
};

GstPadProbeReturn onSink(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* a = static_cast<Arrivals*>(data);
    std::lock_guard<std::mutex> guard(a->lock);
    a->in[GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info))] = g_get_monotonic_time();
    return GST_PAD_PROBE_OK;
}

GstPadProbeReturn onSrc(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* a = static_cast<Arrivals*>(data);
    const gint64 now = g_get_monotonic_time();
    std::lock_guard<std::mutex> guard(a->lock);
    auto it = a->in.find(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info)));
    if (it != a->in.end()) a->addedMs.push_back(double(now - it->second) / 1000.0);
    return GST_PAD_PROBE_OK;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

struct LatencyRun {
    std::vector<double> addedMs;  // per frame, the first 5 left out (allocation, negotiation)
    GstClockTime ownLatency = 0;  // the element's part of the LATENCY answer
};

LatencyRun measureLatency(const ElementCase& element, int depth, bool live, int frames) {
    const std::string launch = std::string("videotestsrc is-live=") + (live ? "true" : "false") +
                               " num-buffers=" + std::to_string(frames) + " pattern=ball ! " +
                               capsString("GRAY8", 640, 360) + " ! " + launchProps(element) +
                               " pipeline-depth=" + std::to_string(depth) + " ! fakesink name=k sync=false";
    LatencyRun run;
    GstElement* pipeline = gst_parse_launch(launch.c_str(), nullptr);
    if (!pipeline) return run;
    GstElement* x = gst_bin_get_by_name(GST_BIN(pipeline), "x");
    GstPad* sinkPad = gst_element_get_static_pad(x, "sink");
    GstPad* srcPad = gst_element_get_static_pad(x, "src");
    Arrivals arrivals;
    gst_pad_add_probe(sinkPad, GST_PAD_PROBE_TYPE_BUFFER, onSink, &arrivals, nullptr);
    gst_pad_add_probe(srcPad, GST_PAD_PROBE_TYPE_BUFFER, onSrc, &arrivals, nullptr);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* m = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    EXPECT_TRUE(m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) << describe(element);
    if (m) gst_message_unref(m);
    // The element's own part of the LATENCY answer: its src pad's minus its sink pad's peer's.
    GstQuery* q = gst_query_new_latency();
    GstQuery* up = gst_query_new_latency();
    if (gst_pad_query(srcPad, q) && gst_pad_peer_query(sinkPad, up)) {
        GstClockTime min = 0, upMin = 0;
        gst_query_parse_latency(q, nullptr, &min, nullptr);
        gst_query_parse_latency(up, nullptr, &upMin, nullptr);
        run.ownLatency = min - upMin;
    }
    gst_query_unref(q);
    gst_query_unref(up);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    {
        std::lock_guard<std::mutex> guard(arrivals.lock);
        if (arrivals.addedMs.size() > 5) run.addedMs.assign(arrivals.addedMs.begin() + 5, arrivals.addedMs.end());
    }
    gst_object_unref(sinkPad);
    gst_object_unref(srcPad);
    gst_object_unref(x);
    gst_object_unref(pipeline);
    return run;
}

// videotestsrc is-live=true ! GRAY8 640x360 30 fps ! element ! fakesink: the time from a frame's arrival to its push
// is the element's processing time (measured beside it: the same frames non-live at depth 1) plus at most 2 ms at the
// median and 5 ms at the 95th percentile, at depths 1, 2 and 4; the LATENCY answer covers the processing time and
// stays under a frame period. The sink does not sync: a syncing sink holds each frame until its render time, which
// with a live source's one-frame latency comes after the next frame arrives — any element that pushes from a thread
// of its own (a queue too) then counts that hold; what a viewer sees is the LATENCY answer.
TEST(LiveLatency, IsTheProcessingTimeAtEveryDepth) {
    struct Pair {
        double procMedian = 0, procP95 = 0;  // the same frames non-live at depth 1
        LatencyRun live;
    };
    for (const ElementCase& element : kElements) {
        for (int depth : {1, 2, 4}) {
            // Each attempt measures the processing time right before the live run, so that both see the same load,
            // and the best of up to three pairs counts: a 2-core machine busy with other work (a build, package
            // unpacking) delays a thread's wake-up now and then by more than the margins. An element that holds
            // frames misses them in every pair.
            const auto measurePair = [&] {
                Pair pair;
                const LatencyRun processing = measureLatency(element, 1, false, 120);
                if (!processing.addedMs.empty()) {
                    pair.procMedian = percentile(processing.addedMs, 0.5);
                    pair.procP95 = percentile(processing.addedMs, 0.95);
                }
                pair.live = measureLatency(element, depth, true, 60);
                return pair;
            };
            const auto excess = [](const Pair& p) {  // > 0: over a margin by that many ms
                if (p.live.addedMs.size() <= 40u) return 1e9;
                return std::max(percentile(p.live.addedMs, 0.5) - (p.procMedian + 2.0),
                                percentile(p.live.addedMs, 0.95) - (p.procP95 + 5.0));
            };
            Pair best = measurePair();
            for (int attempt = 1; attempt < 3 && excess(best) > 0; ++attempt) {
                Pair again = measurePair();
                if (excess(again) < excess(best)) best = std::move(again);
            }
            const LatencyRun& live = best.live;
            ASSERT_GT(live.addedMs.size(), 40u) << describe(element);
            const double median = percentile(live.addedMs, 0.5), p95 = percentile(live.addedMs, 0.95);
            std::printf("[ live latency ] %s %s depth %d: added %.2f ms median, %.2f ms p95 (processing %.2f / %.2f "
                        "ms); LATENCY answer %.2f ms\n",
                        testBackend().c_str(), describe(element).c_str(), depth, median, p95, best.procMedian,
                        best.procP95, double(live.ownLatency) / 1e6);
            if (underSanitizer()) continue;  // the sanitizer's cost, not the element's
            EXPECT_LE(median, best.procMedian + 2.0) << describe(element) << " depth " << depth;
            EXPECT_LE(p95, best.procP95 + 5.0) << describe(element) << " depth " << depth;
            EXPECT_GE(double(live.ownLatency) / 1e6, best.procMedian) << describe(element) << " depth " << depth;
            EXPECT_LE(live.ownLatency, kFrame30) << describe(element) << " depth " << depth;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The CPU backend pipelines: frames in flight are filtered side by side on its workers. Timed on work the backend
// does on one thread per frame: a non-separable 5x5 of taps that are not integers over a power of two (the presets
// and integer kernels go to OpenCV functions that spread a frame over the cores) on a strip of 31 rows, too few to
// be split into bands of rows.
constexpr const char* kNonSeparable5x5 =
    "kernel=0 0.3 0.3 0.3 0; 0.3 0.7 0.7 0.7 0.3; 0.3 0.7 1.1 0.7 0.3; 0.3 0.7 0.7 0.7 0.3; 0 0.3 0.3 0.3 0";
constexpr int kStripWidth = 7680, kStripHeight = 31;

double cpuFramesPerSecond(int depth, const GstVideoInfo& info, GstBuffer* frame, int frames) {
    GstHarness* h = makeHarness("cudaconvolve", {"backend=cpu", kNonSeparable5x5}, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", info.width, info.height).c_str());
    gst_harness_set_blocking_push_mode(h);  // a push downstream returns once the frame is pulled, as into a sink
    constexpr int kWarmUp = 4;              // negotiation, pools, the slots' first frames
    std::chrono::steady_clock::time_point start;
    std::thread puller([&] {
        for (int i = 0; i < kWarmUp + frames; ++i) {
            if (i == kWarmUp) start = std::chrono::steady_clock::now();
            gst_buffer_unref(gst_harness_pull(h));
        }
    });
    for (int i = 0; i < kWarmUp + frames; ++i) gst_harness_push(h, gst_buffer_ref(frame));
    puller.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gst_harness_teardown(h);
    return frames / seconds;
}

TEST(CpuPipelining, DepthTwoFiltersTwoFramesAtOnce) {
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: nothing to overlap on";
    const GstVideoInfo info = videoInfo("GRAY8", kStripWidth, kStripHeight);
    GstBuffer* frame = randomFrame(info, 3, 0);
    double one = 0, two = 0;
    for (int run = 0; run < 3; ++run) {
        one = std::max(one, cpuFramesPerSecond(1, info, frame, 600));
        two = std::max(two, cpuFramesPerSecond(2, info, frame, 600));
    }
    gst_buffer_unref(frame);
    std::printf("[ cpu pipelining ] %dx%d non-separable 5x5: depth 1 %.0f fps, depth 2 %.0f fps (%.2fx) on %u cores\n",
                kStripWidth, kStripHeight, one, two, two / one, std::thread::hardware_concurrency());
    if (underSanitizer()) GTEST_SKIP() << "throughput is not compared under a sanitizer";
    // The figure (1.6x on 2 cores) is measured alone (docs/performance.md); beside the other suites that CI
    // runs at the same time a smaller margin still shows two frames filtered at once.
    EXPECT_GE(two, 1.25 * one);
}

}  // namespace
}  // namespace elementtest
