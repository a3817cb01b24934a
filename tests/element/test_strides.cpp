// SPDX-License-Identifier: LGPL-2.1-or-later
// Buffers whose planes have their own offsets and strides (GstVideoMeta), odd ones included — a 16-bit plane can
// then start or continue off its sample size — give the same pixels as the same frame in the default layout. And a
// whole 8K frame through both elements matches the engine. (Found by the element fuzzer: odd strides of GRAY16 made the CPU path
// read misaligned samples.)
#include "element_harness.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/histeq.hpp>
#include <cudafilters/kernel_text.hpp>

#include <cstring>
#include <tuple>

using namespace elementtest;

namespace {

// Copy of `frame` (default layout) with plane p starting at an odd offset and its stride grown by 2p + 1 bytes.
GstBuffer* paddedCopy(const GstVideoInfo& info, GstBuffer* frame) {
    gsize offsets[GST_VIDEO_MAX_PLANES] = {};
    gint strides[GST_VIDEO_MAX_PLANES] = {};
    gsize size = 1;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
        strides[p] = GST_VIDEO_INFO_PLANE_STRIDE(&info, p) + gint(2 * p + 1);
        offsets[p] = size;
        size += gsize(strides[p]) * GST_VIDEO_INFO_COMP_HEIGHT(&info, p == 0 ? 0 : 1) + 1;
    }
    GstBuffer* padded = gst_buffer_new_allocate(nullptr, size, nullptr);
    gst_buffer_memset(padded, 0, 0xA5, size);  // poison between rows and planes
    gst_buffer_add_video_meta_full(padded, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                   GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
    GstVideoFrame src, dst;
    EXPECT_TRUE(gst_video_frame_map(&src, &info, frame, GST_MAP_READ));
    EXPECT_TRUE(gst_video_frame_map(&dst, &info, padded, GST_MAP_WRITE));
    EXPECT_TRUE(gst_video_frame_copy(&dst, &src));
    gst_video_frame_unmap(&dst);
    gst_video_frame_unmap(&src);
    GST_BUFFER_PTS(padded) = GST_BUFFER_PTS(frame);
    GST_BUFFER_DURATION(padded) = GST_BUFFER_DURATION(frame);
    return padded;
}

// Row bytes of every plane equal (the padding of either buffer is not compared).
void expectSamePixels(const GstVideoInfo& info, GstBuffer* a, GstBuffer* b, const std::string& what) {
    GstVideoFrame fa, fb;
    ASSERT_TRUE(gst_video_frame_map(&fa, &info, a, GST_MAP_READ));
    ASSERT_TRUE(gst_video_frame_map(&fb, &info, b, GST_MAP_READ));
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa); ++p) {
        const int comp = p == 0 ? 0 : 1;
        const gsize rowBytes = gsize(GST_VIDEO_FRAME_COMP_WIDTH(&fa, comp)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, comp);
        int differing = 0;
        for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&fa, comp); ++y)
            differing += std::memcmp(static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&fa, p)) +
                                         gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p),
                                     static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&fb, p)) +
                                         gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p),
                                     rowBytes) != 0;
        EXPECT_EQ(differing, 0) << what << ": rows of plane " << p << " differ";
    }
    gst_video_frame_unmap(&fb);
    gst_video_frame_unmap(&fa);
}

std::vector<std::string> filterProps(const std::string& element) {
    if (element == "cudaconvolve") return {"preset=gaussian", "size=5", "planes=all"};
    return {"mode=clahe", "tiles-x=3", "tiles-y=2", "smoothing=0.5"};
}

class Strides : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Strides, OddOffsetsAndStridesGiveTheDefaultLayoutsPixels) {
    const auto& [element, format] = GetParam();
    const GstVideoInfo info = videoInfo(format.c_str(), 61, 37);
    GstHarness* plain = makeHarness(element.c_str(), filterProps(element), 2);
    GstHarness* padded = makeHarness(element.c_str(), filterProps(element), 2);
    gst_harness_set_src_caps_str(plain, capsString(format.c_str(), 61, 37).c_str());
    gst_harness_set_src_caps_str(padded, capsString(format.c_str(), 61, 37).c_str());
    for (int i = 0; i < 3; ++i) {
        GstBuffer* frame = randomFrame(info, std::uint32_t(40 + i), GstClockTime(i) * GST_SECOND / 30);
        ASSERT_EQ(gst_harness_push(padded, paddedCopy(info, frame)), GST_FLOW_OK);
        ASSERT_EQ(gst_harness_push(plain, frame), GST_FLOW_OK);
    }
    std::vector<GstBuffer*> want = finish(plain), got = finish(padded);
    ASSERT_EQ(want.size(), 3u);
    ASSERT_EQ(got.size(), 3u);
    for (std::size_t i = 0; i < want.size(); ++i)
        expectSamePixels(info, want[i], got[i], element + " " + format + " frame " + std::to_string(i));
    unrefAll(want);
    unrefAll(got);
    gst_harness_teardown(plain);
    gst_harness_teardown(padded);
}

INSTANTIATE_TEST_SUITE_P(Formats, Strides,
                         ::testing::Combine(::testing::Values("cudaconvolve", "cudahisteq"),
                                            ::testing::Values("GRAY16_LE", "GRAY8", "I420", "NV12", "RGB", "BGRA",
                                                              "Y444", "I420_10LE", "P010_10LE")),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// A whole 8K frame through both elements equals the engine's CPU backend on the same frame, bit for bit (integer taps
// with a power-of-two divisor: every backend rounds alike; CLAHE is bit-exact everywhere).
TEST(Sizes, Whole8KFrameMatchesTheEngine) {
    const int width = 7680, height = 4320;
    const GstVideoInfo info = videoInfo("GRAY8", width, height);
    GstHarness* h = gst_harness_new_parse(("cudaconvolve backend=" + testBackend() +
                                           " kernel=\"1 2 1; 2 4 2; 1 2 1\" ! cudahisteq backend=" + testBackend() +
                                           " mode=clahe")
                                              .c_str());
    ASSERT_NE(h, nullptr);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", width, height).c_str());
    GstBuffer* input = randomFrame(info, 8, 0);
    ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(input)), GST_FLOW_OK);
    std::vector<GstBuffer*> out = finish(h);
    ASSERT_EQ(out.size(), 1u);

    GstVideoFrame in, got;
    ASSERT_TRUE(gst_video_frame_map(&in, &info, input, GST_MAP_READ));
    ASSERT_TRUE(gst_video_frame_map(&got, &info, out[0], GST_MAP_READ));
    HostImage src = planeImage(in, 0, 1), mid(width, height, 1, SampleType::U8), want(width, height, 1, SampleType::U8);
    ConvolveDesc convolve;
    convolve.kernels = parseKernelText("1 2 1; 2 4 2; 1 2 1");
    makeConvolver(ConvolvePlan::make(convolve, SampleType::U8, 1), Backend::Cpu)->process(src.view(), mid.view());
    EqualizeDesc clahe;
    clahe.mode = EqualizeMode::Clahe;
    makeEqualizer(EqualizePlan::make(clahe, SampleType::U8, 1), Backend::Cpu)->process(mid.view(), want.view());
    const cudafilters::test::Difference d = cudafilters::test::compareImages(planeImage(got, 0, 1), want);
    EXPECT_EQ(d.differing, 0) << "pixels differing from the engine, largest by " << d.maxAbs;
    gst_video_frame_unmap(&got);
    gst_video_frame_unmap(&in);
    gst_buffer_unref(input);
    unrefAll(out);
    gst_harness_teardown(h);
}

}  // namespace
