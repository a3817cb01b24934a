// SPDX-License-Identifier: LGPL-2.1-or-later
// Concurrency: properties changed from several threads while frames stream, caps renegotiated under load, state
// changes racing with the streaming thread. Every output frame must equal the reference for one whole configuration
// that the setters could have produced (never a torn mix of two), and frames in == frames out wherever nothing
// flushes. Run under ThreadSanitizer by scripts/tsan.sh. CUDAFILTERS_STRESS=<n> multiplies the iterations.
#include "element_harness.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/kernel_text.hpp>
#include <cudafilters/presets.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <thread>

using namespace elementtest;

namespace {

constexpr GstClockTime kFrame = GST_SECOND / 30;

int stress() {
    const char* s = std::getenv("CUDAFILTERS_STRESS");
    const int n = s ? std::atoi(s) : 1;
    return n > 0 ? n : 1;
}

// One configuration a frame may have been filtered with, and the reference that computes it.
struct Candidate {
    std::string name;
    std::function<void(HostImage&, HostImage&)> apply;
};

// --- cudaconvolve: kernel text (two kernels or none) × preset × size × sigma, set from different threads. ------
const char* const kKernelA = "1 0 -1; 2 0 -2; 1 0 -1";
const char* const kKernelB = "0 1 0; 1 2 1; 0 1 0";

std::vector<Candidate> convolveCandidates() {
    std::vector<Candidate> c;
    auto add = [&](std::string name, ConvolveDesc desc) {
        auto conv = std::shared_ptr<Convolver>(reference::makeConvolver(ConvolvePlan::make(desc, SampleType::U8, 1)));
        c.push_back({std::move(name), [conv](HostImage& src, HostImage& dst) { conv->process(src.view(), dst.view()); }});
    };
    for (const char* k : {kKernelA, kKernelB}) {
        ConvolveDesc desc;
        desc.kernels = parseKernelText(k);
        add(k, desc);
    }
    for (Preset p : {Preset::Box, Preset::Gaussian})
        for (int size : {3, 5})
            for (double sigma : {0.0, 1.5}) {
                if (p == Preset::Box && sigma != 0) continue;  // box ignores sigma
                add(std::string(p == Preset::Box ? "box" : "gaussian") + std::to_string(size) + "/" +
                        std::to_string(sigma),
                    presetDesc(p, size, sigma));
            }
    return c;
}

// --- cudahisteq: mode × clip-limit × tiles-x × tiles-y (smoothing 0: every frame on its own). -------------------
std::vector<Candidate> histeqCandidates() {
    std::vector<Candidate> c;
    auto add = [&](std::string name, EqualizeDesc desc) {
        std::shared_ptr<Equalizer> eq(reference::makeEqualizer(EqualizePlan::make(desc, SampleType::U8, 1)));
        c.push_back({std::move(name), [eq](HostImage& src, HostImage& dst) {
                         eq->reset();
                         eq->process(src.view(), dst.view());
                     }});
    };
    add("global", EqualizeDesc{});
    for (double clip : {2.0, 4.0})
        for (int tx : {2, 4})
            for (int ty : {2, 4}) {
                EqualizeDesc d;
                d.mode = EqualizeMode::Clahe;
                d.clipLimit = clip;
                d.tilesX = tx;
                d.tilesY = ty;
                add("clahe/" + std::to_string(clip) + "/" + std::to_string(tx) + "x" + std::to_string(ty), d);
            }
    return c;
}

HostImage grayPlane(GstBuffer* buffer, int width, int height) {
    const GstVideoInfo info = videoInfo("GRAY8", width, height);
    GstVideoFrame frame;
    EXPECT_TRUE(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ));
    HostImage image = planeImage(frame, 0, 1);
    gst_video_frame_unmap(&frame);
    return image;
}

// Which candidate the whole output frame equals (±1), or "" when none: a torn or wrong frame.
std::string matchCandidate(const std::vector<Candidate>& candidates, HostImage& src, const HostImage& got) {
    for (const Candidate& c : candidates) {
        HostImage want = src;
        c.apply(src, want);
        if (cudafilters::test::compareImages(got, want).maxAbs <= 1) return c.name;
    }
    return "";
}

// Property setters: each thread owns some properties and sets them to random allowed values until stopped.
class Setters {
public:
    using Step = std::function<void(GstElement*, std::mt19937&)>;
    Setters(GstElement* element, std::vector<Step> steps) : each_(steps.size()) {
        for (std::size_t i = 0; i < steps.size(); ++i)
            threads_.emplace_back([this, element, step = steps[i], i] {
                std::mt19937 rng(std::uint32_t(1234 + i));
                while (!stop_.load(std::memory_order_relaxed)) {
                    step(element, rng);
                    each_[i].fetch_add(1, std::memory_order_relaxed);
                    std::this_thread::yield();
                }
            });
    }
    ~Setters() { stop(); }
    void stop() {
        stop_ = true;
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
    }
    long changes() const {
        long sum = 0;
        for (const auto& n : each_) sum += n.load();
        return sum;
    }
    // The fewest steps any one thread has taken: when it grows, every setter has run again (on a loaded machine a
    // thread can go unscheduled while the others take many steps).
    long fewestPerThread() const {
        long fewest = each_.empty() ? 0 : each_[0].load();
        for (const auto& n : each_) fewest = std::min(fewest, n.load());
        return fewest;
    }

private:
    std::atomic<bool> stop_{false};
    std::vector<std::atomic<long>> each_;
    std::vector<std::thread> threads_;
};

std::vector<Setters::Step> convolveSteps() {
    return {
        [](GstElement* e, std::mt19937& rng) {
            const char* texts[] = {"", "", kKernelA, kKernelB};
            g_object_set(e, "kernel", texts[rng() % 4], nullptr);
        },
        [](GstElement* e, std::mt19937& rng) {
            gst_util_set_object_arg(G_OBJECT(e), "preset", rng() % 2 ? "box" : "gaussian");
        },
        [](GstElement* e, std::mt19937& rng) { g_object_set(e, "size", rng() % 2 ? 3 : 5, nullptr); },
        [](GstElement* e, std::mt19937& rng) { g_object_set(e, "sigma", rng() % 2 ? 0.0 : 1.5, nullptr); },
        // Readers: every property, the latency query, and settings that apply only at the next start.
        [](GstElement* e, std::mt19937& rng) {
            gchar* kernel = nullptr;
            gchar* active = nullptr;
            int size = 0, depth = 0;
            double sigma = 0;
            g_object_get(e, "kernel", &kernel, "size", &size, "sigma", &sigma, "active-backend", &active,
                         "pipeline-depth", &depth, nullptr);
            g_free(kernel);
            g_free(active);
            g_object_set(e, "pipeline-depth", int(1 + rng() % 4), nullptr);
            GstQuery* q = gst_query_new_latency();
            gst_element_query(e, q);
            gst_query_unref(q);
        },
    };
}

std::vector<Setters::Step> histeqSteps() {
    return {
        [](GstElement* e, std::mt19937& rng) { gst_util_set_object_arg(G_OBJECT(e), "mode", rng() % 2 ? "global" : "clahe"); },
        [](GstElement* e, std::mt19937& rng) { g_object_set(e, "clip-limit", rng() % 2 ? 2.0 : 4.0, nullptr); },
        [](GstElement* e, std::mt19937& rng) { g_object_set(e, "tiles-x", rng() % 2 ? 2 : 4, nullptr); },
        [](GstElement* e, std::mt19937& rng) { g_object_set(e, "tiles-y", rng() % 2 ? 2 : 4, nullptr); },
        [](GstElement* e, std::mt19937&) {
            double clip = 0;
            int tx = 0;
            g_object_get(e, "clip-limit", &clip, "tiles-x", &tx, nullptr);
        },
    };
}

struct ElementCase {
    const char* factory;
    std::vector<std::string> initial;
    std::vector<Candidate> (*candidates)();
    std::vector<Setters::Step> (*steps)();
};

const ElementCase& elementCase(const std::string& factory) {
    static const ElementCase convolve{"cudaconvolve", {"preset=box", "size=3"}, convolveCandidates, convolveSteps};
    static const ElementCase histeq{"cudahisteq", {"mode=global", "clip-limit=2", "tiles-x=2", "tiles-y=2"},
                                    histeqCandidates, histeqSteps};
    return factory == "cudaconvolve" ? convolve : histeq;
}

// Checks every output against its input (by PTS) and the candidates; returns how many distinct ones were seen.
std::size_t checkOutputs(const std::vector<Candidate>& candidates, const std::map<GstClockTime, GstBuffer*>& inputs,
                         const std::vector<GstBuffer*>& outputs, const std::map<GstClockTime, std::pair<int, int>>& sizes) {
    std::set<std::string> seen;
    int bad = 0;
    for (GstBuffer* out : outputs) {
        const GstClockTime pts = GST_BUFFER_PTS(out);
        const auto in = inputs.find(pts);
        if (in == inputs.end()) {
            ADD_FAILURE() << "output with unknown PTS " << pts;
            continue;
        }
        const auto [w, h] = sizes.at(pts);
        HostImage src = grayPlane(in->second, w, h), got = grayPlane(out, w, h);
        const std::string name = matchCandidate(candidates, src, got);
        if (name.empty() && ++bad <= 5) {
            std::string diffs;
            for (const Candidate& c : candidates) {
                HostImage want = src;
                c.apply(src, want);
                diffs += " " + c.name + ":" + std::to_string(cudafilters::test::compareImages(got, want).maxAbs);
            }
            ADD_FAILURE() << "frame at " << pts / kFrame << " matches no configuration; max |diff| to the input "
                          << cudafilters::test::compareImages(got, src).maxAbs << ", to each:" << diffs;
        }
        seen.insert(name);
    }
    EXPECT_EQ(bad, 0) << "torn or wrong frames";
    return seen.size();
}

// stream-start, caps and segment, as an upstream sends them before its first buffer; false when one is refused.
bool sendStickyEvents(GstHarness* h, const std::string& caps) {
    bool ok = gst_pad_push_event(h->srcpad, gst_event_new_stream_start("concurrency"));
    ok = gst_pad_push_event(h->srcpad, gst_event_new_caps(gst_caps_from_string(caps.c_str()))) && ok;
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    return gst_pad_push_event(h->srcpad, gst_event_new_segment(&segment)) && ok;
}

class Concurrency : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

// Properties set from five threads while the test thread streams frames through (and renegotiates the size every
// 13 frames): every frame is one configuration, frames in == frames out, in order.
TEST_P(Concurrency, PropertyChangesFromThreadsWhileStreamingAndRenegotiating) {
    const auto& [factory, depth] = GetParam();
    const ElementCase& ec = elementCase(factory);
    const std::vector<Candidate> candidates = ec.candidates();
    GstHarness* h = makeHarness(ec.factory, ec.initial, depth);
    const std::pair<int, int> sizes[] = {{64, 48}, {40, 30}, {33, 17}};
    int current = 0;
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 64, 48).c_str());
    gst_harness_play(h);
    const int frames = 300 * stress();
    std::map<GstClockTime, GstBuffer*> inputs;
    std::map<GstClockTime, std::pair<int, int>> sizeOf;
    std::vector<GstBuffer*> outputs;
    long changes = 0;
    {
        Setters setters(h->element, ec.steps());
        for (int i = 0; i < frames; ++i) {
            if (i % 13 == 12) {
                current = (current + 1) % 3;
                gst_harness_set_src_caps_str(h, capsString("GRAY8", sizes[current].first, sizes[current].second).c_str());
            }
            const GstVideoInfo info = videoInfo("GRAY8", sizes[current].first, sizes[current].second);
            GstBuffer* in = randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame);
            inputs[GST_BUFFER_PTS(in)] = gst_buffer_ref(in);
            sizeOf[GST_BUFFER_PTS(in)] = sizes[current];
            ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK) << "frame " << i;
            while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
            // Interleave for sure: every 10 frames, wait until every setter has run again.
            if (i % 10 == 9)
                for (const long seen = setters.fewestPerThread(); setters.fewestPerThread() < seen + 1;)
                    std::this_thread::yield();
        }
        setters.stop();
        changes = setters.changes();
    }
    outputs = finish(h, outputs);
    ASSERT_EQ(outputs.size(), std::size_t(frames)) << "frames in == frames out";
    for (std::size_t i = 0; i < outputs.size(); ++i)
        EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GstClockTime(i) * kFrame) << "order";
    const std::size_t distinct = checkOutputs(candidates, inputs, outputs, sizeOf);
    EXPECT_GE(distinct, 2u) << "the setters changed nothing the frames show";
    RecordProperty("property_changes", std::to_string(changes));
    RecordProperty("configurations_seen", std::to_string(distinct));
    std::printf("[ concurrency ] %s depth %d: %d frames, %ld property changes, %zu configurations seen\n",
                factory.c_str(), depth, frames, changes, distinct);
    for (auto& [pts, b] : inputs) gst_buffer_unref(b);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

// A streaming thread pushes frames without pause while the test thread cycles the element through PAUSED, READY and
// NULL and back to PLAYING and setters change properties. Frames sent while the element is not running are refused
// (flushing), never corrupted: every frame that leaves is correct, none leaves twice. Then a clean run loses none.
TEST_P(Concurrency, StateChangesRacingWithStreaming) {
    const auto& [factory, depth] = GetParam();
    const ElementCase& ec = elementCase(factory);
    const std::vector<Candidate> candidates = ec.candidates();
    GstHarness* h = makeHarness(ec.factory, ec.initial, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 64, 48).c_str());
    gst_harness_play(h);
    const GstVideoInfo info = videoInfo("GRAY8", 64, 48);
    std::mutex inputsMutex;
    std::map<GstClockTime, GstBuffer*> inputs;
    std::atomic<bool> stop{false};
    std::atomic<int> pushed{0}, accepted{0};
    std::vector<GstBuffer*> outputs;

    std::thread streaming([&] {
        bool needEvents = false;
        for (int i = 0; !stop.load(); ++i) {
            // A well-behaved upstream: after a refusal (flushing, or not negotiated after a restart), stream-start,
            // caps and segment again before the next buffer.
            if (needEvents) {
                if (!sendStickyEvents(h, capsString("GRAY8", 64, 48))) {
                    std::this_thread::sleep_for(std::chrono::microseconds(200));
                    --i;
                    continue;
                }
                needEvents = false;
            }
            GstBuffer* in = randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame);
            {
                std::lock_guard<std::mutex> lock(inputsMutex);
                inputs[GST_BUFFER_PTS(in)] = gst_buffer_ref(in);
            }
            pushed.fetch_add(1);
            if (gst_pad_push(h->srcpad, in) == GST_FLOW_OK) accepted.fetch_add(1);
            else needEvents = true;
        }
    });
    const int cycles = 40 * stress();
    {
        Setters setters(h->element, ec.steps());
        const GstState targets[] = {GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_READY, GST_STATE_PLAYING,
                                    GST_STATE_NULL, GST_STATE_PLAYING};
        for (int c = 0; c < cycles; ++c) {
            for (GstState s : targets) {
                EXPECT_NE(gst_element_set_state(h->element, s), GST_STATE_CHANGE_FAILURE) << c;
                while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
                std::this_thread::sleep_for(std::chrono::microseconds(300 + 100 * (c % 7)));
            }
        }
        stop = true;
        streaming.join();
        setters.stop();
    }
    while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    EXPECT_TRUE(gst_pad_push_event(h->srcpad, gst_event_new_eos()));
    while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    EXPECT_LE(outputs.size(), std::size_t(accepted.load()));
    std::set<GstClockTime> unique;
    for (GstBuffer* b : outputs) EXPECT_TRUE(unique.insert(GST_BUFFER_PTS(b)).second) << "frame left twice";
    std::map<GstClockTime, std::pair<int, int>> sizeOf;
    for (auto& [pts, b] : inputs) sizeOf[pts] = {64, 48};
    checkOutputs(candidates, inputs, outputs, sizeOf);
    std::printf("[ concurrency ] %s depth %d: %d state cycles, %d frames pushed, %d accepted, %zu out\n",
                factory.c_str(), depth, cycles, pushed.load(), accepted.load(), outputs.size());
    RecordProperty("state_changes", std::to_string(cycles * 6));
    for (auto& [pts, b] : inputs) gst_buffer_unref(b);
    inputs.clear();
    unrefAll(outputs);

    // Afterwards: a clean run through the same element loses nothing.
    ASSERT_NE(gst_element_set_state(h->element, GST_STATE_NULL), GST_STATE_CHANGE_FAILURE);
    ASSERT_NE(gst_element_set_state(h->element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    ASSERT_TRUE(sendStickyEvents(h, capsString("GRAY8", 64, 48)));
    std::map<GstClockTime, std::pair<int, int>> cleanSizes;
    for (int i = 0; i < 20; ++i) {
        GstBuffer* in = randomFrame(info, std::uint32_t(5000 + i), GstClockTime(5000 + i) * kFrame);
        inputs[GST_BUFFER_PTS(in)] = gst_buffer_ref(in);
        cleanSizes[GST_BUFFER_PTS(in)] = {64, 48};
        ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
    }
    outputs = finish(h);
    EXPECT_EQ(outputs.size(), 20u);
    checkOutputs(candidates, inputs, outputs, cleanSizes);
    for (auto& [pts, b] : inputs) gst_buffer_unref(b);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Elements, Concurrency,
                         ::testing::Combine(::testing::Values(std::string("cudaconvolve"), std::string("cudahisteq")), ::testing::Values(1, 3)),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_depth" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
