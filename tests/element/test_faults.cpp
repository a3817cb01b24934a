// SPDX-License-Identifier: LGPL-2.1-or-later
// Fault injection through the executors' test seam (CUDAFILTERS_TEST_INJECT_FAULT="<call>@<frame>[:fatal]"). The
// seam fails the named call on whichever executor runs (CUDA on the GPU host, the CPU executor elsewhere), so these
// run on CPU-only CI too:
//  * backend=auto: the element continues on a fresh CPU executor with a bus WARNING naming the call; frames in ==
//    frames out, in order, none lost or duplicated, every pixel as the reference;
//  * backend=cuda (cpu on CPU-only CI) or a ":fatal" fault: GST_ELEMENT_ERROR naming the call, the push fails, and
//    the element goes to NULL and back to PLAYING and then filters correctly.
#include "element_harness.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/presets.hpp>

#include <functional>
#include <tuple>

using namespace elementtest;

namespace {

constexpr GstClockTime kFrame = GST_SECOND / 30;
constexpr int kWidth = 77, kHeight = 41;
constexpr int kFrames = 10;
constexpr int kFaultFrame = 3;

const std::vector<std::string> kCalls = {"alloc", "stream", "upload", "launch", "download", "sync"};

// What each seam name stands for in the error text (the CUDA call the executor makes there).
std::string callText(const std::string& call) {
    if (call == "alloc") return "cudaMalloc";
    if (call == "stream") return "cudaStreamCreate";
    if (call == "upload") return "cudaMemcpy2DAsync (upload)";
    if (call == "launch") return "cudaLaunchKernel";
    if (call == "download") return "cudaMemcpy2DAsync (download)";
    return "cudaEventSynchronize";
}

// Plane 0 of a single-plane frame as a host image.
HostImage inputPlane(GstBuffer* input, const GstVideoInfo& info) {
    GstVideoFrame in;
    gst_video_frame_map(&in, &info, input, GST_MAP_READ);
    HostImage src = planeImage(in, 0, 1);
    gst_video_frame_unmap(&in);
    return src;
}

// The element's output for `input`, computed by the engine's reference.
HostImage expected(const std::string& factory, GstBuffer* input, const GstVideoInfo& info) {
    HostImage src = inputPlane(input, info);
    HostImage out = src;
    if (factory == "cudaconvolve") {
        reference::makeConvolver(ConvolvePlan::make(presetDesc(Preset::SobelX, 3), SampleType::U8, 1))
            ->process(src.view(), out.view());
    } else {
        EqualizeDesc desc;
        desc.mode = EqualizeMode::Clahe;
        desc.tilesX = 3;
        desc.tilesY = 2;
        reference::makeEqualizer(EqualizePlan::make(desc, SampleType::U8, 1))->process(src.view(), out.view());
    }
    return out;
}

std::vector<std::string> props(const std::string& factory, const std::string& backend) {
    std::vector<std::string> p = {"backend=" + backend};
    if (factory == "cudaconvolve") p.push_back("preset=sobel-x");
    else p.insert(p.end(), {"mode=clahe", "tiles-x=3", "tiles-y=2"});
    return p;
}

double difference(GstBuffer* output, const GstVideoInfo& info, const HostImage& want) {
    GstVideoFrame out;
    gst_video_frame_map(&out, &info, output, GST_MAP_READ);
    HostImage got = planeImage(out, 0, 1);
    gst_video_frame_unmap(&out);
    return cudafilters::test::compareImages(got, want).maxAbs;
}

// Sets the seam for the element started while it lives (the seam is read at start).
class ScopedFault {
public:
    explicit ScopedFault(const std::string& spec) { g_setenv("CUDAFILTERS_TEST_INJECT_FAULT", spec.c_str(), TRUE); }
    ~ScopedFault() { g_unsetenv("CUDAFILTERS_TEST_INJECT_FAULT"); }
};

bool contains(const std::vector<GstMessage*>& messages, const std::string& what) {
    for (GstMessage* m : messages)
        if (messageText(m).find(what) != std::string::npos) return true;
    return false;
}

std::string allText(const std::vector<GstMessage*>& messages) {
    std::string s;
    for (GstMessage* m : messages) s += messageText(m) + "\n";
    return s;
}

void unrefMessages(std::vector<GstMessage*>& messages) {
    for (GstMessage* m : messages) gst_message_unref(m);
    messages.clear();
}

// Pushes frames [first, first + count) and checks every output against the reference; returns outputs seen.
void pushAndCheck(GstHarness* h, const std::string& factory, const GstVideoInfo& info, int first, int count) {
    std::vector<GstBuffer*> inputs, outputs;
    for (int i = first; i < first + count; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(1000 + i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK) << "frame " << i;
    }
    outputs = finish(h);
    ASSERT_EQ(outputs.size(), inputs.size()) << "frames in == frames out";
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GST_BUFFER_PTS(inputs[i])) << "in order, none lost or duplicated";
        EXPECT_EQ(difference(outputs[i], info, expected(factory, inputs[i], info)), 0) << "frame " << first + int(i);
    }
    unrefAll(inputs);
    unrefAll(outputs);
}

// ---------------------------------------------------------------------------------------------------------------
// backend=auto: a fault at frame 3 switches to the CPU; no frame lost, duplicated or wrong.

using FallbackParam = std::tuple<std::string, std::string, int>;  // factory, call, depth
class AutoFallback : public ::testing::TestWithParam<FallbackParam> {};

TEST_P(AutoFallback, SwitchesToCpuWithWarningAndKeepsEveryFrame) {
    const auto& [factory, call, depth] = GetParam();
    const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
    ScopedFault fault(call + "@" + std::to_string(kFaultFrame));
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness(factory.c_str(), props(factory, "auto"), depth, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    std::vector<GstBuffer*> inputs, outputs;
    for (int i = 0; i < kFrames; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame));
        GST_BUFFER_OFFSET(inputs.back()) = guint64(i);
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK) << "frame " << i;
        while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    }
    outputs = finish(h, outputs);
    ASSERT_EQ(outputs.size(), std::size_t(kFrames)) << "frames in == frames out";
    for (int i = 0; i < kFrames; ++i) {
        GstBuffer* out = outputs[std::size_t(i)];
        EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * kFrame) << "no frame lost or duplicated";
        EXPECT_EQ(GST_BUFFER_OFFSET(out), guint64(i));
        EXPECT_EQ(difference(out, info, expected(factory, inputs[std::size_t(i)], info)), 0) << "frame " << i;
    }
    gchar* active = nullptr;
    g_object_get(h->element, "active-backend", &active, nullptr);
    EXPECT_STREQ(active, "cpu");
    g_free(active);
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_TRUE(errors.empty()) << allText(errors);
    EXPECT_TRUE(contains(warnings, callText(call))) << allText(warnings);
    EXPECT_TRUE(contains(warnings, "continues on the CPU")) << allText(warnings);
    // One warning for the fault (plus, without a device, the one at start).
    EXPECT_EQ(warnings.size(), cudaDeviceCount() > 0 ? 1u : 2u) << allText(warnings);
    unrefMessages(warnings);
    unrefMessages(errors);
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

INSTANTIATE_TEST_SUITE_P(Calls, AutoFallback,
                         ::testing::Combine(::testing::Values(std::string("cudaconvolve"), std::string("cudahisteq")), ::testing::ValuesIn(kCalls),
                                            ::testing::Values(1, 3)),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_depth" +
                                    std::to_string(std::get<2>(info.param));
                         });

// A fault at negotiation (allocation or stream creation in configure, frame 0): auto still runs every frame.
TEST(AutoFallbackAtNegotiation, AllocAndStreamAtFirstConfigure) {
    for (const char* call : {"alloc", "stream"}) {
        SCOPED_TRACE(call);
        const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
        ScopedFault fault(std::string(call) + "@0");
        GstBus* bus = gst_bus_new();
        GstHarness* h = makeHarness("cudaconvolve", props("cudaconvolve", "auto"), 2, bus);
        gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
        pushAndCheck(h, "cudaconvolve", info, 0, 6);
        std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
        EXPECT_TRUE(contains(warnings, callText(call))) << allText(warnings);
        unrefMessages(warnings);
        gst_harness_teardown(h);
        gst_object_unref(bus);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Fatal: backend=cuda (cpu on CPU-only CI: the seam fails the CPU executor the same way), or ":fatal" with auto.

using FatalParam = std::tuple<std::string, bool>;  // call, fatal suffix (backend=auto) rather than a fixed backend
class FatalFault : public ::testing::TestWithParam<FatalParam> {};

TEST_P(FatalFault, PostsElementErrorNamingTheCallThenRestarts) {
    const auto& [call, fatalSuffix] = GetParam();
    const std::string factory = "cudaconvolve";
    const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
    const std::string backend = fatalSuffix ? "auto" : testBackend();
    GstBus* bus = gst_bus_new();
    GstHarness* h = nullptr;
    {
        ScopedFault fault(call + "@" + std::to_string(kFaultFrame) + (fatalSuffix ? ":fatal" : ""));
        h = makeHarness(factory.c_str(), props(factory, backend), 2, bus);
        gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
        GstFlowReturn ret = GST_FLOW_OK;
        int pushed = 0;
        for (; pushed < kFrames && ret == GST_FLOW_OK; ++pushed)
            ret = gst_harness_push(h, randomFrame(info, std::uint32_t(pushed), GstClockTime(pushed) * kFrame));
        EXPECT_EQ(ret, GST_FLOW_ERROR);
        // The fault is at frame 3's submit; or (sync) when the output task completes frame 3, which the push of one
        // of the next frames (at depth 2) then returns.
        if (call == "sync") {
            EXPECT_GE(pushed - 1, kFaultFrame + 1);
            EXPECT_LE(pushed - 1, kFaultFrame + 2);
        } else {
            EXPECT_EQ(pushed - 1, kFaultFrame);
        }
        // Stops cleanly.
        EXPECT_EQ(gst_element_set_state(h->element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
        std::vector<GstBuffer*> outputs;
        while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
        EXPECT_LE(outputs.size(), std::size_t(kFaultFrame)) << "no frame after the failed one leaves";
        for (std::size_t i = 0; i < outputs.size(); ++i) EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GstClockTime(i) * kFrame);
        unrefAll(outputs);
        std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
        ASSERT_EQ(errors.size(), 1u) << allText(errors);
        EXPECT_TRUE(contains(errors, "CUDA failed in " + callText(call))) << allText(errors);
        unrefMessages(errors);
        gchar* active = nullptr;
        g_object_get(h->element, "active-backend", &active, nullptr);
        EXPECT_STREQ(active, "none");
        g_free(active);
    }
    // Back to PLAYING without the fault: it filters every frame again.
    ASSERT_NE(gst_element_set_state(h->element, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    pushAndCheck(h, factory, info, 100, 8);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_TRUE(errors.empty()) << allText(errors);
    unrefMessages(errors);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

INSTANTIATE_TEST_SUITE_P(Calls, FatalFault, ::testing::Combine(::testing::ValuesIn(kCalls), ::testing::Bool()),
                         [](const auto& info) {
                             return std::get<0>(info.param) + (std::get<1>(info.param) ? "_fatal" : "_backend");
                         });

// A fatal fault at negotiation: the caps are refused with an error naming the call. GstBaseTransform negotiates
// again with the next buffer (the one-shot fault is spent): whatever leaves then is filtered correctly, never a
// frame of a half-configured executor.
TEST(FatalFaultAtNegotiation, AllocAtFirstConfigureFailsNegotiation) {
    ScopedFault fault("alloc@0:fatal");
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", props("cudaconvolve", "auto"), 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 3; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame));
        gst_harness_push(h, gst_buffer_ref(inputs.back()));
    }
    std::vector<GstBuffer*> outputs = finish(h);
    for (GstBuffer* out : outputs) {
        const std::size_t i = std::size_t(GST_BUFFER_PTS(out) / kFrame);
        ASSERT_LT(i, inputs.size());
        EXPECT_EQ(difference(out, info, expected("cudaconvolve", inputs[i], info)), 0) << "frame " << i;
    }
    unrefAll(inputs);
    unrefAll(outputs);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_TRUE(contains(errors, "cudaMalloc")) << allText(errors);
    unrefMessages(errors);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(FaultSeam, MalformedSpecFailsToStart) {
    ScopedFault fault("teleport@3");
    GstElement* element = gst_element_factory_make("cudaconvolve", nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(element, bus);
    gst_util_set_object_arg(G_OBJECT(element), "preset", "box");
    EXPECT_EQ(gst_element_set_state(element, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_TRUE(contains(errors, "CUDAFILTERS_TEST_INJECT_FAULT")) << allText(errors);
    unrefMessages(errors);
    gst_element_set_state(element, GST_STATE_NULL);
    gst_object_unref(element);
    gst_object_unref(bus);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Failures while building the filter for new settings (the seam's `build` point, in make_work), and a failure while
// the current settings are invalid.

namespace {

HostImage boxExpected(GstBuffer* input, const GstVideoInfo& info) {
    HostImage src = inputPlane(input, info);
    HostImage out = src;
    reference::makeConvolver(ConvolvePlan::make(presetDesc(Preset::Box, 5), SampleType::U8, 1))
        ->process(src.view(), out.view());
    return out;
}

// Pushes kFrames random frames (seeds from `seed`), calling `before(i)` ahead of frame i and pulling whatever
// leaves; stops at the first push that fails and returns its result.
GstFlowReturn pushFrames(GstHarness* h, const GstVideoInfo& info, std::uint32_t seed,
                         const std::function<void(int)>& before, std::vector<GstBuffer*>& inputs,
                         std::vector<GstBuffer*>& outputs) {
    for (int i = 0; i < kFrames; ++i) {
        before(i);
        inputs.push_back(randomFrame(info, seed + std::uint32_t(i), GstClockTime(i) * kFrame));
        const GstFlowReturn ret = gst_harness_push(h, gst_buffer_ref(inputs.back()));
        while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
        if (ret != GST_FLOW_OK) return ret;
    }
    return GST_FLOW_OK;
}

// The bus holds no error, and warnings that name each of `needles`.
void expectWarningsOnly(GstBus* bus, std::initializer_list<const char*> needles) {
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_TRUE(errors.empty()) << allText(errors);
    for (const char* needle : needles) EXPECT_TRUE(contains(warnings, needle)) << needle << "\n" << allText(warnings);
    unrefMessages(warnings);
    unrefMessages(errors);
}

}  // namespace

// backend=auto: sobel-x for frames 0-2, then a live change to a 5x5 box whose build fails: the element continues on
// the CPU with the new settings, every frame out, in order, exact.
TEST(LiveChangeFault, BuildFailureWithAutoContinuesOnTheCpuWithTheNewSettings) {
    for (int depth : {1, 2, 3}) {
        SCOPED_TRACE("depth " + std::to_string(depth));
        const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
        ScopedFault fault("build@3");
        GstBus* bus = gst_bus_new();
        GstHarness* h = makeHarness("cudaconvolve", props("cudaconvolve", "auto"), depth, bus);
        gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
        std::vector<GstBuffer*> inputs, outputs;
        const auto changeToBox = [h](int i) {
            if (i != kFaultFrame) return;
            gst_util_set_object_arg(G_OBJECT(h->element), "size", "5");
            gst_util_set_object_arg(G_OBJECT(h->element), "preset", "box");
        };
        ASSERT_EQ(pushFrames(h, info, 50, changeToBox, inputs, outputs), GST_FLOW_OK);
        outputs = finish(h, outputs);
        ASSERT_EQ(outputs.size(), std::size_t(kFrames)) << "frames in == frames out";
        for (int i = 0; i < kFrames; ++i) {
            GstBuffer* out = outputs[std::size_t(i)];
            EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * kFrame) << "in order";
            const HostImage want = i < kFaultFrame ? expected("cudaconvolve", inputs[std::size_t(i)], info)
                                                   : boxExpected(inputs[std::size_t(i)], info);
            EXPECT_EQ(difference(out, info, want), 0) << "frame " << i;
        }
        gchar* active = nullptr;
        g_object_get(h->element, "active-backend", &active, nullptr);
        EXPECT_STREQ(active, "cpu");
        g_free(active);
        expectWarningsOnly(bus, {"engine objects for new settings", "continues on the CPU"});
        unrefAll(inputs);
        unrefAll(outputs);
        gst_harness_teardown(h);
        gst_object_unref(bus);
    }
}

// A fixed backend: the failed build is an element error naming the call; the frames before it leave correct.
TEST(LiveChangeFault, BuildFailureWithFixedBackendPostsAnErrorNamingTheCall) {
    const GstVideoInfo info = videoInfo("GRAY8", kWidth, kHeight);
    ScopedFault fault("build@3");
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", props("cudaconvolve", testBackend()), 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    std::vector<GstBuffer*> inputs, outputs;
    const auto changeToBox = [h](int i) {
        if (i == kFaultFrame) gst_util_set_object_arg(G_OBJECT(h->element), "preset", "box");
    };
    EXPECT_EQ(pushFrames(h, info, 80, changeToBox, inputs, outputs), GST_FLOW_ERROR);
    EXPECT_EQ(inputs.size(), std::size_t(kFaultFrame + 1)) << "the push that met the changed settings fails";
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        EXPECT_EQ(GST_BUFFER_PTS(outputs[k]), GstClockTime(k) * kFrame);
        EXPECT_EQ(difference(outputs[k], info, expected("cudaconvolve", inputs[k], info)), 0) << "frame " << k;
    }
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    ASSERT_EQ(errors.size(), 1u) << allText(errors);
    EXPECT_TRUE(contains(errors, "CUDA failed in cudaMalloc (engine objects for new settings)")) << allText(errors);
    unrefMessages(errors);
    unrefAll(inputs);
    unrefAll(outputs);
    EXPECT_EQ(gst_element_set_state(h->element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

// The settings become invalid (a 16-bit CLAHE grid beyond the table limit: kept with a warning), then the upload
// fails: backend=auto continues on the CPU from the last valid settings (the 3x2 grid), never with the objects
// built for CUDA, and every frame is exact.
TEST(LiveChangeFault, FallbackWhileTheCurrentSettingsAreInvalidUsesTheLastValidOnes) {
    const GstVideoInfo info = videoInfo("GRAY16_LE", kWidth, kHeight);
    ScopedFault fault("upload@5");
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudahisteq", props("cudahisteq", "auto"), 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY16_LE", kWidth, kHeight).c_str());
    std::vector<GstBuffer*> inputs, outputs;
    const auto invalidGrid = [h](int i) {
        if (i != 3) return;
        gst_util_set_object_arg(G_OBJECT(h->element), "tiles-x", "40");
        gst_util_set_object_arg(G_OBJECT(h->element), "tiles-y", "40");
    };
    ASSERT_EQ(pushFrames(h, info, 300, invalidGrid, inputs, outputs), GST_FLOW_OK);
    outputs = finish(h, outputs);
    ASSERT_EQ(outputs.size(), std::size_t(kFrames));
    EqualizeDesc desc;
    desc.mode = EqualizeMode::Clahe;
    desc.tilesX = 3;
    desc.tilesY = 2;
    auto reference = reference::makeEqualizer(EqualizePlan::make(desc, SampleType::U16, 1));
    for (int i = 0; i < kFrames; ++i) {
        HostImage src = inputPlane(inputs[std::size_t(i)], info);
        HostImage want = src;
        reference->process(src.view(), want.view());
        EXPECT_EQ(GST_BUFFER_PTS(outputs[std::size_t(i)]), GstClockTime(i) * kFrame);
        EXPECT_EQ(difference(outputs[std::size_t(i)], info, want), 0) << "frame " << i;
    }
    expectWarningsOnly(bus, {"keeping the previous ones", "continues on the CPU"});
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

namespace elementtest {
namespace {

// A CUDA failure while the frames are in CUDA memory (output to a downstream that takes it): backend=auto redoes the
// frames in flight on the CPU through host mappings of the same CUDA memory, and none is lost or wrong.
TEST(CudaMemoryFault, FallbackWithFramesInCudaMemoryKeepsEveryFrame) {
    if (!cudaRequested() || cudaDeviceCount() == 0) GTEST_SKIP() << "needs CUDAFILTERS_TEST_BACKEND=cuda and a device";
    for (const char* call : {"launch", "download", "sync"}) {
        SCOPED_TRACE(call);
        const GstVideoInfo info = videoInfo("NV12", 322, 180);
        ScopedFault fault(std::string(call) + "@3");
        GstBus* bus = gst_bus_new();
        GstHarness* h = makeHarness("cudaconvolve", props("cudaconvolve", "auto"), 3, bus);
        gst_harness_set_src_caps_str(h, capsString("NV12", 322, 180).c_str());
        gst_harness_set_sink_caps_str(h, "video/x-raw(memory:CUDAMemory),format=NV12,width=322,height=180");
        std::vector<GstBuffer*> inputs, outputs;
        for (int i = 0; i < 8; ++i) {
            inputs.push_back(randomFrame(info, std::uint32_t(40 + i), GstClockTime(i) * kFrame));
            ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK) << "frame " << i;
            while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
        }
        outputs = finish(h, outputs);
        ASSERT_EQ(outputs.size(), inputs.size());
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GstClockTime(i) * kFrame);
            EXPECT_TRUE(gst_memory_is_type(gst_buffer_peek_memory(outputs[i], 0), "gst.cuda.memory")) << "frame " << i;
            EXPECT_EQ(difference(outputs[i], info, expected("cudaconvolve", inputs[i], info)), 0) << "frame " << i;
        }
        std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
        EXPECT_TRUE(errors.empty()) << allText(errors);
        unrefMessages(errors);
        unrefAll(inputs);
        unrefAll(outputs);
        gst_harness_teardown(h);
        gst_object_unref(bus);
    }
}

}  // namespace
}  // namespace elementtest
