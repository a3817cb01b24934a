// SPDX-License-Identifier: LGPL-2.1-or-later
// Properties as GStreamer users rely on them: those that apply at start (GST_PARAM_MUTABLE_READY) are refused while
// PAUSED or PLAYING with an element warning naming the property, the state and the value kept, and read back that
// value, which stays in use; a combination refused while playing reads back the values in effect, and the next
// warning describes the next refused value; a CLAHE grid larger than the frame is clamped with one warning.
#include "element_harness.hpp"

using namespace elementtest;

namespace {

std::vector<std::string> warningTexts(GstBus* bus) {
    std::vector<std::string> texts;
    for (GstMessage* m : popMessages(bus, GST_MESSAGE_WARNING)) {
        texts.push_back(messageText(m));
        gst_message_unref(m);
    }
    return texts;
}

std::string joined(const std::vector<std::string>& texts) {
    std::string s;
    for (const std::string& t : texts) s += t + "\n";
    return s;
}

// The minimum of buffers the element asks upstream for: pipeline-depth + 1 (the frames in flight and one more).
guint proposedBuffers(GstHarness* h, const std::string& caps) {
    GstCaps* c = gst_caps_from_string(caps.c_str());
    GstQuery* query = gst_query_new_allocation(c, TRUE);
    gst_caps_unref(c);
    GstPad* sink = gst_element_get_static_pad(h->element, "sink");
    guint min = 0;
    if (gst_pad_query(sink, query) && gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, nullptr, nullptr, &min, nullptr);
    gst_object_unref(sink);
    gst_query_unref(query);
    return min;
}

GstFlowReturn pushFrames(GstHarness* h, const GstVideoInfo& info, int from, int count) {
    for (int i = from; i < from + count; ++i)
        if (GstFlowReturn ret = gst_harness_push(h, randomFrame(info, std::uint32_t(i), GstClockTime(i))); ret != GST_FLOW_OK)
            return ret;
    return GST_FLOW_OK;
}

const char* const kHow = "; set it before the element starts, or set the element to READY first";

class ReadyOnly : public ::testing::TestWithParam<const char*> {};

// pipeline-depth while PLAYING: refused, reads the depth in use, which the allocation still asks for; in READY the
// same change is taken and applies at the next start.
TEST_P(ReadyOnly, PipelineDepthRefusedWhilePlayingAppliesInReady) {
    const std::string caps = capsString("GRAY8", 24, 16);
    const GstVideoInfo info = videoInfo("GRAY8", 24, 16);
    GstBus* bus = gst_bus_new();
    const std::vector<std::string> props =
        std::string(GetParam()) == "cudaconvolve" ? std::vector<std::string>{"preset=box"} : std::vector<std::string>{};
    GstHarness* h = makeHarness(GetParam(), props, 4, bus);
    gst_harness_set_src_caps_str(h, caps.c_str());
    ASSERT_EQ(pushFrames(h, info, 0, 3), GST_FLOW_OK);
    ASSERT_EQ(proposedBuffers(h, caps), 5u);
    warningTexts(bus);

    g_object_set(h->element, "pipeline-depth", 1, nullptr);
    const std::vector<std::string> warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
    EXPECT_NE(warnings[0].find(std::string(GST_OBJECT_NAME(h->element)) +
                               ": pipeline-depth can change in the NULL and READY states only: 1 is refused while "
                               "PLAYING and 4 stays in effect" + kHow),
              std::string::npos)
        << warnings[0];
    int depth = 0;
    g_object_get(h->element, "pipeline-depth", &depth, nullptr);
    EXPECT_EQ(depth, 4) << "a read returns the depth in use";
    EXPECT_EQ(proposedBuffers(h, caps), 5u) << "the run still works with 4 frames in flight";
    ASSERT_EQ(pushFrames(h, info, 3, 5), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 8u);
    unrefAll(outputs);

    ASSERT_EQ(gst_element_set_state(h->element, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
    g_object_set(h->element, "pipeline-depth", 1, nullptr);
    EXPECT_TRUE(warningTexts(bus).empty()) << "taken in READY";
    g_object_get(h->element, "pipeline-depth", &depth, nullptr);
    EXPECT_EQ(depth, 1);
    ASSERT_EQ(gst_element_set_state(h->element, GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
    ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_stream_start("restart")));
    GstCaps* c = gst_caps_from_string(caps.c_str());
    ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_caps(c)));
    gst_caps_unref(c);
    EXPECT_EQ(proposedBuffers(h, caps), 2u) << "the new depth applies from the next start";
    gst_harness_teardown(h);
    releaseBus(bus);
}

// backend and cuda-device-id while PLAYING: refused and read back as they are; the backend in use stays.
TEST_P(ReadyOnly, BackendAndDeviceRefusedWhilePlaying) {
    const GstVideoInfo info = videoInfo("GRAY8", 24, 16);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness(GetParam(), {}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 24, 16).c_str());
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);
    warningTexts(bus);
    gchar* active = nullptr;
    g_object_get(h->element, "active-backend", &active, nullptr);
    const std::string activeBefore = active ? active : "";
    g_free(active);

    const std::string other = testBackend() == "cpu" ? "cuda" : "cpu";
    gst_util_set_object_arg(G_OBJECT(h->element), "backend", other.c_str());
    g_object_set(h->element, "cuda-device-id", 3, nullptr);
    const std::vector<std::string> warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 2u) << joined(warnings);
    EXPECT_NE(warnings[0].find(": backend can change in the NULL and READY states only: " + other +
                               " is refused while PLAYING and " + testBackend() + " stays in effect" + kHow),
              std::string::npos)
        << warnings[0];
    EXPECT_NE(warnings[1].find(std::string(": cuda-device-id can change in the NULL and READY states only: 3 is "
                                           "refused while PLAYING and -1 stays in effect") + kHow),
              std::string::npos)
        << warnings[1];

    gint backend = -1, device = 0;
    g_object_get(h->element, "backend", &backend, "cuda-device-id", &device, "active-backend", &active, nullptr);
    GEnumClass* backends = static_cast<GEnumClass*>(g_type_class_ref(g_type_from_name("GstCfFilterBackend")));
    EXPECT_EQ(std::string(g_enum_get_value(backends, backend)->value_nick), testBackend());
    g_type_class_unref(backends);
    EXPECT_EQ(device, -1);
    EXPECT_EQ(std::string(active ? active : ""), activeBefore);
    g_free(active);
    ASSERT_EQ(pushFrames(h, info, 1, 3), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 4u);
    unrefAll(outputs);
    gst_harness_teardown(h);
    releaseBus(bus);
}

// Between READY and PAUSED the element is starting: a change is refused there too, naming PAUSED.
TEST_P(ReadyOnly, RefusedWhilePausedNamingTheState) {
    GstElement* e = gst_element_factory_make(GetParam(), nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    gst_util_set_object_arg(G_OBJECT(e), "backend", testBackend().c_str());
    ASSERT_NE(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    warningTexts(bus);
    g_object_set(e, "pipeline-depth", 3, nullptr);
    const std::vector<std::string> warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
    EXPECT_NE(warnings[0].find("pipeline-depth can change in the NULL and READY states only: 3 is refused while "
                               "PAUSED and 2 stays in effect"),
              std::string::npos)
        << warnings[0];
    int depth = 0;
    g_object_get(e, "pipeline-depth", &depth, nullptr);
    EXPECT_EQ(depth, 2);
    gst_element_set_state(e, GST_STATE_NULL);
    g_object_set(e, "pipeline-depth", 3, nullptr);
    g_object_get(e, "pipeline-depth", &depth, nullptr);
    EXPECT_EQ(depth, 3) << "taken in NULL";
    EXPECT_TRUE(warningTexts(bus).empty());
    gst_object_unref(e);
    releaseBus(bus);
}

INSTANTIATE_TEST_SUITE_P(Elements, ReadyOnly, ::testing::Values("cudaconvolve", "cudahisteq"));

// preset=sobel size=9 refused while playing: size reads the value in effect again (notified), frames keep the
// previous filter, and a later refusal (divisor=1e-300) is described for itself, not as the old size problem.
TEST(RefusedWhilePlaying, ReadsBackTheValueInEffectAndTheNextWarningIsItsOwn) {
    const GstVideoInfo info = videoInfo("GRAY8", 20, 10);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"preset=sobel-x"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 20, 10).c_str());
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);
    warningTexts(bus);
    int notified = 0;
    const gulong id = g_signal_connect(h->element, "notify::size",
                                       G_CALLBACK(+[](GObject*, GParamSpec*, gpointer n) { ++*static_cast<int*>(n); }),
                                       &notified);

    g_object_set(h->element, "size", 9, nullptr);
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);  // the same input again: the same output expected
    std::vector<std::string> warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
    EXPECT_NE(warnings[0].find("Invalid settings for " + std::string(GST_OBJECT_NAME(h->element)) +
                               " (size=9), keeping the previous ones: preset sobel has no size 9; sizes: 3, 5, 7"),
              std::string::npos)
        << warnings[0];
    int size = -1;
    g_object_get(h->element, "size", &size, nullptr);
    EXPECT_EQ(size, 0) << "the size in effect (the preset's default), not the refused 9";
    EXPECT_EQ(notified, 2) << "the set, then the put back";
    g_signal_handler_disconnect(h->element, id);

    g_object_set(h->element, "divisor", 1e-300, nullptr);
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);
    warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
    EXPECT_NE(warnings[0].find(" (divisor=1e-300), keeping the previous ones: divisor 1e-300 is too close to 0: use 0 "
                               "(automatic) or a magnitude of at least 1e-30"),
              std::string::npos)
        << warnings[0];
    EXPECT_EQ(warnings[0].find("size"), std::string::npos) << warnings[0];
    double divisor = -1;
    g_object_get(h->element, "divisor", &divisor, nullptr);
    EXPECT_EQ(divisor, 0.0);

    // A valid change after both is applied at once: sobel 5.
    g_object_set(h->element, "size", 5, nullptr);
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);
    EXPECT_TRUE(warningTexts(bus).empty());
    g_object_get(h->element, "size", &size, nullptr);
    EXPECT_EQ(size, 5);

    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 4u);
    GstMapInfo a, b, c;
    gst_buffer_map(outputs[0], &a, GST_MAP_READ);
    gst_buffer_map(outputs[2], &b, GST_MAP_READ);
    gst_buffer_map(outputs[3], &c, GST_MAP_READ);
    for (int i : {1, 2}) {
        GstMapInfo m;
        gst_buffer_map(outputs[std::size_t(i)], &m, GST_MAP_READ);
        EXPECT_EQ(std::memcmp(a.data, m.data, a.size), 0) << "frame " << i << " filtered as before the refusal";
        gst_buffer_unmap(outputs[std::size_t(i)], &m);
    }
    EXPECT_NE(std::memcmp(a.data, c.data, a.size), 0) << "sobel 5 differs from sobel 3";
    gst_buffer_unmap(outputs[0], &a);
    gst_buffer_unmap(outputs[2], &b);
    gst_buffer_unmap(outputs[3], &c);
    unrefAll(outputs);
    gst_harness_teardown(h);
    releaseBus(bus);
}

// Only what the refused work changed is put back: a property set after the refused copy keeps its new value.
TEST(RefusedWhilePlaying, SettingsNotInTheRefusedChangeKeepTheirValues) {
    const GstVideoInfo info = videoInfo("GRAY16_LE", 32, 16);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudahisteq", {"mode=clahe", "tiles-x=3", "tiles-y=2"}, 1, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY16_LE", 32, 16).c_str());
    ASSERT_EQ(pushFrames(h, info, 0, 1), GST_FLOW_OK);
    warningTexts(bus);
    g_object_set(h->element, "tiles-x", 20, "tiles-y", 16, "clip-limit", 3.0, nullptr);  // 320 tiles of 65536 bins
    ASSERT_EQ(pushFrames(h, info, 1, 1), GST_FLOW_OK);
    const std::vector<std::string> warnings = warningTexts(bus);
    ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
    EXPECT_NE(warnings[0].find("(clip-limit=3, tiles-x=20, tiles-y=16), keeping the previous ones"), std::string::npos)
        << warnings[0];
    int tx = 0, ty = 0;
    double clip = 0;
    g_object_get(h->element, "tiles-x", &tx, "tiles-y", &ty, "clip-limit", &clip, nullptr);
    EXPECT_EQ(tx, 3);
    EXPECT_EQ(ty, 2);
    EXPECT_EQ(clip, 2.0);
    g_object_set(h->element, "tiles-x", 4, nullptr);
    ASSERT_EQ(pushFrames(h, info, 2, 1), GST_FLOW_OK);
    EXPECT_TRUE(warningTexts(bus).empty());
    g_object_get(h->element, "tiles-x", &tx, nullptr);
    EXPECT_EQ(tx, 4);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 3u);
    unrefAll(outputs);
    gst_harness_teardown(h);
    releaseBus(bus);
}

// tiles-x=256 tiles-y=256 on a 3x1 frame: clamped to 3x1 with one warning that names both properties and the grid
// used; later frames and a rebuild for another setting do not repeat it; the pixels are those of the 3x1 grid.
TEST(TilesClamp, LargerThanTheFrameIsSaidOnce) {
    for (const char* format : {"GRAY8", "GRAY16_LE"}) {
        SCOPED_TRACE(format);
        const GstVideoInfo info = videoInfo(format, 3, 1);
        GstBus* bus = gst_bus_new();
        GstHarness* h = makeHarness("cudahisteq", {"mode=clahe", "tiles-x=256", "tiles-y=256"}, 2, bus);
        gst_harness_set_src_caps_str(h, capsString(format, 3, 1).c_str());
        std::vector<GstBuffer*> inputs;
        for (int i = 0; i < 3; ++i) {
            inputs.push_back(randomFrame(info, std::uint32_t(70 + i), GstClockTime(i)));
            if (i == 2) g_object_set(h->element, "clip-limit", 3.0, nullptr);
            ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
        }
        std::vector<GstBuffer*> outputs = finish(h);
        const std::vector<std::string> warnings = warningTexts(bus);
        ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
        EXPECT_NE(warnings[0].find(": tiles-x=256 is more than the frame's 3 columns and tiles-y=256 is more than its "
                                   "1 row of pixels: CLAHE uses a 3x1 grid (at most one tile per pixel); set tiles-x "
                                   "and tiles-y to at most the frame's width and height to choose the grid"),
                  std::string::npos)
            << warnings[0];
        ASSERT_EQ(outputs.size(), 3u);
        for (int i = 0; i < 3; ++i) {
            EqualizeDesc desc;
            desc.mode = EqualizeMode::Clahe;
            desc.tilesX = 3;
            desc.tilesY = 1;
            desc.clipLimit = i == 2 ? 3.0 : 2.0;
            GstVideoFrame in, out;
            ASSERT_TRUE(gst_video_frame_map(&in, &info, inputs[std::size_t(i)], GST_MAP_READ));
            ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[std::size_t(i)], GST_MAP_READ));
            HostImage src = planeImage(in, 0, 1), got = planeImage(out, 0, 1), want = src;
            reference::makeEqualizer(EqualizePlan::make(desc, src.type(), 1))->process(src.view(), want.view());
            EXPECT_EQ(cudafilters::test::compareImages(got, want).maxAbs, 0) << "frame " << i;
            gst_video_frame_unmap(&in);
            gst_video_frame_unmap(&out);
        }
        unrefAll(inputs);
        unrefAll(outputs);
        gst_harness_teardown(h);
        releaseBus(bus);
    }
}

}  // namespace
