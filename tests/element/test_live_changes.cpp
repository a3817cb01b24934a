// SPDX-License-Identifier: LGPL-2.1-or-later
// Settings changed while playing, before every frame: each frame comes out exactly as the engine's reference computes
// it for the settings in force when it was pushed — values taken in place (divisor, bias, absolute, taps of the same
// size), a change that needs new engine objects (kernel size), a change to and from passthrough — and cudahisteq keeps
// its temporal smoothing across a clip-limit ramp instead of starting over.
#include "element_harness.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/kernel_text.hpp>

#include <algorithm>

using namespace elementtest;

namespace {

// Pushes one frame per entry of `settings`, setting those properties ("name=value") just before the frame.
std::vector<GstBuffer*> pushWithChanges(GstHarness* h, const GstVideoInfo& info,
                                        const std::vector<std::vector<std::string>>& settings,
                                        GstBuffer* (*frame)(const GstVideoInfo&, int), std::vector<GstBuffer*>& inputs) {
    std::vector<GstBuffer*> outputs;
    for (std::size_t i = 0; i < settings.size(); ++i) {
        for (const std::string& p : settings[i]) {
            const auto eq = p.find('=');
            gst_util_set_object_arg(G_OBJECT(h->element), p.substr(0, eq).c_str(), p.substr(eq + 1).c_str());
        }
        GstBuffer* in = frame(info, int(i));
        GST_BUFFER_PTS(in) = GstClockTime(i) * GST_SECOND / 30;
        inputs.push_back(gst_buffer_ref(in));
        EXPECT_EQ(gst_harness_push(h, in), GST_FLOW_OK) << "frame " << i;
        while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    }
    return finish(h, outputs);
}

GstBuffer* noiseFrame(const GstVideoInfo& info, int i) { return randomFrame(info, 500u + std::uint32_t(i)); }

// ---------------------------------------------------------------------------------------------------------------
// cudaconvolve

struct ConvolveStep {
    std::string kernel;
    double divisor;  // powers of two (or 0 = auto on power-of-two sums): every backend matches the reference exactly
    double bias;
    bool absolute;
};

// Same-size changes of every scalar and of the taps, a change of kernel size (new engine objects) and back, and a
// change to an identity kernel (passthrough) and back.
const std::vector<ConvolveStep>& convolveSteps() {
    static const std::vector<ConvolveStep> steps = {
        {"1 2 1; 2 4 2; 1 2 1", 0, 0, false},
        {"1 2 1; 2 4 2; 1 2 1", 8, 0, false},
        {"1 2 1; 2 4 2; 1 2 1", 8, 20, false},
        {"-1 0 1; -2 0 2; -1 0 1", 1, 0, false},
        {"-1 0 1; -2 0 2; -1 0 1", 1, 0, true},
        {"-1 0 1; -2 0 2; -1 0 1", 2, 128, false},
        {"0 1 0; 1 -4 1; 0 1 0", 4, -10, true},
        {"1 1 1 1 1; 1 1 1 1 1; 1 1 8 1 1; 1 1 1 1 1; 1 1 1 1 1", 0, 0, false},  // 5x5: rebuilt
        {"1 1 1 1 1; 1 1 1 1 1; 1 1 8 1 1; 1 1 1 1 1; 1 1 1 1 1", 16, 3, false},
        {"0 0 0; 0 1 0; 0 0 0", 0, 0, false},                                    // identity: passthrough
        {"1 2 1; 2 4 2; 1 2 1", 16, -2, true},                                   // 3x3 again
        {"2 0 -2; 4 1 -4; 2 0 -2", 4, 64, false},
    };
    return steps;
}

std::vector<std::vector<std::string>> convolveSettings() {
    std::vector<std::vector<std::string>> settings;
    for (const ConvolveStep& s : convolveSteps())
        settings.push_back({"kernel=" + s.kernel, "divisor=" + std::to_string(s.divisor),
                            "bias=" + std::to_string(s.bias), std::string("absolute=") + (s.absolute ? "true" : "false")});
    return settings;
}

ConvolveDesc stepDesc(const ConvolveStep& s) {
    ConvolveDesc desc;
    desc.kernels = parseKernelText(s.kernel);
    desc.divisor = s.divisor;
    desc.bias = s.bias;
    desc.absolute = s.absolute;
    return desc;
}

class ConvolveLive : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(ConvolveLive, EveryFrameMatchesTheReferenceForItsSettings) {
    const auto& [format, depth] = GetParam();
    const FormatCase& fc = formatCase(format);
    const int width = fc.packed422() ? 38 : 37, height = 23;
    const GstVideoInfo info = videoInfo(format, width, height);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"planes=all"}, depth, bus);
    gst_harness_set_src_caps_str(h, capsString(format, width, height).c_str());

    std::vector<GstBuffer*> inputs;
    std::vector<GstBuffer*> outputs = pushWithChanges(h, info, convolveSettings(), noiseFrame, inputs);
    ASSERT_EQ(outputs.size(), convolveSteps().size()) << "a frame was lost or added";

    for (std::size_t i = 0; i < outputs.size(); ++i) {
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[i], GST_MAP_READ));
        for (std::size_t p = 0; p < fc.planes.size(); ++p) {
            const PlaneSpec& spec = fc.planes[p];
            HostImage src = planeImage(in, int(p), spec.channels);
            HostImage got = planeImage(out, int(p), spec.channels);
            HostImage expected = src;
            ConvolveDesc desc = stepDesc(convolveSteps()[i]);
            desc.channelMask = spec.colorMask;
            if (fc.packed422())
                expected = packedExpected(fc, desc, src, width, true);
            else
                reference::makeConvolver(ConvolvePlan::make(desc, src.type(), spec.channels, fc.bits))
                    ->process(src.view(), expected.view());
            const auto d = cudafilters::test::compareImages(got, expected);
            EXPECT_EQ(d.maxAbs, 0) << format << " depth " << depth << " frame " << i << " ("
                                   << convolveSteps()[i].kernel << ") plane " << p << ": " << describe(d);
        }
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    std::vector<GstMessage*> problems = popMessages(bus, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    for (GstMessage* m : problems) {
        ADD_FAILURE() << "unexpected bus message: " << messageText(m);
        gst_message_unref(m);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

INSTANTIATE_TEST_SUITE_P(Formats, ConvolveLive,
    ::testing::Combine(::testing::Values("GRAY8", "GRAY16_LE", "RGBA", "NV12", "I420", "YUY2", "P010_10LE"),
                       ::testing::Values(1, 2, 4)),
    [](const auto& info) { return std::get<0>(info.param) + "_depth" + std::to_string(std::get<1>(info.param)); });

// ---------------------------------------------------------------------------------------------------------------
// cudahisteq

// Structured content that drifts in brightness and contrast from frame to frame (so that smoothed and per-frame
// histograms differ), with some noise.
GstBuffer* driftingFrame(const GstVideoInfo& info, int i) {
    GstBuffer* buffer = randomFrame(info, 900u + std::uint32_t(i));
    GstVideoFrame frame;
    gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
    auto* data = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    for (int y = 0; y < GST_VIDEO_FRAME_HEIGHT(&frame); ++y)
        for (int x = 0; x < GST_VIDEO_FRAME_WIDTH(&frame); ++x) {
            std::uint8_t& v = data[y * stride + x];
            const int level = 30 + 8 * i + (x * (2 + i % 3) + y * 3) / 2 + (v & 15);
            v = std::uint8_t(std::clamp(level, 0, 255));
        }
    gst_video_frame_unmap(&frame);
    return buffer;
}

constexpr int kRampFrames = 16;
double rampClip(int i) { return 1.0 + 0.5 * i; }

EqualizePlan rampPlan(double clip) {
    EqualizeDesc desc;
    desc.mode = EqualizeMode::Clahe;
    desc.clipLimit = clip;
    desc.tilesX = 4;
    desc.tilesY = 3;
    desc.smoothing = 0.9;
    return EqualizePlan::make(desc, SampleType::U8, 1);
}

// Pushes kRampFrames drifting frames with clip-limit clip(i) set before frame i (smoothing 0.9, CLAHE 4x3) and checks
// each output against the model; returns how many outputs differ from a restart (frame i equalized on its own).
int runClipRamp(double (*clip)(int)) {
    const int width = 64, height = 48;
    const GstVideoInfo info = videoInfo("GRAY8", width, height);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudahisteq", {"mode=clahe", "tiles-x=4", "tiles-y=3", "smoothing=0.9"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", width, height).c_str());
    std::vector<std::vector<std::string>> settings;
    for (int i = 0; i < kRampFrames; ++i) {
        settings.emplace_back();
        if (i == 0 || clip(i) != clip(i - 1)) settings.back().push_back("clip-limit=" + std::to_string(clip(i)));
    }

    std::vector<GstBuffer*> inputs;
    std::vector<GstBuffer*> outputs = pushWithChanges(h, info, settings, driftingFrame, inputs);
    EXPECT_EQ(outputs.size(), std::size_t(kRampFrames)) << "a frame was lost or added";

    std::vector<HostImage> sources;
    for (GstBuffer* b : inputs) {
        GstVideoFrame f;
        gst_video_frame_map(&f, &info, b, GST_MAP_READ);
        sources.push_back(planeImage(f, 0, 1));
        gst_video_frame_unmap(&f);
    }
    // The model: the smoothing averages tile histograms before they are clipped, so the state after frames 0..i is
    // the same whatever clip limits were used on the way. Frame i's output is therefore what one Equalizer with
    // clip limit clip(i) gives for frame i after seeing frames 0..i-1. A restart would give frame i on its own.
    int differFromRestart = 0;
    for (int i = 0; i < int(std::min<std::size_t>(outputs.size(), kRampFrames)); ++i) {
        GstVideoFrame out;
        gst_video_frame_map(&out, &info, outputs[std::size_t(i)], GST_MAP_READ);
        HostImage got = planeImage(out, 0, 1);
        gst_video_frame_unmap(&out);

        std::unique_ptr<Equalizer> model = reference::makeEqualizer(rampPlan(clip(i)));
        HostImage expected = sources[0];
        for (int k = 0; k <= i; ++k) {
            expected = sources[std::size_t(k)];
            model->process(expected.view(), expected.view());
        }
        HostImage restarted = sources[std::size_t(i)];
        reference::makeEqualizer(rampPlan(clip(i)))->process(restarted.view(), restarted.view());

        const auto d = cudafilters::test::compareImages(got, expected);
        EXPECT_EQ(d.maxAbs, 0) << "frame " << i << " clip-limit " << clip(i) << ": " << describe(d);
        if (cudafilters::test::compareImages(got, restarted).maxAbs > 0) ++differFromRestart;
    }
    std::vector<GstMessage*> problems = popMessages(bus, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    for (GstMessage* m : problems) {
        ADD_FAILURE() << "unexpected bus message: " << messageText(m);
        gst_message_unref(m);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
    return differFromRestart;
}

// The model checked where the settings do not change while playing.
TEST(HistEqLive, SteadyClipLimitMatchesTheSmoothingModel) {
    EXPECT_EQ(runClipRamp([](int) { return 2.0; }), kRampFrames - 1) << "frames after the first show their past";
}

TEST(HistEqLive, ClipLimitRampKeepsTheSmoothedState) {
    // Frame 0 has no past; every later frame must show it.
    EXPECT_EQ(runClipRamp(rampClip), kRampFrames - 1) << "the smoothed state started over during the ramp";
}

}  // namespace
