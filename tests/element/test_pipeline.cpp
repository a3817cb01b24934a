// SPDX-License-Identifier: LGPL-2.1-or-later
// The frame pipeline: frames in == frames out through EOS for every depth, order and metadata kept, flush and caps
// changes mid-stream, live property changes, the LATENCY answer, metas, allocation, backend choice and fallback.
#include "element_harness.hpp"
#include "histeq_oracle.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/presets.hpp>

using namespace elementtest;

namespace {

constexpr GstClockTime kFrame = GST_SECOND / 30;

// Expected output of cudaconvolve for a GRAY8 frame.
HostImage expectGray(GstBuffer* input, const GstVideoInfo& info, const ConvolveDesc& desc) {
    GstVideoFrame in;
    gst_video_frame_map(&in, &info, input, GST_MAP_READ);
    HostImage src = planeImage(in, 0, 1);
    gst_video_frame_unmap(&in);
    HostImage expected = src;
    reference::makeConvolver(ConvolvePlan::make(desc, SampleType::U8, 1))->process(src.view(), expected.view());
    return expected;
}

double grayDifference(GstBuffer* output, const GstVideoInfo& info, const HostImage& expected) {
    GstVideoFrame out;
    gst_video_frame_map(&out, &info, output, GST_MAP_READ);
    HostImage got = planeImage(out, 0, 1);
    gst_video_frame_unmap(&out);
    return cudafilters::test::compareImages(got, expected).maxAbs;
}

class Depth : public ::testing::TestWithParam<int> {};

TEST_P(Depth, FramesInEqualFramesOutInOrderWithMetadata) {
    const int depth = GetParam();
    const GstVideoInfo info = videoInfo("GRAY8", 97, 53);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=box", "size=3"}, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 97, 53).c_str());
    const int frames = 11;
    std::vector<GstBuffer*> outputs, inputs;
    for (int i = 0; i < frames; ++i) {
        GstBuffer* in = randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame);
        GST_BUFFER_DTS(in) = GstClockTime(i) * kFrame;
        GST_BUFFER_OFFSET(in) = guint64(i);
        if (i % 3) GST_BUFFER_FLAG_SET(in, GST_BUFFER_FLAG_DELTA_UNIT);
        inputs.push_back(gst_buffer_ref(in));
        ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
        // Every frame leaves once filtered, without waiting for the next one (the pull waits for it).
        GstBuffer* out = gst_harness_pull(h);
        ASSERT_NE(out, nullptr) << "frame " << i << " is held";
        outputs.push_back(out);
    }
    outputs = finish(h, outputs);
    ASSERT_EQ(int(outputs.size()), frames);
    const ConvolveDesc box = presetDesc(Preset::Box, 3);
    for (int i = 0; i < frames; ++i) {
        GstBuffer* out = outputs[std::size_t(i)];
        EXPECT_EQ(GST_BUFFER_PTS(out), GstClockTime(i) * kFrame);
        EXPECT_EQ(GST_BUFFER_DTS(out), GstClockTime(i) * kFrame);
        EXPECT_EQ(GST_BUFFER_DURATION(out), kFrame);
        EXPECT_EQ(GST_BUFFER_OFFSET(out), guint64(i));
        EXPECT_EQ(GST_BUFFER_FLAG_IS_SET(out, GST_BUFFER_FLAG_DELTA_UNIT), i % 3 != 0) << i;
        EXPECT_LE(grayDifference(out, info, expectGray(inputs[std::size_t(i)], info, box)), 1) << "frame " << i;
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

// The element adds its processing time, whatever the depth: the floor before any frame was measured, then the
// slowest of the recent frames — more than nothing, less than a frame period for these small frames.
TEST_P(Depth, LatencyQueryAddsTheProcessingTimeNotFrames) {
    const int depth = GetParam();
    GstHarness* h = makeHarness("cudaconvolve", {"preset=box"}, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 64, 48, 25).c_str());
    gst_harness_set_upstream_latency(h, 5 * GST_MSECOND);
    EXPECT_EQ(gst_harness_query_latency(h), 5 * GST_MSECOND + GST_MSECOND) << "the floor before any frame";
    const GstVideoInfo info = videoInfo("GRAY8", 64, 48);
    for (int i = 0; i < 12; ++i) {
        ASSERT_EQ(gst_harness_push(h, randomFrame(info, std::uint32_t(i), GstClockTime(i) * GST_SECOND / 25)), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(h));
    }
    const GstClockTime latency = gst_harness_query_latency(h);
    EXPECT_GE(latency, 5 * GST_MSECOND + GST_MSECOND);
    EXPECT_LT(latency, 5 * GST_MSECOND + GST_SECOND / 25);
    gst_harness_teardown(h);
}

// Frames slower than the latency answered: the element posts a LATENCY message (the pipeline asks again) and the
// next answer covers them.
TEST(Latency, GrowsWithAnnouncementWhenFramesTakeLonger) {
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian", "size=31", "algorithm=direct"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 640, 480).c_str());
    const GstClockTime before = gst_harness_query_latency(h);
    const GstVideoInfo info = videoInfo("GRAY8", 640, 480);
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(gst_harness_push(h, randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame)), GST_FLOW_OK);
        gst_buffer_unref(gst_harness_pull(h));
    }
    const GstClockTime after = gst_harness_query_latency(h);
    std::vector<GstMessage*> latency = popMessages(bus, GST_MESSAGE_LATENCY);
    if (!cudaRequested()) {  // a 31 x 31 kernel on the CPU takes longer than the floor
        EXPECT_GT(after, before);
        EXPECT_GE(latency.size(), 1u) << "a latency that grew is announced";
    }
    EXPECT_LT(after, GST_SECOND / 2);
    std::printf("[ latency ] %s 640x480 gaussian 31x31: %.2f ms answered before frames, %.2f ms after, %zu messages\n",
                testBackend().c_str(), double(before) / 1e6, double(after) / 1e6, latency.size());
    for (GstMessage* m : latency) gst_message_unref(m);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST_P(Depth, FlushDropsFramesInFlight) {
    const int depth = GetParam();
    const GstVideoInfo info = videoInfo("GRAY8", 31, 17);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian"}, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 31, 17).c_str());
    std::vector<GstBuffer*> outputs;
    for (int i = 0; i < 5; ++i) ASSERT_EQ(gst_harness_push(h, randomFrame(info, 7, GstClockTime(i) * kFrame)), GST_FLOW_OK);
    ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
    ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    // What left before the flush left in order; what was in flight is dropped.
    while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    EXPECT_LE(outputs.size(), 5u);
    for (std::size_t i = 0; i < outputs.size(); ++i) EXPECT_EQ(GST_BUFFER_PTS(outputs[i]), GstClockTime(i) * kFrame);
    unrefAll(outputs);

    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(gst_harness_push(h, randomFrame(info, 8, GstClockTime(100 + i) * kFrame)), GST_FLOW_OK);
    outputs = finish(h);
    ASSERT_EQ(outputs.size(), 4u) << "frames held at the flush must be dropped, the later ones all pushed";
    for (int i = 0; i < 4; ++i) EXPECT_EQ(GST_BUFFER_PTS(outputs[std::size_t(i)]), GstClockTime(100 + i) * kFrame);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

TEST_P(Depth, CapsChangeMidStreamDrainsAndReconfigures) {
    const int depth = GetParam();
    GstHarness* h = makeHarness("cudaconvolve", {"preset=sobel"}, depth);
    const GstVideoInfo first = videoInfo("GRAY8", 45, 29);
    const GstVideoInfo second = videoInfo("RGBA", 23, 11);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 45, 29).c_str());
    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 3; ++i) {
        inputs.push_back(randomFrame(first, std::uint32_t(i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
    }
    gst_harness_set_src_caps_str(h, capsString("RGBA", 23, 11).c_str());
    std::vector<GstBuffer*> outputs;
    while (GstBuffer* b = gst_harness_try_pull(h)) outputs.push_back(b);
    EXPECT_EQ(outputs.size(), 3u) << "frames of the old format leave before the new caps";
    for (int i = 3; i < 6; ++i) {
        inputs.push_back(randomFrame(second, std::uint32_t(i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
    }
    outputs = finish(h, outputs);
    ASSERT_EQ(outputs.size(), 6u);
    const ConvolveDesc sobel = presetDesc(Preset::SobelMagnitude, 3);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(gst_buffer_get_size(outputs[std::size_t(i)]), GST_VIDEO_INFO_SIZE(&first));
        EXPECT_LE(grayDifference(outputs[std::size_t(i)], first, expectGray(inputs[std::size_t(i)], first, sobel)), 1);
    }
    for (int i = 3; i < 6; ++i) {
        EXPECT_EQ(gst_buffer_get_size(outputs[std::size_t(i)]), GST_VIDEO_INFO_SIZE(&second));
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &second, inputs[std::size_t(i)], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &second, outputs[std::size_t(i)], GST_MAP_READ));
        HostImage src = planeImage(in, 0, 4), got = planeImage(out, 0, 4), expected = src;
        ConvolveDesc desc = sobel;
        desc.channelMask = 0x7;
        reference::makeConvolver(ConvolvePlan::make(desc, SampleType::U8, 4))->process(src.view(), expected.view());
        EXPECT_LE(cudafilters::test::compareImages(got, expected).maxAbs, 1) << "frame " << i;
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

TEST_P(Depth, LivePropertyChangeTakesEffectWithinDepthFrames) {
    const int depth = GetParam();
    const GstVideoInfo info = videoInfo("GRAY8", 40, 30);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=box", "size=3"}, depth);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 40, 30).c_str());
    gst_harness_play(h);
    const int frames = 10, change = 4;
    std::vector<GstBuffer*> inputs, outputs;
    for (int i = 0; i < frames; ++i) {
        if (i == change) g_object_set(h->element, "size", 7, "bias", 10.0, nullptr);
        inputs.push_back(randomFrame(info, std::uint32_t(40 + i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
    }
    outputs = finish(h);
    ASSERT_EQ(outputs.size(), std::size_t(frames));
    ConvolveDesc before = presetDesc(Preset::Box, 3), after = presetDesc(Preset::Box, 7);
    after.bias = 10;
    for (int i = 0; i < frames; ++i) {
        const bool changed = i >= change + depth - 1;  // the promise: within depth frames of the change
        const double d = grayDifference(outputs[std::size_t(i)], info,
                                        expectGray(inputs[std::size_t(i)], info, i < change ? before : after));
        if (i < change || changed) {
            EXPECT_LE(d, 1) << "frame " << i;
        }
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Depths, Depth, ::testing::Values(1, 2, 3, 4));

TEST(Metas, ContentMetasKeptMemoryMetasNot) {
    const GstVideoInfo info = videoInfo("NV12", 65, 33);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=sharpen"}, 3);
    gst_harness_set_src_caps_str(h, capsString("NV12", 65, 33).c_str());
    GstBuffer* in = randomFrame(info, 3, 0);
    gst_buffer_add_video_region_of_interest_meta(in, "face", 3, 4, 20, 10);
    GstCaps* reference = gst_caps_new_empty_simple("timestamp/x-test");
    gst_buffer_add_reference_timestamp_meta(in, reference, 123456, GST_CLOCK_TIME_NONE);
    gst_buffer_add_video_meta(in, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 65, 33);
    ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 1u);
    GstBuffer* out = outputs[0];
    GstVideoRegionOfInterestMeta* roi = gst_buffer_get_video_region_of_interest_meta(out);
    ASSERT_NE(roi, nullptr);
    EXPECT_EQ(roi->x, 3u);
    EXPECT_EQ(roi->w, 20u);
    GstReferenceTimestampMeta* ts = gst_buffer_get_reference_timestamp_meta(out, reference);
    ASSERT_NE(ts, nullptr);
    EXPECT_EQ(ts->timestamp, 123456u);
    int videoMetas = 0;
    gpointer state = nullptr;
    while (gst_buffer_iterate_meta_filtered(out, &state, GST_VIDEO_META_API_TYPE)) ++videoMetas;
    EXPECT_LE(videoMetas, 1) << "the input's GstVideoMeta describes the input's memory, not the output's";
    gst_caps_unref(reference);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

TEST(Passthrough, IdentityKernelPassesBuffersThrough) {
    const GstVideoInfo info = videoInfo("RGBx", 21, 13);
    GstHarness* h = makeHarness("cudaconvolve", {"kernel=0 0 0; 0 1 0; 0 0 0"}, 3);
    gst_harness_set_src_caps_str(h, capsString("RGBx", 21, 13).c_str());
    GstBuffer* in = randomFrame(info, 5, 0);
    ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(h);
    ASSERT_NE(out, nullptr) << "passthrough holds no frame";
    EXPECT_EQ(out, in);
    EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h->element)));
    EXPECT_EQ(gst_harness_query_latency(h), 0u);
    gst_buffer_unref(out);
    gst_buffer_unref(in);
    gst_harness_teardown(h);
}

TEST(Allocation, PinnedMemoryIsCountedAndAllReturned) {
    if (!cudaRequested()) GTEST_SKIP() << "pinned memory is taken by the CUDA backend only";
    GstPlugin* plugin = gst_plugin_load_by_name("cudafilters");  // registering happens when the plugin loads
    ASSERT_NE(plugin, nullptr);
    gst_object_unref(plugin);
    GstAllocator* allocator = gst_allocator_find("CudaFiltersPinnedMemory");
    ASSERT_NE(allocator, nullptr) << "a CUDA build of the plugin registers its allocator";
    auto pinned = [allocator] {
        guint64 bytes = 0;
        g_object_get(allocator, "pinned-bytes", &bytes, nullptr);
        return bytes;
    };
    const guint64 before = pinned();
    const GstVideoInfo info = videoInfo("GRAY8", 640, 480);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=box"}, 3);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 640, 480).c_str());
    for (int i = 0; i < 6; ++i)  // pageable input: staged through pinned areas
        ASSERT_EQ(gst_harness_push(h, randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame)), GST_FLOW_OK);
    EXPECT_GE(pinned(), before + GST_VIDEO_INFO_SIZE(&info)) << "the staging areas are pinned and counted";
    std::vector<GstBuffer*> outputs = finish(h);
    EXPECT_EQ(outputs.size(), 6u);
    unrefAll(outputs);
    gst_harness_teardown(h);
    EXPECT_EQ(pinned(), before) << "every pinned byte is returned after teardown";
    gst_object_unref(allocator);
}

TEST(Allocation, ProposesAPoolWithVideoMetaAndUsesIt) {
    const GstVideoInfo info = videoInfo("I420", 129, 67);
    GstHarness* h = makeHarness("cudaconvolve", {"preset=box", "planes=all"}, 2);
    gst_harness_set_src_caps_str(h, capsString("I420", 129, 67).c_str());
    gst_harness_play(h);
    GstCaps* caps = gst_caps_from_string(capsString("I420", 129, 67).c_str());
    GstQuery* query = gst_query_new_allocation(caps, TRUE);
    ASSERT_TRUE(gst_pad_peer_query(h->srcpad, query));
    ASSERT_GE(gst_query_get_n_allocation_pools(query), 1u);
    EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
    GstBufferPool* pool = nullptr;
    guint size = 0, min = 0, max = 0;
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
    ASSERT_NE(pool, nullptr);
    EXPECT_GE(size, GST_VIDEO_INFO_SIZE(&info));
    EXPECT_GE(min, 3u) << "upstream must be able to fill the slots in flight";
    GstStructure* config = gst_buffer_pool_get_config(pool);
    GstAllocator* allocator = nullptr;
    gst_buffer_pool_config_get_allocator(config, &allocator, nullptr);
    if (cudaRequested()) {
        ASSERT_NE(allocator, nullptr);
        EXPECT_STREQ(allocator->mem_type, "CudaFiltersPinnedMemory") << "with CUDA upstream gets pinned memory";
    }
    gst_structure_free(config);
    ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));

    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 4; ++i) {
        GstBuffer* buffer = nullptr;
        ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
        GstBuffer* random = randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame);
        GstVideoFrame src, dst;
        gst_video_frame_map(&src, &info, random, GST_MAP_READ);
        gst_video_frame_map(&dst, &info, buffer, GST_MAP_WRITE);
        gst_video_frame_copy(&dst, &src);
        gst_video_frame_unmap(&src);
        gst_video_frame_unmap(&dst);
        gst_buffer_unref(random);
        GST_BUFFER_PTS(buffer) = GstClockTime(i) * kFrame;
        inputs.push_back(gst_buffer_ref(buffer));
        ASSERT_EQ(gst_harness_push(h, buffer), GST_FLOW_OK);
    }
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 4u);
    ConvolveDesc box = presetDesc(Preset::Box, 3);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[i], GST_MAP_READ));
        for (int p = 0; p < 3; ++p) {
            HostImage src = planeImage(in, p, 1), got = planeImage(out, p, 1), expected = src;
            reference::makeConvolver(ConvolvePlan::make(box, SampleType::U8, 1))->process(src.view(), expected.view());
            EXPECT_LE(cudafilters::test::compareImages(got, expected).maxAbs, 1) << "frame " << i << " plane " << p;
        }
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
    if (allocator) gst_object_unref(allocator);
    gst_query_unref(query);
    gst_caps_unref(caps);
    gst_harness_teardown(h);
}

TEST(Backend, AutoWithoutDeviceWarnsAndRunsOnCpu) {
    if (cudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present: auto picks CUDA";
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"backend=auto", "preset=box"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 8, 8).c_str());
    gst_harness_play(h);
    const GstVideoInfo info = videoInfo("GRAY8", 8, 8);
    ASSERT_EQ(gst_harness_push(h, randomFrame(info, 1, 0)), GST_FLOW_OK);
    gchar* active = nullptr;
    g_object_get(h->element, "active-backend", &active, nullptr);
    EXPECT_STREQ(active, "cpu");
    g_free(active);
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(messageText(warnings[0]).find("CPU"), std::string::npos) << messageText(warnings[0]);
    for (GstMessage* m : warnings) gst_message_unref(m);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(Backend, CudaWithoutDeviceFailsToStart) {
    if (cudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
    GstElement* element = gst_element_factory_make("cudaconvolve", nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(element, bus);
    gst_util_set_object_arg(G_OBJECT(element), "backend", "cuda");
    EXPECT_EQ(gst_element_set_state(element, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    std::vector<GstMessage*> errors = popMessages(bus, GST_MESSAGE_ERROR);
    ASSERT_FALSE(errors.empty());
    EXPECT_NE(messageText(errors[0]).find("backend=cuda"), std::string::npos) << messageText(errors[0]);
    for (GstMessage* m : errors) gst_message_unref(m);
    gst_element_set_state(element, GST_STATE_NULL);
    gst_object_unref(element);
    gst_object_unref(bus);
}

TEST(Backend, CudaFailureWithAutoSwitchesToCpuWithoutLosingFrames) {
    if (cudaDeviceCount() == 0) GTEST_SKIP() << "needs a CUDA device";
#ifndef CUDAFILTERS_TEST_SEAMS
    GTEST_SKIP() << "needs the plugin's fault seam (meson -Dtest-seams=enabled)";
#endif
    g_setenv("CUDAFILTERS_TEST_INJECT_FAULT", "upload@3", TRUE);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudaconvolve", {"backend=auto", "preset=sobel-x"}, 3, bus);
    const GstVideoInfo info = videoInfo("GRAY8", 77, 41);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 77, 41).c_str());
    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 8; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK) << "frame " << i;
    }
    g_unsetenv("CUDAFILTERS_TEST_INJECT_FAULT");
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 8u);
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(GST_BUFFER_PTS(outputs[std::size_t(i)]), GstClockTime(i) * kFrame);
        EXPECT_EQ(grayDifference(outputs[std::size_t(i)], info,
                                 expectGray(inputs[std::size_t(i)], info, presetDesc(Preset::SobelX, 3))), 0)
            << "frame " << i;
    }
    gchar* active = nullptr;
    g_object_get(h->element, "active-backend", &active, nullptr);
    EXPECT_STREQ(active, "cpu");
    g_free(active);
    std::vector<GstMessage*> warnings = popMessages(bus, GST_MESSAGE_WARNING);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(messageText(warnings[0]).find("cudaMemcpy2DAsync"), std::string::npos) << messageText(warnings[0]);
    for (GstMessage* m : warnings) gst_message_unref(m);
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(HistEq, PostsOneMessagePerFrameWithStatistics) {
    const GstVideoInfo info = videoInfo("GRAY8", 50, 20);
    GstBus* bus = gst_bus_new();
    GstHarness* h = makeHarness("cudahisteq", {"post-messages=true"}, 2, bus);
    gst_harness_set_src_caps_str(h, capsString("GRAY8", 50, 20).c_str());
    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 4; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
    }
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 4u);
    std::vector<GstMessage*> messages = popMessages(bus, GST_MESSAGE_ELEMENT);
    ASSERT_EQ(messages.size(), 4u);
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const GstStructure* s = gst_message_get_structure(messages[i]);
        ASSERT_TRUE(gst_structure_has_name(s, "cudahisteq"));
        guint64 timestamp = 0, frame = 0;
        gst_structure_get_uint64(s, "timestamp", &timestamp);
        gst_structure_get_uint64(s, "frame", &frame);
        EXPECT_EQ(timestamp, GstClockTime(i) * kFrame);
        EXPECT_EQ(frame, i);
        // Against the input: histogram, min, max and mean of its samples.
        GstVideoFrame in;
        gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ);
        HostImage src = planeImage(in, 0, 1);
        gst_video_frame_unmap(&in);
        std::vector<guint> histogram(256, 0);
        double sum = 0;
        guint lo = 255, hi = 0;
        for (int y = 0; y < src.height(); ++y)
            for (int x = 0; x < src.width(); ++x) {
                const guint v = guint(src.sample(x, y, 0));
                ++histogram[v];
                sum += v;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        const GValue* bins = gst_structure_get_value(s, "histogram");
        ASSERT_NE(bins, nullptr);
        ASSERT_EQ(gst_value_array_get_size(bins), 256u);
        for (guint b = 0; b < 256; ++b)
            ASSERT_EQ(g_value_get_uint(gst_value_array_get_value(bins, b)), histogram[b]) << "bin " << b;
        guint mn = 0, mx = 0;
        double mean = 0;
        gst_structure_get_uint(s, "min", &mn);
        gst_structure_get_uint(s, "max", &mx);
        gst_structure_get_double(s, "mean", &mean);
        EXPECT_EQ(mn, lo);
        EXPECT_EQ(mx, hi);
        EXPECT_NEAR(mean, sum / (50 * 20), 1e-6);
    }
    for (GstMessage* m : messages) gst_message_unref(m);
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
    gst_object_unref(bus);
}

TEST(HistEq, TemporalSmoothingFollowsFrameOrderAcrossSlots) {
    const GstVideoInfo info = videoInfo("NV12", 67, 35);
    GstHarness* h = makeHarness("cudahisteq", {"mode=clahe", "tiles-x=3", "tiles-y=2", "smoothing=0.6"}, 4);
    gst_harness_set_src_caps_str(h, capsString("NV12", 67, 35).c_str());
    std::vector<GstBuffer*> inputs;
    for (int i = 0; i < 7; ++i) {
        inputs.push_back(randomFrame(info, std::uint32_t(70 + i), GstClockTime(i) * kFrame));
        ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(inputs.back())), GST_FLOW_OK);
    }
    std::vector<GstBuffer*> outputs = finish(h);
    ASSERT_EQ(outputs.size(), 7u);
    EqualizeDesc desc;
    desc.mode = EqualizeMode::Clahe;
    desc.tilesX = 3;
    desc.tilesY = 2;
    desc.smoothing = 0.6;
    // The independent oracle (tests/common/histeq_oracle.hpp), fed the frames in presentation order: its smoothing
    // state must match the element's whatever slot each frame ran in.
    cudafilters::test::OracleEqualizer oracle(desc, SampleType::U8);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        GstVideoFrame in, out;
        gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ);
        gst_video_frame_map(&out, &info, outputs[i], GST_MAP_READ);
        HostImage src = planeImage(in, 0, 1), got = planeImage(out, 0, 1);
        const HostImage expected = oracle.process(src);
        EXPECT_EQ(cudafilters::test::compareImages(got, expected).maxAbs, 0) << "frame " << i;
        HostImage uvIn = planeImage(in, 1, 2), uvOut = planeImage(out, 1, 2);
        EXPECT_EQ(cudafilters::test::compareImages(uvIn, uvOut).maxAbs, 0) << "chroma kept, frame " << i;
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

}  // namespace
