// SPDX-License-Identifier: LGPL-2.1-or-later
// Bad input: each invalid property value is refused with a warning naming the property, the old value kept;
// invalid combinations fail the state change with LIBRARY/SETTINGS; while playing they keep the previous filter.
#include "element_harness.hpp"

using namespace elementtest;

namespace {

// Sets `property` from text (as gst-launch does), expecting a warning that names it and the value unchanged.
void expectRejected(const char* element, const char* property, const char* bad) {
    GstElement* e = gst_element_factory_make(element, nullptr);
    ASSERT_NE(e, nullptr);
    GParamSpec* pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), property);
    ASSERT_NE(pspec, nullptr) << property;
    GValue before = G_VALUE_INIT, after = G_VALUE_INIT;
    g_value_init(&before, pspec->value_type);
    g_value_init(&after, pspec->value_type);
    g_object_get_property(G_OBJECT(e), property, &before);
    std::string warnings;
    {
        WarningCapture capture;
        if (G_TYPE_IS_ENUM(pspec->value_type) || pspec->value_type == G_TYPE_STRING) {
            GValue v = G_VALUE_INIT;
            g_value_init(&v, pspec->value_type);
            if (pspec->value_type == G_TYPE_STRING) g_value_set_string(&v, bad);
            else g_value_set_enum(&v, 1000);  // what a binding could pass; nicks are parsed by gst-launch
            g_object_set_property(G_OBJECT(e), property, &v);
            g_value_unset(&v);
        } else {
            GValue text = G_VALUE_INIT, v = G_VALUE_INIT;
            g_value_init(&text, G_TYPE_STRING);
            g_value_set_string(&text, bad);
            g_value_init(&v, pspec->value_type);
            ASSERT_TRUE(gst_value_deserialize(&v, bad)) << bad;
            g_object_set_property(G_OBJECT(e), property, &v);
            g_value_unset(&v);
            g_value_unset(&text);
        }
        warnings = capture.all();
    }
    g_object_get_property(G_OBJECT(e), property, &after);
    EXPECT_NE(warnings.find(std::string("'") + property + "'"), std::string::npos)
        << "warning should name the property; got: " << warnings;
    EXPECT_EQ(gst_value_compare(&before, &after), GST_VALUE_EQUAL) << property << " changed to a bad value";
    g_value_unset(&before);
    g_value_unset(&after);
    gst_object_unref(e);
}

TEST(BadValue, KernelTextRaggedRows) { expectRejected("cudaconvolve", "kernel", "1 2 3; 4 5"); }
TEST(BadValue, KernelTextNotANumber) { expectRejected("cudaconvolve", "kernel", "1 x 1"); }
TEST(BadValue, KernelTextBankSizesDiffer) { expectRejected("cudaconvolve", "kernel", "1 2 1 | 1 2; 3 4"); }
TEST(BadValue, KernelTooLarge) {
    std::string row;
    for (int i = 0; i < 257; ++i) row += "1 ";
    expectRejected("cudaconvolve", "kernel", row.c_str());
}
TEST(BadValue, SizeAboveLimit) { expectRejected("cudaconvolve", "size", "256"); }
TEST(BadValue, SizeNegative) { expectRejected("cudaconvolve", "size", "-3"); }
TEST(BadValue, SigmaNegative) { expectRejected("cudaconvolve", "sigma", "-1.5"); }
TEST(BadValue, BiasOutOfRange) { expectRejected("cudaconvolve", "bias", "70000"); }
TEST(BadValue, BorderValueNegative) { expectRejected("cudaconvolve", "border-value", "-1"); }
TEST(BadValue, DivisorOutOfRange) { expectRejected("cudaconvolve", "divisor", "1e7"); }
TEST(BadValue, PresetUnknown) { expectRejected("cudaconvolve", "preset", ""); }
TEST(BadValue, BorderUnknown) { expectRejected("cudaconvolve", "border", ""); }
TEST(BadValue, AlgorithmUnknown) { expectRejected("cudaconvolve", "algorithm", "fast"); }
TEST(BadValue, PipelineDepthZero) { expectRejected("cudaconvolve", "pipeline-depth", "0"); }
TEST(BadValue, PipelineDepthFive) { expectRejected("cudahisteq", "pipeline-depth", "5"); }
TEST(BadValue, CudaDeviceIdBelowMinusOne) { expectRejected("cudaconvolve", "cuda-device-id", "-2"); }
TEST(BadValue, ClipLimitNegative) { expectRejected("cudahisteq", "clip-limit", "-1"); }
TEST(BadValue, TilesXZero) { expectRejected("cudahisteq", "tiles-x", "0"); }
TEST(BadValue, TilesYAboveLimit) { expectRejected("cudahisteq", "tiles-y", "257"); }
TEST(BadValue, SmoothingOne) { expectRejected("cudahisteq", "smoothing", "1.0"); }
TEST(BadValue, ModeUnknown) { expectRejected("cudahisteq", "mode", ""); }

// A combination no single property can refuse fails the start with LIBRARY/SETTINGS naming the problem.
void expectStartFails(const char* element, const std::vector<std::string>& props, const char* mentions) {
    GstElement* e = gst_element_factory_make(element, nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    gst_util_set_object_arg(G_OBJECT(e), "backend", testBackend().c_str());
    for (const std::string& p : props) {
        const auto eq = p.find('=');
        gst_util_set_object_arg(G_OBJECT(e), p.substr(0, eq).c_str(), p.substr(eq + 1).c_str());
    }
    EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    ASSERT_FALSE(errors.empty());
    GError* error = nullptr;
    gst_message_parse_error(errors[0], &error, nullptr);
    EXPECT_TRUE(g_error_matches(error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS)) << error->message;
    EXPECT_NE(std::string(error->message).find(mentions), std::string::npos) << error->message;
    g_error_free(error);
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_element_set_state(e, GST_STATE_NULL);
    gst_object_unref(e);
    gst_object_unref(bus);
}

TEST(BadConfiguration, GaussianEvenSizeFailsToStart) {
    expectStartFails("cudaconvolve", {"preset=gaussian", "size=4"}, "gaussian");
}
TEST(BadConfiguration, SobelSizeNineFailsToStart) {
    expectStartFails("cudaconvolve", {"preset=sobel-x", "size=9"}, "sobel");
}
TEST(BadConfiguration, SharpenSizeFiveFailsToStart) {
    expectStartFails("cudaconvolve", {"preset=sharpen", "size=5"}, "sharpen");
}

TEST(BadConfiguration, Clahe16BitGridTooLargeFailsNegotiation) {
    // 64x64 tiles of 65 536 bins would be 268 M histogram entries per plane: refused, naming the limit.
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudahisteq", {"mode=clahe", "tiles-x=64", "tiles-y=64"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY16_LE", 128, 96).c_str());
    EXPECT_NE(gst_harness_push(h, randomFrame(videoInfo("GRAY16_LE", 128, 96), 1, 0)), GST_FLOW_OK);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    ASSERT_FALSE(errors.empty());
    EXPECT_NE(messageText(errors[0]).find("at most 256 tiles"), std::string::npos) << messageText(errors[0]);
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(BadConfiguration, InvalidLiveCombinationKeepsPreviousFilter) {
    const GstVideoInfo info = videoInfo("GRAY8", 20, 10);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"preset=sobel-x"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 20, 10).c_str());
    ASSERT_EQ(gst_harness_push(h, randomFrame(info, 1, 0)), GST_FLOW_OK);
    g_object_set(h->element, "size", 4, nullptr);  // sobel has no 4x4
    for (int i = 1; i < 4; ++i) ASSERT_EQ(gst_harness_push(h, randomFrame(info, 1, GstClockTime(i))), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 4u);
    for (std::size_t i = 1; i < outputs.size(); ++i) {
        GstMapInfo a, b;
        gst_buffer_map(outputs[0], &a, GST_MAP_READ);
        gst_buffer_map(outputs[i], &b, GST_MAP_READ);
        EXPECT_EQ(std::memcmp(a.data, b.data, a.size), 0) << "the same input filtered as before the bad change";
        gst_buffer_unmap(outputs[0], &a);
        gst_buffer_unmap(outputs[i], &b);
    }
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    bool named = false;
    for (GstMessage* m : warnings) {
        named = named || messageText(m).find("sobel") != std::string::npos;
        gst_message_unref(m);
    }
    EXPECT_TRUE(named) << "a bus warning should say what is wrong";
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

}  // namespace
