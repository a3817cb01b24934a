// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed 4:2:2 as cameras deliver it (YUY2, UYVY, YVYU): cudahisteq equalizes Y exactly as OpenCV equalizes the
// extracted Y plane and keeps chroma; odd widths, whose last chroma pair would belong to one pixel, are refused with
// an error that says so; formats the elements do not take still fail negotiation.
#include "element_harness.hpp"

#ifdef CUDAFILTERS_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

using namespace elementtest;

namespace {

// One frame of `format` through an element; the output frame (mapped copy of the input kept in `input`).
GstBuffer* filterOne(GstHarness* h, const GstVideoInfo& info, std::uint32_t seed, GstBuffer*& input) {
    input = randomFrame(info, seed, 0);
    gst_buffer_ref(input);
    EXPECT_EQ(gst_harness_push(h, input), GST_FLOW_OK);
    std::vector<GstBuffer*> out = finish(h);
    EXPECT_EQ(out.size(), 1u);
    return out.empty() ? nullptr : out[0];
}

#ifdef CUDAFILTERS_HAVE_OPENCV
TEST(Packed422, HistEqEqualsOpenCvOnTheExtractedLumaPlane) {
    for (const char* format : {"YUY2", "UYVY", "YVYU"})
        for (bool clahe : {false, true}) {
            const FormatCase& fc = formatCase(format);
            const int width = 386, height = 289;
            const GstVideoInfo info = videoInfo(format, width, height);
            GstHarness* h = makeHarness("cudahisteq", {clahe ? "mode=clahe" : "mode=global", "clip-limit=3",
                                                       "tiles-x=5", "tiles-y=4"});
            gst_harness_set_src_caps_str(h, capsString(format, width, height).c_str());
            GstBuffer* input = nullptr;
            GstBuffer* output = filterOne(h, info, 77, input);
            ASSERT_NE(output, nullptr);
            GstVideoFrame in, out;
            ASSERT_TRUE(gst_video_frame_map(&in, &info, input, GST_MAP_READ));
            ASSERT_TRUE(gst_video_frame_map(&out, &info, output, GST_MAP_READ));
            const HostImage src = planeImage(in, 0, 4), got = planeImage(out, 0, 4);
            HostImage y = extractY(fc, src, width), yEqualized = y;
            cv::Mat yIn(height, width, CV_8UC1, y.bytes(), y.pitch());
            cv::Mat yOut(height, width, CV_8UC1, yEqualized.bytes(), yEqualized.pitch());
            if (clahe) cv::createCLAHE(3.0, cv::Size(5, 4))->apply(yIn, yOut);
            else cv::equalizeHist(yIn, yOut);
            HostImage expected = src;
            insertY(fc, yEqualized, expected);
            const auto d = cudafilters::test::compareImages(got, expected);
            EXPECT_EQ(d.maxAbs, 0) << format << (clahe ? " clahe" : " global") << ": " << describe(d);
            gst_video_frame_unmap(&in);
            gst_video_frame_unmap(&out);
            gst_buffer_unref(input);
            gst_buffer_unref(output);
            gst_harness_teardown(h);
        }
}
#endif

TEST(Packed422, OddWidthIsRefusedWithAnErrorThatSaysWhy) {
    for (const char* factory : {"cudaconvolve", "cudahisteq"}) {
        GstBus* bus = gst_bus_new();
        GstHarness* h = makeHarness(factory, {}, 2, bus);
        gst_harness_set_src_caps_str(h, capsString("YUY2", 7, 3).c_str());
        const GstVideoInfo info = videoInfo("YUY2", 7, 3);
        EXPECT_NE(gst_harness_push(h, randomFrame(info, 1, 0)), GST_FLOW_OK) << factory;
        std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
        ASSERT_FALSE(errors.empty()) << factory;
        GError* error = nullptr;
        gst_message_parse_error(errors[0], &error, nullptr);
        EXPECT_NE(std::string(error->message).find("odd width (7)"), std::string::npos) << error->message;
        EXPECT_NE(std::string(error->message).find("YUY2"), std::string::npos) << error->message;
        g_error_free(error);
        for (GstMessage* m : errors) gst_message_unref(m);
        gst_harness_teardown(h);
        releaseBus(bus);
    }
}

TEST(Packed422, FormatsTheElementsDoNotTakeAreNotNegotiated) {
    for (const char* format : {"AYUV", "v210", "Y41B"}) {
        GstHarness* h = makeHarness("cudaconvolve", {"preset=sharpen"});
        gst_harness_set_src_caps_str(h, capsString(format, 8, 4).c_str());
        EXPECT_EQ(gst_harness_push(h, randomFrame(videoInfo(format, 8, 4), 1, 0)), GST_FLOW_NOT_NEGOTIATED) << format;
        gst_harness_teardown(h);
    }
}

}  // namespace
