// SPDX-License-Identifier: LGPL-2.1-or-later
// Input buffers that do not hold the negotiated frame: the error says what size and stride the caps need and how to
// provide the frame (a GstVideoMeta with the real strides, or rows padded to the caps' stride). A tight 397-pixel
// GRAY8 frame, as numpy hands it to appsrc, is the case users meet. Caps whose frames GStreamer cannot lay out at
// all are refused at negotiation with an element error that gives the sizes.
#include "element_harness.hpp"

using namespace elementtest;

namespace {

constexpr int kWidth = 397, kHeight = 31;  // GStreamer's GRAY8 rows: 400 bytes

// The one error the element posts for `buffer`, after checking the push failed.
std::string errorFor(const char* factory, GstBuffer* buffer) {
    GstBus* bus = gst_bus_new();
    const std::vector<std::string> props =
        std::string(factory) == "cudaconvolve" ? std::vector<std::string>{"preset=box"} : std::vector<std::string>{};
    GstHarness* h = makeHarness(factory, props, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    EXPECT_EQ(gst_harness_push(h, buffer), GST_FLOW_ERROR);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    EXPECT_EQ(errors.size(), 1u);
    const std::string text = errors.empty() ? "" : messageText(errors[0]);
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_harness_teardown(h);
    releaseBus(bus);
    return text;
}

GstBuffer* tightFrame(gsize bytes) {
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
    gst_buffer_memset(buffer, 0, 0x40, bytes);
    GST_BUFFER_PTS(buffer) = 0;
    return buffer;
}

class InputLayout : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(InputLayout, TightRowsWithoutMetaNameTheCapsLayoutAndBothRemedies) {
    const std::string text = errorFor(GetParam(), tightFrame(gsize(kWidth) * kHeight));
    EXPECT_NE(text.find("12307 bytes"), std::string::npos) << text;      // what arrived: 397 × 31
    EXPECT_NE(text.find("GRAY8 397x31"), std::string::npos) << text;     // the caps
    EXPECT_NE(text.find("imply 12400 bytes"), std::string::npos) << text;  // 400 × 31
    EXPECT_NE(text.find("rows of 400 bytes"), std::string::npos) << text;
    EXPECT_NE(text.find("GstVideoMeta with the real strides"), std::string::npos) << text;
    EXPECT_NE(text.find("pad each row to 400 bytes"), std::string::npos) << text;
}

TEST_P(InputLayout, MetaStridesLongerThanTheBufferNameTheBytesTheyNeed) {
    GstBuffer* buffer = tightFrame(gsize(kWidth) * kHeight);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
    gint strides[GST_VIDEO_MAX_PLANES] = {512};
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight, 1,
                                   offsets, strides);
    const std::string text = errorFor(GetParam(), buffer);
    EXPECT_NE(text.find("GstVideoMeta (strides 512) needs 15757 bytes"), std::string::npos) << text;  // 512 × 30 + 397
}

TEST_P(InputLayout, MetaStridesShorterThanTheRowsAreNamed) {
    GstBuffer* buffer = tightFrame(gsize(400) * kHeight);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
    gint strides[GST_VIDEO_MAX_PLANES] = {320};
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight, 1,
                                   offsets, strides);
    const std::string text = errorFor(GetParam(), buffer);
    EXPECT_NE(text.find("its GstVideoMeta's stride for plane 0 (320 bytes) is shorter than a row of the plane (397 "
                        "bytes). Give each plane a stride of at least its row's bytes (GStreamer's default layout pads "
                        "them to 400)"),
              std::string::npos)
        << text;
}

// The minimum named is the row itself, not GStreamer's padded stride: one byte short is refused, the row exactly is
// taken and filtered.
TEST_P(InputLayout, MetaStrideMinimumIsTheRow) {
    GstBuffer* buffer = tightFrame(gsize(400) * kHeight);
    gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
    gint strides[GST_VIDEO_MAX_PLANES] = {kWidth - 1};
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight, 1,
                                   offsets, strides);
    const std::string text = errorFor(GetParam(), buffer);
    EXPECT_NE(text.find("stride for plane 0 (396 bytes) is shorter than a row of the plane (397 bytes)"),
              std::string::npos)
        << text;

    const std::vector<std::string> props =
        std::string(GetParam()) == "cudaconvolve" ? std::vector<std::string>{"preset=box"} : std::vector<std::string>{};
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness(GetParam(), props, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", kWidth, kHeight).c_str());
    GstBuffer* exact = tightFrame(gsize(kWidth) * kHeight);
    strides[0] = kWidth;
    gst_buffer_add_video_meta_full(exact, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight, 1,
                                   offsets, strides);
    EXPECT_EQ(gst_harness_push(h, exact), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 1u);
    EXPECT_TRUE(popMessages(bus, GST_MESSAGE_ERROR).empty());
    unrefAll(outputs);
    gst_harness_teardown(h);
    releaseBus(bus);
}

// A meta that differs from the caps in its planes only says so.
TEST_P(InputLayout, MetaWithOtherPlanesNamesThem) {
    const GstVideoInfo info = videoInfo("I420", 17, 9);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GST_BUFFER_PTS(buffer) = 0;
    gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
    gint strides[GST_VIDEO_MAX_PLANES] = {20};
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 17, 9, 1, offsets,
                                   strides);
    const std::vector<std::string> props =
        std::string(GetParam()) == "cudaconvolve" ? std::vector<std::string>{"preset=box"} : std::vector<std::string>{};
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness(GetParam(), props, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("I420", 17, 9).c_str());
    EXPECT_EQ(gst_harness_push(h, buffer), GST_FLOW_ERROR);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    ASSERT_EQ(errors.size(), 1u);
    const std::string text = messageText(errors[0]);
    EXPECT_NE(text.find("does not hold a whole I420 17x9 frame: its GstVideoMeta describes I420 17x9 in 1 plane, the "
                        "caps I420 17x9 in 3 planes (the number of planes differs); the meta must describe the "
                        "negotiated frame: add it with the caps' format, size and 3 planes"),
              std::string::npos)
        << text;
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_harness_teardown(h);
    releaseBus(bus);
}

TEST_P(InputLayout, MetaForASmallerFrameIsNamed) {
    GstBuffer* buffer = tightFrame(gsize(400) * kHeight);
    gst_buffer_add_video_meta(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 320, kHeight);
    const std::string text = errorFor(GetParam(), buffer);
    EXPECT_NE(text.find("GstVideoMeta describes GRAY8 320x31 in 1 plane, the caps GRAY8 397x31 in 1 plane (the meta's "
                        "frame is smaller)"),
              std::string::npos)
        << text;
}

// Frames past GStreamer's layout limit: a STREAM/FORMAT error naming the format, the size, the bytes and the limit,
// instead of a bare not-negotiated (gst_video_info_from_caps fails) or a negative stride (a row of 2^31 bytes).
TEST_P(InputLayout, CapsOfFramesTooLargeAreRefusedWithTheSizes) {
    struct Case {
        const char* format;
        int width, height;
        const char* bytes;
    };
    for (const Case& c : {Case{"RGBA", 2147483647, 2147483647, "frames of 18446744056529682436 bytes (rows of up to "
                                                                 "8589934588 bytes)"},
                          Case{"GRAY8", 1, 2147483647, "frames of 8589934588 bytes (rows of up to 4 bytes)"},
                          Case{"RGB", 46341, 46341, "frames of 6442511184 bytes (rows of up to 139024 bytes)"},
                          Case{"GRAY8", 2147483647, 1, "frames of 2147483648 bytes (rows of up to 2147483648 bytes)"}}) {
        SCOPED_TRACE(c.format + std::string(" ") + std::to_string(c.width) + "x" + std::to_string(c.height));
        GstBus* bus = gst_bus_new();
        const std::vector<std::string> props = std::string(GetParam()) == "cudaconvolve"
                                                   ? std::vector<std::string>{"preset=box"}
                                                   : std::vector<std::string>{};
        GstHarness* h = makeHarness(GetParam(), props, 2, bus);
        gst_harness_set_src_caps_str(h, capsString(c.format, c.width, c.height).c_str());
        std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
        std::string all;
        for (GstMessage* m : errors) all += messageText(m) + "\n";
        ASSERT_EQ(errors.size(), 1u) << all;
        GError* error = nullptr;
        gst_message_parse_error(errors[0], &error, nullptr);
        EXPECT_TRUE(g_error_matches(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT)) << error->message;
        const std::string want = std::string("the caps describe ") + c.format + " " + std::to_string(c.width) + "x" +
                                 std::to_string(c.height) + " " + c.bytes +
                                 "; GStreamer's video layout (GstVideoInfo) holds frames of at most 2147483647 "
                                 "bytes: use a smaller width or height";
        EXPECT_NE(std::string(error->message).find(want), std::string::npos) << error->message;
        g_error_free(error);
        for (GstMessage* m : errors) gst_message_unref(m);
        gst_harness_teardown(h);
        releaseBus(bus);
    }
}

INSTANTIATE_TEST_SUITE_P(Elements, InputLayout, ::testing::Values("cudaconvolve", "cudahisteq"));
