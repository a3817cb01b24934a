// SPDX-License-Identifier: LGPL-2.1-or-later
// Input buffers that do not hold the negotiated frame: the error says what size and stride the caps need and how to
// provide the frame (a GstVideoMeta with the real strides, or rows padded to the caps' stride). A tight 397-pixel
// GRAY8 frame, as numpy hands it to appsrc, is the case users meet.
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
    gst_object_unref(bus);
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
    EXPECT_NE(text.find("strides (320) are shorter than the rows of the caps (400 bytes"), std::string::npos) << text;
}

TEST_P(InputLayout, MetaForASmallerFrameIsNamed) {
    GstBuffer* buffer = tightFrame(gsize(400) * kHeight);
    gst_buffer_add_video_meta(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 320, kHeight);
    const std::string text = errorFor(GetParam(), buffer);
    EXPECT_NE(text.find("GstVideoMeta describes GRAY8 320x31, the caps GRAY8 397x31"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Elements, InputLayout, ::testing::Values("cudaconvolve", "cudahisteq"));
