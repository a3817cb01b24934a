// SPDX-License-Identifier: LGPL-2.1-or-later
// cudaconvolve's output property: `channels` (grey in, kernel n → component n of an RGB-family output) and
// `multi-channel` (packed RGB in, GRAY8 out = sum over R, G, B of one kernel each). Caps change only when asked;
// pixels equal the engine's reference with the channel order of the negotiated format; bad combinations fail with
// LIBRARY/SETTINGS naming the property.
#include "element_harness.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/kernel_text.hpp>

#include <tuple>

using namespace elementtest;

namespace {

struct Size2 {
    int width, height;
};
const Size2 kSizes[] = {{385, 289}, {7, 3}, {1, 1}};

const char* const kSobelX = "-1 0 1; -2 0 2; -1 0 1";
const char* const kSobelY = "-1 -2 -1; 0 0 0; 1 2 1";
const char* const kLaplacian = "0 1 0; 1 -4 1; 0 1 0";
const char* const kBlur = "1 2 1; 2 4 2; 1 2 1";

std::string join(const std::vector<std::string>& kernels) {
    std::string s;
    for (const std::string& k : kernels) s += (s.empty() ? "" : " | ") + k;
    return s;
}

// Which R, G, B, A (or padding) component each byte of a packed RGB-family pixel holds — written out here,
// independently of the plugin's use of GstVideoFormatInfo. 0 = R, 1 = G, 2 = B, 3 = A or x.
std::vector<int> componentsOf(const std::string& format) {
    if (format == "RGB") return {0, 1, 2};
    if (format == "BGR") return {2, 1, 0};
    if (format == "RGBA" || format == "RGBx") return {0, 1, 2, 3};
    if (format == "BGRA" || format == "BGRx") return {2, 1, 0, 3};
    if (format == "ARGB" || format == "xRGB") return {3, 0, 1, 2};
    if (format == "ABGR" || format == "xBGR") return {3, 2, 1, 0};
    if (format == "RGBA64_LE") return {0, 1, 2, 3};
    if (format == "GRAY8" || format == "GRAY16_LE") return {0};
    throw std::runtime_error("no component table for " + format);
}

std::string srcFormat(GstHarness* h) {
    GstCaps* caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(h->element));
    if (!caps) return "";
    const gchar* f = gst_structure_get_string(gst_caps_get_structure(caps, 0), "format");
    std::string format = f ? f : "";
    gst_caps_unref(caps);
    return format;
}

void pushFrames(GstHarness* h, const GstVideoInfo& info, int frames, std::vector<GstBuffer*>& inputs,
                std::vector<GstBuffer*>& outputs) {
    for (int i = 0; i < frames; ++i) {
        GstBuffer* in = randomFrame(info, 500u + i, GstClockTime(i) * GST_SECOND / 30);
        inputs.push_back(gst_buffer_ref(in));
        ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
    }
    outputs = finish(h);
    ASSERT_EQ(outputs.size(), std::size_t(frames));
}

// Runs frames through a harnessed cudaconvolve and compares every output with `expected(src)`.
template <typename Expected>
void checkFrames(GstHarness* h, const std::string& inFormat, const std::string& outFormat, Size2 size, int inChannels,
                 int outChannels, int tolerance, Expected expected, const std::string& what) {
    const GstVideoInfo inInfo = videoInfo(inFormat, size.width, size.height);
    const GstVideoInfo outInfo = videoInfo(outFormat, size.width, size.height);
    std::vector<GstBuffer*> inputs, outputs;
    pushFrames(h, inInfo, 3, inputs, outputs);
    EXPECT_EQ(srcFormat(h), outFormat) << what;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GST_BUFFER_PTS(inputs[i])) << what;
        ASSERT_EQ(gst_buffer_get_size(outputs[i]), GST_VIDEO_INFO_SIZE(&outInfo)) << what;
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &inInfo, inputs[i], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &outInfo, outputs[i], GST_MAP_READ));
        HostImage src = planeImage(in, 0, inChannels);
        HostImage got = planeImage(out, 0, outChannels);
        HostImage want(src.width(), src.height(), outChannels, got.type());
        expected(src, want);
        const auto d = cudafilters::test::compareImages(got, want);
        EXPECT_LE(d.maxAbs, tolerance) << what << " frame " << i << ": " << describe(d);
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
}

// ---------------------------------------------------------------------------------------------------------------
// output=channels

struct ChannelsCase {
    const char* name;
    const char* inFormat;
    const char* outFormat;  // asked for downstream (the sink caps of the harness); "" = whatever the element prefers
    const char* expectedFormat;
    std::vector<std::string> kernels;
};

const std::vector<ChannelsCase>& channelsCases() {
    static const std::vector<ChannelsCase> cases = {
        {"gray8_rgb", "GRAY8", "", "RGB", {kSobelX, kSobelY, kLaplacian}},
        {"gray8_bgr", "GRAY8", "BGR", "BGR", {kSobelX, kSobelY, kBlur}},
        {"gray8_rgba", "GRAY8", "", "RGBA", {kSobelX, kSobelY, kLaplacian, kBlur}},
        {"gray8_bgrx", "GRAY8", "BGRx", "BGRx", {kSobelX, kSobelY, kLaplacian, kBlur}},
        {"gray8_argb", "GRAY8", "ARGB", "ARGB", {kBlur, kSobelY, kLaplacian, kSobelX}},
        {"gray8_xbgr", "GRAY8", "xBGR", "xBGR", {kSobelX, kBlur, kLaplacian, kSobelY}},
        {"gray8_gray8", "GRAY8", "", "GRAY8", {kLaplacian}},
        {"gray16_rgba64", "GRAY16_LE", "", "RGBA64_LE", {kSobelX, kSobelY, kLaplacian, kBlur}},
    };
    return cases;
}

class OutputChannels : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(OutputChannels, KernelNToComponentN) {
    const ChannelsCase& c = channelsCases()[std::size_t(std::get<0>(GetParam()))];
    const Size2 size = kSizes[std::get<1>(GetParam())];
    GstHarness* h = makeHarness("cudaconvolve", {"output=channels", "kernel=" + join(c.kernels), "absolute=true"}, 3);
    if (*c.outFormat) gst_harness_set_sink_caps_str(h, (std::string("video/x-raw,format=") + c.outFormat).c_str());
    gst_harness_set_src_caps_str(h, capsString(c.inFormat, size.width, size.height).c_str());

    const std::vector<int> components = componentsOf(c.expectedFormat);
    const int outChannels = int(components.size());
    auto expected = [&](HostImage& src, HostImage& want) {
        // Component n gets kernel n's response: reorder the bank to the format's byte order.
        ConvolveDesc desc;
        for (int ch = 0; ch < outChannels; ++ch)
            desc.kernels.push_back(parseKernelText(c.kernels[std::size_t(components[std::size_t(ch)])])[0]);
        desc.combine = Combine::Channels;
        desc.absolute = true;
        reference::makeConvolver(ConvolvePlan::make(desc, src.type(), 1))->process(src.view(), want.view());
    };
    checkFrames(h, c.inFormat, c.expectedFormat, size, 1, outChannels, 1, expected,
                std::string(c.name) + " " + std::to_string(size.width) + "x" + std::to_string(size.height));
    gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Formats, OutputChannels,
    ::testing::Combine(::testing::Range(0, int(channelsCases().size())), ::testing::Range(0, 3)),
    [](const auto& info) {
        const Size2 s = kSizes[std::get<1>(info.param)];
        return std::string(channelsCases()[std::size_t(std::get<0>(info.param))].name) + "_" +
               std::to_string(s.width) + "x" + std::to_string(s.height);
    });

// ---------------------------------------------------------------------------------------------------------------
// output=multi-channel

struct MultiCase {
    const char* name;
    const char* inFormat;
    std::vector<std::string> kernels;  // R|G|B order, or one for all three
    std::vector<std::string> props;
    int tolerance;
};

const std::vector<MultiCase>& multiCases() {
    static const std::vector<MultiCase> cases = {
        {"rgba_3", "RGBA", {kSobelX, kSobelY, kLaplacian}, {"absolute=true"}, 0},
        {"bgrx_3", "BGRx", {kSobelX, kSobelY, kLaplacian}, {"absolute=true"}, 0},
        {"argb_3", "ARGB", {kLaplacian, kSobelX, kSobelY}, {"absolute=true"}, 0},
        {"xbgr_3", "xBGR", {kSobelY, kLaplacian, kSobelX}, {"bias=128"}, 0},
        {"bgr_3", "BGR", {kSobelX, kSobelY, kLaplacian}, {"absolute=true"}, 0},
        {"rgb_1", "RGB", {kLaplacian}, {"absolute=true"}, 0},
        {"bgra_blur_1", "BGRA", {kBlur}, {}, 1},  // auto divisor: 3 × 16
        {"rgbx_blur_3_div", "RGBx", {kBlur, kSobelX, kBlur}, {"divisor=32", "border=constant", "border-value=9"}, 1},
    };
    return cases;
}

class OutputMultiChannel : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(OutputMultiChannel, SumOfColourChannelsToGray8) {
    const MultiCase& c = multiCases()[std::size_t(std::get<0>(GetParam()))];
    const Size2 size = kSizes[std::get<1>(GetParam())];
    std::vector<std::string> props = c.props;
    props.push_back("output=multi-channel");
    props.push_back("kernel=" + join(c.kernels));
    GstHarness* h = makeHarness("cudaconvolve", props, 2);
    gst_harness_set_src_caps_str(h, capsString(c.inFormat, size.width, size.height).c_str());

    const std::vector<int> components = componentsOf(c.inFormat);
    const int inChannels = int(components.size());
    auto expected = [&](HostImage& src, HostImage& want) {
        // One kernel per byte of the pixel: R, G or B's kernel, zero taps for alpha / padding.
        ConvolveDesc desc;
        desc.mode = ConvolveMode::MultiChannel;
        desc.outputs = 1;
        for (int ch = 0; ch < inChannels; ++ch) {
            const int comp = components[std::size_t(ch)];
            Kernel2D k = parseKernelText(c.kernels[c.kernels.size() == 1 ? 0 : std::size_t(comp % 3)])[0];
            if (comp == 3) std::fill(k.taps.begin(), k.taps.end(), 0.0f);
            desc.kernels.push_back(k);
        }
        for (const std::string& p : c.props) {
            const auto eq = p.find('=');
            const std::string key = p.substr(0, eq), value = p.substr(eq + 1);
            if (key == "absolute") desc.absolute = value == "true";
            else if (key == "bias") desc.bias = std::stod(value);
            else if (key == "divisor") desc.divisor = std::stod(value);
            else if (key == "border-value") desc.borderValue = std::stod(value);
            else if (key == "border" && value == "constant") desc.border = Border::Constant;
        }
        reference::makeConvolver(ConvolvePlan::make(desc, src.type(), inChannels))->process(src.view(), want.view());
    };
    checkFrames(h, c.inFormat, "GRAY8", size, inChannels, 1, c.tolerance, expected,
                std::string(c.name) + " " + std::to_string(size.width) + "x" + std::to_string(size.height));
    gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Formats, OutputMultiChannel,
    ::testing::Combine(::testing::Range(0, int(multiCases().size())), ::testing::Range(0, 3)),
    [](const auto& info) {
        const Size2 s = kSizes[std::get<1>(info.param)];
        return std::string(multiCases()[std::size_t(std::get<0>(info.param))].name) + "_" + std::to_string(s.width) +
               "x" + std::to_string(s.height);
    });

// ---------------------------------------------------------------------------------------------------------------
// Caps: unchanged unless asked; what each mode offers upstream.

TEST(OutputModes, DefaultIsSameAndKeepsTheCaps) {
    GstElement* e = gst_element_factory_make("cudaconvolve", nullptr);
    GParamSpec* pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "output");
    ASSERT_NE(pspec, nullptr);
    GValue ev = G_VALUE_INIT;
    g_value_init(&ev, pspec->value_type);
    g_object_get_property(G_OBJECT(e), "output", &ev);
    GEnumClass* enumClass = G_ENUM_CLASS(g_type_class_ref(pspec->value_type));
    EXPECT_STREQ(g_enum_get_value(enumClass, g_value_get_enum(&ev))->value_nick, "same");
    g_type_class_unref(enumClass);
    g_value_unset(&ev);
    gst_object_unref(e);

    for (const char* format : {"GRAY8", "RGBA", "BGRx", "I420"}) {
        GstHarness* h = makeHarness("cudaconvolve", {std::string("kernel=") + kSobelX + " | " + kSobelY}, 2);
        gst_harness_set_src_caps_str(h, capsString(format, 33, 17).c_str());
        const GstVideoInfo info = videoInfo(format, 33, 17);
        std::vector<GstBuffer*> inputs, outputs;
        pushFrames(h, info, 2, inputs, outputs);
        EXPECT_EQ(srcFormat(h), format);
        for (GstBuffer* b : outputs) EXPECT_EQ(gst_buffer_get_size(b), GST_VIDEO_INFO_SIZE(&info));
        unrefAll(inputs);
        unrefAll(outputs);
        gst_harness_teardown(h);
    }
}

std::vector<std::string> formatsOf(GstCaps* caps) {
    std::vector<std::string> formats;
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        const GValue* f = gst_structure_get_value(gst_caps_get_structure(caps, i), "format");
        if (!f) continue;
        if (G_VALUE_HOLDS_STRING(f)) formats.push_back(g_value_get_string(f));
        else if (GST_VALUE_HOLDS_LIST(f))
            for (guint k = 0; k < gst_value_list_get_size(f); ++k)
                formats.push_back(g_value_get_string(gst_value_list_get_value(f, k)));
    }
    return formats;
}

// What upstream is told the element accepts (sink pad caps query, downstream accepting anything).
std::vector<std::string> acceptedInputs(const std::vector<std::string>& props) {
    GstHarness* h = makeHarness("cudaconvolve", props, 2);
    GstPad* sink = gst_element_get_static_pad(h->element, "sink");
    GstCaps* caps = gst_pad_query_caps(sink, nullptr);
    std::vector<std::string> formats;  // each once: with a GPU the caps list CUDA and system memory
    for (const std::string& f : formatsOf(caps))
        if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
    gst_caps_unref(caps);
    gst_object_unref(sink);
    gst_harness_teardown(h);
    return formats;
}

TEST(OutputModes, CapsQueryOffersOnlyWhatTheModeTakes) {
    using V = std::vector<std::string>;
    EXPECT_EQ(acceptedInputs({"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur}),
              V{"GRAY8"});
    EXPECT_EQ(acceptedInputs({"output=channels",
                              std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur + "|" + kBlur}),
              (V{"GRAY8", "GRAY16_LE"}));
    const V multi = acceptedInputs({"output=multi-channel", std::string("kernel=") + kLaplacian});
    EXPECT_EQ(multi.size(), 10u);
    for (const char* f : {"RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "xRGB", "xBGR", "ARGB", "ABGR"})
        EXPECT_NE(std::find(multi.begin(), multi.end(), f), multi.end()) << f;
    EXPECT_EQ(acceptedInputs({std::string("kernel=") + kLaplacian}).size(), formatCases().size())
        << "output=same takes every format";
}

// ---------------------------------------------------------------------------------------------------------------
// Bad combinations

std::vector<GstMessage*> errorsOf(GstBus* bus) { return popMessages(bus, GST_MESSAGE_ERROR); }

void expectSettingsError(const std::vector<GstMessage*>& errors, const std::vector<std::string>& mentions) {
    ASSERT_FALSE(errors.empty()) << "expected an error message on the bus";
    GError* error = nullptr;
    gst_message_parse_error(errors[0], &error, nullptr);
    EXPECT_TRUE(g_error_matches(error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS)) << error->message;
    for (const std::string& m : mentions)
        EXPECT_NE(std::string(error->message).find(m), std::string::npos) << "'" << m << "' not in: " << error->message;
    g_error_free(error);
}

// Settings no format can satisfy: the start fails.
void expectStartFails(const std::vector<std::string>& props, const std::vector<std::string>& mentions) {
    GstElement* e = gst_element_factory_make("cudaconvolve", nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    gst_util_set_object_arg(G_OBJECT(e), "backend", testBackend().c_str());
    for (const std::string& p : props) {
        const auto eq = p.find('=');
        gst_util_set_object_arg(G_OBJECT(e), p.substr(0, eq).c_str(), p.substr(eq + 1).c_str());
    }
    EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    std::vector<GstMessage*> errors = errorsOf(bus);
    expectSettingsError(errors, mentions);
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_element_set_state(e, GST_STATE_NULL);
    gst_object_unref(e);
    gst_object_unref(bus);
}

TEST(OutputModesBad, ChannelsWithTwoKernelsFailsToStart) {
    expectStartFails({"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY},
                     {"output=channels", "2 kernels", "3 kernels", "4 kernels"});
}
// A wrong number of kernels is said at the start, naming the property: the link made before it (gst-launch links
// while the pipeline is in NULL) succeeds instead of failing with only "can't handle caps".
TEST(OutputModesBad, ChannelsWithTwoKernelsLinksThenFailsToStartNamingTheProperty) {
    for (const auto& [kernels, count] : {std::pair<const char*, const char*>{"1 0 -1 | 1 2 1", "2 kernels"},
                                         std::pair<const char*, const char*>{"1 | 2 | 3 | 4 | 5", "5 kernels"}}) {
        SCOPED_TRACE(kernels);
        GstElement* pipeline = gst_pipeline_new(nullptr);
        GstElement* up = gst_element_factory_make("cudaconvolve", nullptr);
        GstElement* e = gst_element_factory_make("cudaconvolve", nullptr);
        for (GstElement* x : {up, e}) gst_util_set_object_arg(G_OBJECT(x), "backend", testBackend().c_str());
        gst_util_set_object_arg(G_OBJECT(e), "output", "channels");
        g_object_set(e, "kernel", kernels, nullptr);
        gst_bin_add_many(GST_BIN(pipeline), up, e, nullptr);
        EXPECT_TRUE(gst_element_link(up, e)) << "the link must not be where the mistake is reported";
        GstBus* bus = gst_element_get_bus(pipeline);
        EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
        std::vector<GstMessage*> errors = errorsOf(bus);
        expectSettingsError(errors, {"output=channels", std::string("the kernel settings give ") + count,
                                     "give 1, 3 or 4 kernels (separated by '|' in the kernel text), or set output=same"});
        ASSERT_FALSE(errors.empty());
        EXPECT_EQ(GST_MESSAGE_SRC(errors[0]), GST_OBJECT(e));
        for (GstMessage* m : errors) gst_message_unref(m);
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(bus);
        gst_object_unref(pipeline);
    }
}
TEST(OutputModesBad, ChannelsWithTheTwoKernelSobelPresetFailsToStart) {
    expectStartFails({"output=channels", "preset=sobel"}, {"output=channels", "2 kernels"});
}
TEST(OutputModesBad, MultiChannelWithTwoKernelsFailsToStart) {
    expectStartFails({"output=multi-channel", std::string("kernel=") + kSobelX + "|" + kSobelY},
                     {"output=multi-channel", "R|G|B", "2 kernels"});
}

// A format the mode cannot take, pushed as fixed caps: a LIBRARY/SETTINGS error naming the property, and no frame.
void expectNegotiationFails(const std::vector<std::string>& props, const std::string& format,
                            const std::vector<std::string>& mentions) {
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", props, 2, bus);
    gst_harness_set_src_caps_str(h, capsString(format, 16, 8).c_str());
    const GstVideoInfo info = videoInfo(format, 16, 8);
    EXPECT_NE(gst_harness_push(h, randomFrame(info, 1, 0)), GST_FLOW_OK);
    EXPECT_EQ(gst_harness_try_pull(h), nullptr);
    std::vector<GstMessage*> errors = errorsOf(bus);
    expectSettingsError(errors, mentions);
    EXPECT_EQ(errors.size(), 1u) << "one error per run, not one per caps query";
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(OutputModesBad, ChannelsOnRgbaInputIsRejected) {
    expectNegotiationFails({"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur},
                           "RGBA", {"output=channels", "GRAY8", "RGBA"});
}
TEST(OutputModesBad, ChannelsOnI420InputIsRejected) {
    expectNegotiationFails({"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur},
                           "I420", {"output=channels", "I420"});
}
TEST(OutputModesBad, ThreeChannelsFromGray16HaveNoFormat) {
    expectNegotiationFails({"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur},
                           "GRAY16_LE", {"output=channels", "GRAY16_LE", "RGBA64_LE"});
}
TEST(OutputModesBad, MultiChannelOnGrayInputIsRejected) {
    expectNegotiationFails({"output=multi-channel", std::string("kernel=") + kLaplacian}, "GRAY8",
                           {"output=multi-channel", "GRAY8", "RGBA"});
}
TEST(OutputModesBad, MultiChannelOnNv12InputIsRejected) {
    expectNegotiationFails({"output=multi-channel", std::string("kernel=") + kLaplacian}, "NV12",
                           {"output=multi-channel", "NV12"});
}

// `output` changes the caps: refused while running (MUTABLE_READY), with an element warning naming it, the state
// and the value kept; the value stays and the caps too.
TEST(OutputModesBad, OutputCannotChangeWhilePlaying) {
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {std::string("kernel=") + kLaplacian}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 16, 8).c_str());
    ASSERT_EQ(gst_harness_push(h, randomFrame(videoInfo("GRAY8", 16, 8), 1, 0)), GST_FLOW_OK);
    popMessages(bus, GST_MESSAGE_WARNING);  // the start's (no CUDA device)
    gst_util_set_object_arg(G_OBJECT(h->element), "output", "channels");
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(messageText(warnings[0]).find(": output can change in the NULL and READY states only (it changes the "
                                            "caps): channels is refused while PLAYING and same stays in effect; set "
                                            "it before the element starts, or set the element to READY first"),
              std::string::npos)
        << messageText(warnings[0]);
    for (GstMessage* m : warnings) gst_message_unref(m);
    gint output = -1;
    g_object_get(h->element, "output", &output, nullptr);
    EXPECT_EQ(output, 0) << "still same";
    ASSERT_EQ(gst_harness_push(h, randomFrame(videoInfo("GRAY8", 16, 8), 2, 1)), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 2u);
    EXPECT_EQ(srcFormat(h), "GRAY8");
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

// In channels mode a live kernel change must keep the bank size (the caps depend on it): otherwise the previous
// filter stays, with a warning; a change of taps with the same count applies.
TEST(OutputModesBad, LiveKernelCountChangeInChannelsModeKeepsPreviousFilter) {
    const GstVideoInfo info = videoInfo("GRAY8", 20, 10);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve",
                                {"output=channels", std::string("kernel=") + kSobelX + "|" + kSobelY + "|" + kBlur}, 1,
                                bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 20, 10).c_str());
    ASSERT_EQ(gst_harness_push(h, randomFrame(info, 1, 0)), GST_FLOW_OK);
    g_object_set(h->element, "kernel", (std::string(kSobelX) + "|" + kSobelY).c_str(), nullptr);
    ASSERT_EQ(gst_harness_push(h, randomFrame(info, 1, 1)), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(srcFormat(h), "RGB");
    GstMapInfo a, b;
    gst_buffer_map(outputs[0], &a, GST_MAP_READ);
    gst_buffer_map(outputs[1], &b, GST_MAP_READ);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(std::memcmp(a.data, b.data, std::min(a.size, b.size)), 0) << "the previous three kernels still apply";
    gst_buffer_unmap(outputs[0], &a);
    gst_buffer_unmap(outputs[1], &b);
    bool named = false;
    for (GstMessage* m : popMessages(bus, GST_MESSAGE_WARNING)) {
        named = named || messageText(m).find("output=channels") != std::string::npos;
        gst_message_unref(m);
    }
    EXPECT_TRUE(named) << "a bus warning should say why the change was not applied";
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

}  // namespace
