// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.24 and later: CUDA memory carries its writer's stream, and a writer may push a frame whose writes are
// still queued there (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC). The frames here come from a GstCudaBufferPool on a stream
// of the test's, written by a copy queued behind a 40 ms host function on that stream, and are pushed before it has
// run (formats that GStreamer's CUDA pool lays out as the element reads them on the device; a frame it maps on the
// host is synchronised by GStreamer's host mapping itself). Built only with GStreamer >= 1.24's CUDA library; run on the GPU host (CUDAFILTERS_TEST_BACKEND=cuda).
#include "element_harness.hpp"

#include <gst/cuda/gstcuda.h>

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

namespace elementtest {
namespace {

#define SKIP_WITHOUT_GPU()                                   \
    if (!cudaRequested() || cudaDeviceCount() == 0)          \
    GTEST_SKIP() << "needs CUDAFILTERS_TEST_BACKEND=cuda and a CUDA device"

// An upstream element that works on its own stream: frames of its pool, filled on the GPU after a delay.
class SlowStreamWriter {
public:
    SlowStreamWriter(GstCudaContext* context, const std::string& caps) : context_(context) {
        stream_ = gst_cuda_stream_new(context);
        pool_ = gst_cuda_buffer_pool_new(context);
        GstCaps* c = gst_caps_from_string(caps.c_str());
        gst_video_info_from_caps(&info_, c);
        GstStructure* config = gst_buffer_pool_get_config(pool_);
        gst_buffer_pool_config_set_params(config, c, guint(GST_VIDEO_INFO_SIZE(&info_)), 0, 0);
        gst_buffer_pool_config_set_cuda_stream(config, stream_);
        gst_caps_unref(c);
        ok_ = stream_ && gst_buffer_pool_set_config(pool_, config) && gst_buffer_pool_set_active(pool_, TRUE);
    }
    ~SlowStreamWriter() {
        if (stream_) {
            gst_cuda_context_push(context_);
            cudaStreamSynchronize(stream());
            gst_cuda_context_pop(nullptr);
        }
        gst_buffer_pool_set_active(pool_, FALSE);
        gst_object_unref(pool_);
        gst_clear_cuda_stream(&stream_);
    }
    bool ok() const { return ok_; }
    cudaStream_t stream() const { return static_cast<cudaStream_t>(gst_cuda_stream_get_handle(stream_)); }

    // A frame with `pixels`' samples, as the writer leaves it: its planes set to 0x5A at once, then, on the stream,
    // 40 ms of host function and the copy of the samples. `flagged`: the memory keeps the NEED_SYNC flag the device
    // mapping set; cleared, it claims to be complete (as a writer that forgot to say it is not).
    GstBuffer* write(GstBuffer* pixels, bool flagged) {
        GstBuffer* buffer = nullptr;
        if (gst_buffer_pool_acquire_buffer(pool_, &buffer, nullptr) != GST_FLOW_OK) return nullptr;
        GstVideoFrame src, dst;
        gst_video_frame_map(&src, &info_, pixels, GST_MAP_READ);
        gst_video_frame_map(&dst, &info_, buffer, GstMapFlags(GST_MAP_WRITE | GST_MAP_CUDA));
        gst_cuda_context_push(context_);
        for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&dst); ++p) {
            const std::size_t rows = std::size_t(GST_VIDEO_FRAME_COMP_HEIGHT(&dst, p));
            cudaMemset2D(GST_VIDEO_FRAME_PLANE_DATA(&dst, p), std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&dst, p)), 0x5A,
                         std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&dst, p)), rows);
        }
        cudaLaunchHostFunc(stream(), [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }, nullptr);
        for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&dst); ++p) {
            const std::size_t rows = std::size_t(GST_VIDEO_FRAME_COMP_HEIGHT(&dst, p));
            const std::size_t row = std::size_t(GST_VIDEO_FRAME_COMP_WIDTH(&dst, p)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&dst, p);
            cudaMemcpy2DAsync(GST_VIDEO_FRAME_PLANE_DATA(&dst, p), std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&dst, p)),
                              GST_VIDEO_FRAME_PLANE_DATA(&src, p), std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&src, p)),
                              row, rows, cudaMemcpyHostToDevice, stream());
        }
        gst_cuda_context_pop(nullptr);
        gst_video_frame_unmap(&dst);
        gst_video_frame_unmap(&src);
        GstMemory* mem = gst_buffer_peek_memory(buffer, 0);
        EXPECT_TRUE(GST_MEMORY_FLAG_IS_SET(mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC))
            << "a device write on a stream-carrying memory flags it";
        if (!flagged) GST_MEMORY_FLAG_UNSET(mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
        GST_BUFFER_PTS(buffer) = GST_BUFFER_PTS(pixels);
        GST_BUFFER_DURATION(buffer) = GST_BUFFER_DURATION(pixels);
        return buffer;
    }

private:
    GstCudaContext* context_;
    GstCudaStream* stream_ = nullptr;
    GstBufferPool* pool_ = nullptr;
    GstVideoInfo info_{};
    bool ok_ = false;
};

// Frames of `h`'s output that differ from `expected` (visible samples, read through host mappings).
int framesDiffering(const std::vector<GstBuffer*>& got, const std::vector<GstBuffer*>& expected, const GstVideoInfo& info) {
    int differing = std::abs(int(got.size()) - int(expected.size()));
    for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
        GstVideoFrame a, b;
        gst_video_frame_map(&a, const_cast<GstVideoInfo*>(&info), got[i], GST_MAP_READ);
        gst_video_frame_map(&b, const_cast<GstVideoInfo*>(&info), expected[i], GST_MAP_READ);
        bool same = true;
        for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&a) && same; ++p) {
            const std::size_t row = std::size_t(GST_VIDEO_FRAME_COMP_WIDTH(&a, p)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&a, p);
            for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&a, p) && same; ++y)
                same = std::memcmp(static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&a, p)) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&a, p),
                                   static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&b, p)) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&b, p),
                                   row) == 0;
        }
        gst_video_frame_unmap(&a);
        gst_video_frame_unmap(&b);
        differing += same ? 0 : 1;
    }
    return differing;
}

// Pushes `frames` written by a slow stream writer (flagged or not) through `launch` on CUDA, in CUDA memory on both
// pads, sharing the writer's context; returns the frames that differ from the CPU backend's.
int runFromSlowWriter(const char* launch, const char* format, const std::vector<GstBuffer*>& frames,
                      const std::vector<GstBuffer*>& expected, bool flagged) {
    const GstVideoInfo info = videoInfo(format, 385, 289);
    const std::string caps = capsString(format, 385, 289);
    std::string cudaCaps = caps;
    cudaCaps.insert(cudaCaps.find(','), "(memory:CUDAMemory)");
    GstCudaContext* context = gst_cuda_context_new(0);
    EXPECT_NE(context, nullptr);
    if (!context) return -1;
    int differing = -1;
    {
        SlowStreamWriter writer(context, caps);
        EXPECT_TRUE(writer.ok());
        GstHarness* h = gst_harness_new_parse(launch);
        GstContext* shared = gst_context_new(GST_CUDA_CONTEXT_TYPE, TRUE);
        gst_structure_set(gst_context_writable_structure(shared), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, context,
                          nullptr);
        gst_element_set_context(h->element, shared);
        gst_context_unref(shared);
        gst_harness_set_src_caps_str(h, cudaCaps.c_str());
        gst_harness_set_sink_caps_str(h, cudaCaps.c_str());
        std::vector<GstBuffer*> out;
        for (GstBuffer* f : frames) {
            GstBuffer* written = writer.write(f, flagged);
            EXPECT_NE(written, nullptr);
            if (!written) break;
            EXPECT_EQ(gst_harness_push(h, written), GST_FLOW_OK);
            while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
        }
        out = finish(h, out);
        differing = framesDiffering(out, expected, info);
        unrefAll(out);
        gst_harness_teardown(h);
    }
    gst_object_unref(context);
    return differing;
}

TEST(CudaStreams, FramesStillBeingWrittenOnTheirStreamAreWaitedFor) {
    SKIP_WITHOUT_GPU();
    ASSERT_TRUE(gst_cuda_load_library());
    for (const char* launch : {"cudaconvolve backend=cuda preset=gaussian size=5", "cudahisteq backend=cuda mode=clahe"}) {
        for (const char* format : {"RGBA", "NV12"}) {
            SCOPED_TRACE(std::string(launch) + " " + format);
            const GstVideoInfo info = videoInfo(format, 385, 289);
            std::vector<GstBuffer*> frames;
            for (int i = 0; i < 4; ++i) frames.push_back(randomFrame(info, 300 + i, GST_SECOND * i / 30));
            std::string cpu = launch;
            cpu.replace(cpu.find("backend=cuda"), 12, "backend=cpu");
            GstHarness* reference = gst_harness_new_parse(cpu.c_str());
            gst_harness_set_src_caps_str(reference, capsString(format, 385, 289).c_str());
            std::vector<GstBuffer*> expected;
            for (GstBuffer* f : frames) {
                EXPECT_EQ(gst_harness_push(reference, gst_buffer_ref(f)), GST_FLOW_OK);
                while (GstBuffer* b = gst_harness_try_pull(reference)) expected.push_back(b);
            }
            expected = finish(reference, expected);
            gst_harness_teardown(reference);

            EXPECT_EQ(runFromSlowWriter(launch, format, frames, expected, /*flagged=*/true), 0)
                << "frames read before their writer's stream had written them";
            // The control: the same frames claiming to be complete are read before the copy, so the check above
            // can fail.
            EXPECT_EQ(runFromSlowWriter(launch, format, frames, expected, /*flagged=*/false), int(frames.size()))
                << "frames not flagged came out right: the writer was not slow enough for the test to mean anything";
            unrefAll(expected);
            unrefAll(frames);
        }
    }
}

}  // namespace
}  // namespace elementtest
