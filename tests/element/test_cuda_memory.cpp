// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:CUDAMemory between the elements and towards CUDA-memory neighbours, the shared CUDA context, renegotiation
// between system and CUDA memory, and pageable memory registered for DMA while it lives. Pixels are compared with the
// same settings on the CPU backend in system memory. The GPU tests run on the GPU host (CUDAFILTERS_TEST_BACKEND=cuda)
// and are skipped elsewhere; the CPU test checks that CUDA memory is never offered where it cannot be used.
#include "element_harness.hpp"

#include "../../plugin/memory/framefence.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>

namespace elementtest {
namespace {

constexpr const char* kCudaMemory = "memory:CUDAMemory";

bool needGpu() {
    return cudaRequested() && cudaDeviceCount() > 0;
}
#define SKIP_WITHOUT_GPU() \
    if (!needGpu()) GTEST_SKIP() << "needs CUDAFILTERS_TEST_BACKEND=cuda and a CUDA device"

bool capsAreCudaMemory(GstCaps* caps) {
    if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
    GstCapsFeatures* f = gst_caps_get_features(caps, 0);
    return f && gst_caps_features_contains(f, kCudaMemory);
}

bool padCarriesCudaMemory(GstElement* element, const char* pad) {
    GstPad* p = gst_element_get_static_pad(element, pad);
    GstCaps* caps = gst_pad_get_current_caps(p);
    const bool cuda = capsAreCudaMemory(caps);
    if (caps) gst_caps_unref(caps);
    gst_object_unref(p);
    return cuda;
}

bool bufferIsCudaMemory(GstBuffer* buffer) {
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i)
        if (!gst_memory_is_type(gst_buffer_peek_memory(buffer, i), "gst.cuda.memory")) return false;
    return gst_buffer_n_memory(buffer) > 0;
}

// Visible samples of every plane equal (padding ignored); the frames are read through host mappings.
::testing::AssertionResult framesEqual(GstBuffer* a, GstBuffer* b, const GstVideoInfo& info) {
    GstVideoFrame fa, fb;
    if (!gst_video_frame_map(&fa, const_cast<GstVideoInfo*>(&info), a, GST_MAP_READ))
        return ::testing::AssertionFailure() << "cannot map a";
    if (!gst_video_frame_map(&fb, const_cast<GstVideoInfo*>(&info), b, GST_MAP_READ)) {
        gst_video_frame_unmap(&fa);
        return ::testing::AssertionFailure() << "cannot map b";
    }
    ::testing::AssertionResult result = ::testing::AssertionSuccess();
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa) && result; ++p) {
        int comp = 0;
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c)
            if (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) == p) {
                comp = int(c);
                break;
            }
        const int height = GST_VIDEO_FRAME_COMP_HEIGHT(&fa, comp);
        const std::size_t row = std::size_t(GST_VIDEO_FRAME_COMP_WIDTH(&fa, comp)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, comp);
        for (int y = 0; y < height; ++y) {
            const auto* ra = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&fa, p)) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p);
            const auto* rb = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&fb, p)) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p);
            if (std::memcmp(ra, rb, row) != 0) {
                result = ::testing::AssertionFailure() << "plane " << p << " row " << y << " differs";
                break;
            }
        }
    }
    gst_video_frame_unmap(&fa);
    gst_video_frame_unmap(&fb);
    return result;
}

// `got` against `expected` in order: as many frames, each equal to its counterpart (framesEqual) and, given the
// input frames, at its input's timestamp.
::testing::AssertionResult sameFramesInOrder(const std::vector<GstBuffer*>& got, const std::vector<GstBuffer*>& expected,
                                             const GstVideoInfo& info, const std::vector<GstBuffer*>* inputs = nullptr) {
    if (got.size() != expected.size() || (inputs && inputs->size() != got.size()))
        return ::testing::AssertionFailure() << got.size() << " frames, expected " << expected.size()
                                             << (inputs ? " from " + std::to_string(inputs->size()) + " inputs" : "");
    ::testing::AssertionResult result = ::testing::AssertionSuccess();
    for (std::size_t i = 0; i < got.size(); ++i) {
        const ::testing::AssertionResult same = framesEqual(got[i], expected[i], info);
        if (!same) result = ::testing::AssertionFailure() << result.message() << "frame " << i << ": " << same.message() << "; ";
        if (inputs && GST_BUFFER_PTS(got[i]) != GST_BUFFER_PTS((*inputs)[i]))
            result = ::testing::AssertionFailure() << result.message() << "frame " << i << " at " << GST_BUFFER_PTS(got[i])
                                                   << " ns, its input at " << GST_BUFFER_PTS((*inputs)[i]) << " ns; ";
    }
    return result;
}

// Runs `launch` (elements of ours, backend given by `backend`) in a harness on `frames`; returns the outputs.
// `prepare` sees the harness before its caps are set (probes).
std::vector<GstBuffer*> runChain(const std::string& launch, const std::string& caps, const std::vector<GstBuffer*>& frames,
                                 const char* sinkCaps = nullptr, GstHarness** keep = nullptr,
                                 const std::function<void(GstHarness*)>& prepare = {}) {
    GstHarness* h = gst_harness_new_parse(launch.c_str());
    if (prepare) prepare(h);
    gst_harness_set_src_caps_str(h, caps.c_str());
    if (sinkCaps) gst_harness_set_sink_caps_str(h, sinkCaps);
    std::vector<GstBuffer*> out;
    for (GstBuffer* f : frames) {
        EXPECT_EQ(gst_harness_push(h, gst_buffer_ref(f)), GST_FLOW_OK);
        while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
    }
    out = finish(h, out);
    if (keep) *keep = h;
    else gst_harness_teardown(h);
    return out;
}

std::vector<GstBuffer*> randomFrames(const GstVideoInfo& info, int n) {
    std::vector<GstBuffer*> frames;
    for (int i = 0; i < n; ++i) frames.push_back(randomFrame(info, 100 + i, GST_SECOND * i / 30));
    return frames;
}

guint64 allocatorGauge(const char* name) {
    GstAllocator* allocator = gst_allocator_find("CudaFiltersPinnedMemory");
    if (!allocator) return 0;
    guint64 bytes = 0;
    g_object_get(allocator, name, &bytes, nullptr);
    gst_object_unref(allocator);
    return bytes;
}

const char* kChain = "cudahisteq name=a backend=%s%s mode=clahe ! cudaconvolve name=b backend=%s%s preset=gaussian size=5 "
                     "! cudaconvolve name=c backend=%s%s preset=sharpen";

// `settings`: more properties for each of the three.
std::string chain(const char* backend, const std::string& settings = "") {
    const char* more = settings.c_str();
    gchar* s = g_strdup_printf(kChain, backend, more, backend, more, backend, more);
    std::string r = s;
    g_free(s);
    return r;
}

TEST(CudaMemory, NeverOfferedOnTheCpuBackend) {
    GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian", "backend=cpu"});
    GstPad* sink = gst_element_get_static_pad(h->element, "sink");
    GstCaps* caps = gst_pad_query_caps(sink, nullptr);
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
        GstCapsFeatures* f = gst_caps_get_features(caps, i);
        EXPECT_FALSE(f && gst_caps_features_contains(f, kCudaMemory)) << "structure " << i;
    }
    gst_caps_unref(caps);
    gst_object_unref(sink);
    gst_harness_teardown(h);

    // Two CPU elements in a row talk system memory.
    const GstVideoInfo info = videoInfo("RGBA", 33, 17);
    std::vector<GstBuffer*> frames = randomFrames(info, 2);
    GstHarness* chained = nullptr;
    std::vector<GstBuffer*> out = runChain(chain("cpu"), capsString("RGBA", 33, 17), frames, nullptr, &chained);
    EXPECT_EQ(out.size(), frames.size());
    GstElement* a = gst_bin_get_by_name(GST_BIN(chained->element), "a");
    EXPECT_FALSE(padCarriesCudaMemory(a, "src"));
    gst_object_unref(a);
    gst_harness_teardown(chained);
    unrefAll(out);
    unrefAll(frames);
}

// A chain of three elements stays on the device between them (one context for all), and gives the CPU's pixels.
TEST(CudaMemory, ChainStaysOnTheDeviceInOneContext) {
    SKIP_WITHOUT_GPU();
    for (const char* format : {"RGBA", "I420", "NV12", "P010_10LE", "P016_LE", "I420_10LE"}) {
        SCOPED_TRACE(format);
        const GstVideoInfo info = videoInfo(format, 385, 289);
        std::vector<GstBuffer*> frames = randomFrames(info, 7);
        std::vector<GstBuffer*> expected = runChain(chain("cpu"), capsString(format, 385, 289), frames);
        GstHarness* h = nullptr;
        std::vector<GstBuffer*> out = runChain(chain("cuda"), capsString(format, 385, 289), frames, nullptr, &h);
        ASSERT_TRUE(sameFramesInOrder(out, expected, info, &frames));

        GstObject* contexts[3] = {};
        const char* names[3] = {"a", "b", "c"};
        for (int e = 0; e < 3; ++e) {
            GstElement* element = gst_bin_get_by_name(GST_BIN(h->element), names[e]);
            if (e < 2) EXPECT_TRUE(padCarriesCudaMemory(element, "src")) << names[e] << " → next";
            else EXPECT_FALSE(padCarriesCudaMemory(element, "src")) << "towards a sink that takes anything";
            GstQuery* query = gst_query_new_context("gst.cuda.context");
            EXPECT_TRUE(gst_element_query(element, query)) << names[e] << " answers the CONTEXT query";
            GstContext* context = nullptr;
            gst_query_parse_context(query, &context);
            if (context) {
                const GValue* v = gst_structure_get_value(gst_context_get_structure(context), "gst.cuda.context");
                if (v) contexts[e] = GST_OBJECT(g_value_get_object(v));
            }
            gst_query_unref(query);
            gst_object_unref(element);
        }
        EXPECT_NE(contexts[0], nullptr);
        EXPECT_EQ(contexts[0], contexts[1]);
        EXPECT_EQ(contexts[1], contexts[2]);
        gst_harness_teardown(h);
        unrefAll(out);
        unrefAll(expected);
        unrefAll(frames);
    }
}

// Calls `probe` with `data` on every buffer leaving the source pad of the element named `element` in `bin`.
void probeBuffersLeaving(GstElement* bin, const char* element, GstPadProbeCallback probe, gpointer data) {
    GstElement* e = gst_bin_get_by_name(GST_BIN(bin), element);
    GstPad* pad = gst_element_get_static_pad(e, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, probe, data, nullptr);
    gst_object_unref(pad);
    gst_object_unref(e);
}

// What crossed a pad: buffers in GStreamer's CUDA memory, and whether each one's video meta placed its planes inside
// the memory at a pitch that holds a row.
struct MemoryWatch {
    const GstVideoInfo* info = nullptr;
    std::atomic<int> buffers{0};
    std::atomic<int> cuda{0};
    std::atomic<int> laidOut{0};

    static GstPadProbeReturn probe(GstPad*, GstPadProbeInfo* probeInfo, gpointer data) {
        auto* watch = static_cast<MemoryWatch*>(data);
        GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(probeInfo);
        watch->buffers.fetch_add(1);
        if (bufferIsCudaMemory(buffer)) watch->cuda.fetch_add(1);
        const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
        const GstVideoInfo& info = *watch->info;
        bool inside = meta && meta->n_planes == GST_VIDEO_INFO_N_PLANES(&info);
        for (guint p = 0; inside && p < meta->n_planes; ++p) {
            gint comps[GST_VIDEO_MAX_COMPONENTS];
            gst_video_format_info_component(info.finfo, p, comps);
            const gsize row = gsize(GST_VIDEO_INFO_COMP_WIDTH(&info, comps[0])) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, comps[0]);
            const gsize rows = gsize(GST_VIDEO_INFO_COMP_HEIGHT(&info, comps[0]));
            inside = meta->stride[p] >= gint(row) &&
                     meta->offset[p] + (rows - 1) * gsize(meta->stride[p]) + row <= gst_buffer_get_size(buffer);
        }
        if (inside) watch->laidOut.fetch_add(1);
        return GST_PAD_PROBE_OK;
    }
    void watch(GstElement* bin, const char* element) { probeBuffersLeaving(bin, element, probe, this); }
};

// Grey, packed 4:2:2 and xRGB / xBGR frames, which GStreamer 1.22's CUDA allocator has no layout for, stay on the
// device between the elements too (a pool of ours lays them out in its memory), with the CPU's pixels, in order;
// towards a sink that asks for CUDA memory they leave in it, read back and deep-copied like any CUDA memory.
TEST(CudaMemory, FormatsWithoutAGStreamerLayoutStayOnTheDevice) {
    SKIP_WITHOUT_GPU();
    for (const char* format : {"GRAY8", "GRAY16_LE", "YUY2", "UYVY", "YVYU", "xRGB", "xBGR"}) {
        SCOPED_TRACE(format);
        const int width = 98, height = 61;
        const GstVideoInfo info = videoInfo(format, width, height);
        std::vector<GstBuffer*> frames = randomFrames(info, 5);
        std::vector<GstBuffer*> expected = runChain(chain("cpu"), capsString(format, width, height), frames);
        for (bool cudaSink : {false, true}) {
            SCOPED_TRACE(cudaSink ? "sink in CUDA memory" : "sink in system memory");
            const std::string sinkCaps = std::string("video/x-raw(memory:CUDAMemory),format=") + format +
                                         ",width=" + std::to_string(width) + ",height=" + std::to_string(height);
            MemoryWatch ab, bc, out;
            ab.info = bc.info = out.info = &info;
            GstHarness* h = nullptr;
            std::vector<GstBuffer*> got = runChain(chain("cuda"), capsString(format, width, height), frames,
                                                   cudaSink ? sinkCaps.c_str() : nullptr, &h, [&](GstHarness* harness) {
                                                       ab.watch(harness->element, "a");
                                                       bc.watch(harness->element, "b");
                                                       out.watch(harness->element, "c");
                                                   });
            ASSERT_TRUE(sameFramesInOrder(got, expected, info, &frames));
            const int n = int(frames.size());
            for (GstElement* e : {gst_bin_get_by_name(GST_BIN(h->element), "a"), gst_bin_get_by_name(GST_BIN(h->element), "b")}) {
                EXPECT_TRUE(padCarriesCudaMemory(e, "src")) << GST_OBJECT_NAME(e);
                gst_object_unref(e);
            }
            EXPECT_EQ(ab.cuda.load(), n) << "a → b";
            EXPECT_EQ(bc.cuda.load(), n) << "b → c";
            EXPECT_EQ(ab.laidOut.load(), n) << "a → b: planes inside the memory at a pitch that holds a row";
            EXPECT_EQ(bc.laidOut.load(), n) << "b → c";
            EXPECT_EQ(out.cuda.load(), cudaSink ? n : 0) << "c → sink";
            if (cudaSink) {
                EXPECT_EQ(out.laidOut.load(), n);
                for (std::size_t i = 0; i < got.size(); ++i) {
                    GstBuffer* copy = gst_buffer_copy_deep(got[i]);
                    ASSERT_NE(copy, nullptr) << "frame " << i;
                    EXPECT_TRUE(bufferIsCudaMemory(copy)) << "frame " << i;
                    EXPECT_TRUE(framesEqual(copy, expected[i], info)) << "deep copy of frame " << i;
                    gst_buffer_unref(copy);
                }
            }
            gst_harness_teardown(h);
            unrefAll(got);
        }
        unrefAll(expected);
        unrefAll(frames);
    }
}

// output=channels writes RGBA64_LE from GRAY16_LE: in CUDA memory where downstream asks for it, with the CPU's samples.
TEST(CudaMemory, ChannelsOutputInCudaMemory) {
    SKIP_WITHOUT_GPU();
    const GstVideoInfo info = videoInfo("GRAY16_LE", 77, 45);
    const GstVideoInfo outInfo = videoInfo("RGBA64_LE", 77, 45);
    std::vector<GstBuffer*> frames = randomFrames(info, 3);
    const char* launch = "cudaconvolve name=c backend=%s output=channels absolute=true "
                         "kernel=\"-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1 | 0 1 0; 1 -4 1; 0 1 0 | 1 2 1; 2 4 2; 1 2 1\"";
    gchar* cpu = g_strdup_printf(launch, "cpu");
    gchar* cuda = g_strdup_printf(launch, "cuda");
    std::vector<GstBuffer*> expected = runChain(cpu, capsString("GRAY16_LE", 77, 45), frames);
    MemoryWatch out;
    out.info = &outInfo;
    std::vector<GstBuffer*> got =
        runChain(cuda, capsString("GRAY16_LE", 77, 45), frames,
                 "video/x-raw(memory:CUDAMemory),format=RGBA64_LE,width=77,height=45", nullptr,
                 [&](GstHarness* h) { out.watch(h->element, "c"); });
    ASSERT_TRUE(sameFramesInOrder(got, expected, outInfo));
    EXPECT_EQ(out.cuda.load(), int(frames.size()));
    EXPECT_EQ(out.laidOut.load(), int(frames.size()));
    g_free(cpu);
    g_free(cuda);
    unrefAll(got);
    unrefAll(expected);
    unrefAll(frames);
}

// Output in CUDA memory where downstream asks for it; read back through GStreamer's host mapping it equals the CPU's.
TEST(CudaMemory, OutputInCudaMemoryWhereDownstreamTakesIt) {
    SKIP_WITHOUT_GPU();
    for (const char* launch : {"cudaconvolve backend=%s preset=gaussian size=5", "cudahisteq backend=%s mode=clahe",
                               "cudaconvolve backend=%s preset=identity"}) {
        SCOPED_TRACE(launch);
        const GstVideoInfo info = videoInfo("NV12", 321, 203);
        std::vector<GstBuffer*> frames = randomFrames(info, 5);
        gchar* cpu = g_strdup_printf(launch, "cpu");
        gchar* cuda = g_strdup_printf(launch, "cuda");
        std::vector<GstBuffer*> expected = runChain(cpu, capsString("NV12", 321, 203), frames);
        const std::string sinkCaps = std::string("video/x-raw(memory:CUDAMemory),format=NV12,width=321,height=203");
        std::vector<GstBuffer*> out = runChain(cuda, capsString("NV12", 321, 203), frames, sinkCaps.c_str());
        ASSERT_EQ(out.size(), expected.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            EXPECT_TRUE(bufferIsCudaMemory(out[i])) << "frame " << i;
            EXPECT_TRUE(framesEqual(out[i], expected[i], info)) << "frame " << i;
        }
        g_free(cpu);
        g_free(cuda);
        unrefAll(out);
        unrefAll(expected);
        unrefAll(frames);
    }
}

// Downstream switches from CUDA memory to system memory mid-stream: the frames in flight leave in the memory they
// were made for, none is lost or reordered, and every one has the CPU's pixels.
TEST(CudaMemory, RenegotiatesBetweenCudaAndSystemMemory) {
    SKIP_WITHOUT_GPU();
    for (const std::string format : {"RGBA", "GRAY8"}) {
        SCOPED_TRACE(format);
        const GstVideoInfo info = videoInfo(format.c_str(), 200, 120);
        std::vector<GstBuffer*> frames = randomFrames(info, 8);
        std::vector<GstBuffer*> expected = runChain("cudaconvolve backend=cpu preset=gaussian size=5",
                                                    capsString(format.c_str(), 200, 120), frames);
        GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian", "size=5"}, 3);
        gst_harness_set_src_caps_str(h, capsString(format.c_str(), 200, 120).c_str());
        gst_harness_set_sink_caps_str(h, ("video/x-raw(memory:CUDAMemory),format=" + format + ",width=200,height=120").c_str());
        std::vector<GstBuffer*> out;
        for (std::size_t i = 0; i < frames.size(); ++i) {
            if (i == 4) gst_harness_set_sink_caps_str(h, ("video/x-raw,format=" + format + ",width=200,height=120").c_str());
            ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(frames[i])), GST_FLOW_OK);
            while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
        }
        out = finish(h, out);
        ASSERT_TRUE(sameFramesInOrder(out, expected, info, &frames));
        EXPECT_TRUE(bufferIsCudaMemory(out[0]));
        EXPECT_FALSE(bufferIsCudaMemory(out.back()));
        gst_harness_teardown(h);
        unrefAll(out);
        unrefAll(expected);
        unrefAll(frames);
    }
}

// A flush with CUDA frames in flight drops them; the stream goes on; EOS drains what is left.
TEST(CudaMemory, FlushAndEosWithCudaFramesInFlight) {
    SKIP_WITHOUT_GPU();
    for (const std::string format : {"I420", "GRAY16_LE"}) {
        SCOPED_TRACE(format);
        const GstVideoInfo info = videoInfo(format.c_str(), 640, 360);
        std::vector<GstBuffer*> frames = randomFrames(info, 6);
        std::vector<GstBuffer*> expected = runChain("cudaconvolve backend=cpu preset=gaussian size=5",
                                                    capsString(format.c_str(), 640, 360), frames);
        GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian", "size=5"}, 4);
        gst_harness_set_src_caps_str(h, capsString(format.c_str(), 640, 360).c_str());
        gst_harness_set_sink_caps_str(h, ("video/x-raw(memory:CUDAMemory),format=" + format + ",width=640,height=360").c_str());
        for (int i = 0; i < 3; ++i) ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(frames[i])), GST_FLOW_OK);
        EXPECT_EQ(gst_harness_buffers_in_queue(h), 0u) << "depth 4 holds three frames";
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
        GstSegment segment;
        gst_segment_init(&segment, GST_FORMAT_TIME);
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
        std::vector<GstBuffer*> out;
        for (int i = 3; i < 6; ++i) {
            ASSERT_EQ(gst_harness_push(h, gst_buffer_ref(frames[i])), GST_FLOW_OK);
            while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
        }
        out = finish(h, out);
        ASSERT_EQ(out.size(), 3u);
        for (std::size_t i = 0; i < out.size(); ++i) {
            EXPECT_TRUE(bufferIsCudaMemory(out[i]));
            EXPECT_TRUE(framesEqual(out[i], expected[i + 3], info)) << "frame " << i + 3;
        }
        gst_harness_teardown(h);
        unrefAll(out);
        unrefAll(expected);
        unrefAll(frames);
    }
}

// What a pad saw of the fences on the buffers that crossed it.
struct FenceWatch {
    std::atomic<int> buffers{0};
    std::atomic<int> fenced{0};
    std::atomic<int> pendingAtPush{0};  // fenced, and the GPU work not finished when the buffer was pushed

    static GstPadProbeReturn probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
        auto* watch = static_cast<FenceWatch*>(data);
        GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
        watch->buffers.fetch_add(1);
        const GType api = g_type_from_name(gstcudafilters::kFrameFenceMetaApiName);
        auto* meta = api ? reinterpret_cast<gstcudafilters::FrameFenceMeta*>(gst_buffer_get_meta(buffer, api)) : nullptr;
        if (meta && meta->fence && *meta->fence) {
            watch->fenced.fetch_add(1);
            if (!(*meta->fence)->done()) watch->pendingAtPush.fetch_add(1);
        }
        return GST_PAD_PROBE_OK;
    }
    void watch(GstElement* bin, const char* element) { probeBuffersLeaving(bin, element, probe, this); }
};

// Between two elements of ours a frame in CUDA memory leaves as soon as its work is enqueued, with a fence the next
// element waits on on the GPU (no host wait between them); towards anything else (a sink, NVIDIA's elements) frames
// leave complete and carry no fence. Pixels, order and count equal the CPU chain's at every depth.
TEST(CudaMemory, OurNeighboursGetFencedFramesOthersCompleteOnes) {
    SKIP_WITHOUT_GPU();
    const GstVideoInfo info = videoInfo("RGBA", 1283, 721);
    std::vector<GstBuffer*> frames = randomFrames(info, 9);
    std::vector<GstBuffer*> expected = runChain(chain("cpu"), capsString("RGBA", 1283, 721), frames);
    for (int depth : {1, 2, 4}) {
        for (const char* sinkCaps : {(const char*)nullptr, "video/x-raw(memory:CUDAMemory),format=RGBA,width=1283,height=721"}) {
            SCOPED_TRACE(::testing::Message() << "depth " << depth << (sinkCaps ? ", sink in CUDA memory" : ", sink in system memory"));
            FenceWatch ab, bc, out;
            std::vector<GstBuffer*> got = runChain(chain("cuda", " pipeline-depth=" + std::to_string(depth)),
                                                   capsString("RGBA", 1283, 721), frames, sinkCaps, nullptr,
                                                   [&](GstHarness* h) {
                                                       ab.watch(h->element, "a");
                                                       bc.watch(h->element, "b");
                                                       out.watch(h->element, "c");
                                                   });
            ASSERT_TRUE(sameFramesInOrder(got, expected, info, &frames));
            const int n = int(frames.size());
            EXPECT_EQ(ab.buffers.load(), n);
            EXPECT_EQ(ab.fenced.load(), n) << "a → b: every frame fenced";
            EXPECT_EQ(bc.fenced.load(), n) << "b → c: every frame fenced";
            // At depth 1 the output task pushes each frame as soon as its enqueue wakes it, before a 1283x721
            // frame's upload and kernels are over; deeper, frames wait behind each other and the GPU may finish one
            // before the task reaches it.
            if (depth == 1) {
                EXPECT_GT(ab.pendingAtPush.load() + bc.pendingAtPush.load(), 0)
                    << "some frame must leave before its GPU work is over (else the host waited)";
            }
            EXPECT_EQ(out.buffers.load(), n);
            EXPECT_EQ(out.fenced.load(), 0) << "towards a neighbour that is not ours: complete frames, no fence";
            unrefAll(got);
        }
    }
    unrefAll(expected);
    unrefAll(frames);
}

// An equalizer that posts statistics reads its results when the frame is done: its frames leave complete.
TEST(CudaMemory, StatisticsKeepFramesUntilTheyAreComplete) {
    SKIP_WITHOUT_GPU();
    const GstVideoInfo info = videoInfo("NV12", 640, 360);
    std::vector<GstBuffer*> frames = randomFrames(info, 4);
    const char* launch = "cudahisteq name=a backend=%s post-messages=true ! cudaconvolve name=b backend=%s preset=sharpen";
    gchar* cpu = g_strdup_printf(launch, "cpu", "cpu");
    gchar* cuda = g_strdup_printf(launch, "cuda", "cuda");
    std::vector<GstBuffer*> expected = runChain(cpu, capsString("NV12", 640, 360), frames);
    FenceWatch ab;
    GstHarness* h = nullptr;
    std::vector<GstBuffer*> got = runChain(cuda, capsString("NV12", 640, 360), frames, nullptr, &h,
                                           [&](GstHarness* harness) { ab.watch(harness->element, "a"); });
    GstElement* a = gst_bin_get_by_name(GST_BIN(h->element), "a");
    EXPECT_TRUE(padCarriesCudaMemory(a, "src"));
    gst_object_unref(a);
    EXPECT_EQ(ab.buffers.load(), 4);
    EXPECT_EQ(ab.fenced.load(), 0);
    ASSERT_TRUE(sameFramesInOrder(got, expected, info));
    gst_harness_teardown(h);
    g_free(cpu);
    g_free(cuda);
    unrefAll(got);
    unrefAll(expected);
    unrefAll(frames);
}

struct FreedFlag {
    std::atomic<int> freed{0};
    static void notify(gpointer data) { static_cast<FreedFlag*>(data)->freed.fetch_add(1); }
};

// The messages of the elements' base class (category cudafilter) at `level` (DEBUG by default) and above while it
// lives, and none on stderr.
class FilterLog {
public:
    explicit FilterLog(GstDebugLevel level = GST_LEVEL_DEBUG) {
        gst_debug_set_active(TRUE);
        gst_debug_set_threshold_for_name("cudafilter", level);
        gst_debug_remove_log_function(gst_debug_log_default);
        gst_debug_add_log_function(&FilterLog::log, this, nullptr);
    }
    ~FilterLog() {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_add_log_function(gst_debug_log_default, nullptr, nullptr);
        gst_debug_unset_threshold_for_name("cudafilter");
    }
    std::string text() {
        std::lock_guard<std::mutex> lock(mutex_);
        return text_;
    }

private:
    static void log(GstDebugCategory* category, GstDebugLevel, const gchar*, const gchar*, gint, GObject*,
                    GstDebugMessage* message, gpointer data) {
        if (std::strcmp(gst_debug_category_get_name(category), "cudafilter") != 0) return;
        auto* self = static_cast<FilterLog*>(data);
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->text_ += gst_debug_message_get(message);
        self->text_ += '\n';
    }
    std::mutex mutex_;
    std::string text_;
};

// The CUDA context the element named `name` in `bin` answers the CONTEXT query with, and its device (-1: none).
int contextDevice(GstElement* bin, const char* name) {
    GstElement* element = gst_bin_get_by_name(GST_BIN(bin), name);
    GstQuery* query = gst_query_new_context("gst.cuda.context");
    int device = -1;
    GstContext* context = nullptr;
    if (gst_element_query(element, query)) gst_query_parse_context(query, &context);
    if (context) {
        const GValue* v = gst_structure_get_value(gst_context_get_structure(context), "gst.cuda.context");
        if (v && g_value_get_object(v)) {
            guint id = 0;
            g_object_get(g_value_get_object(v), "cuda-device-id", &id, nullptr);
            device = int(id);
        }
    }
    gst_query_unref(query);
    gst_object_unref(element);
    return device;
}

// Elements on two devices in one chain (0 → 1 → 0): each works in its own device's context, every frame crosses from
// one device to the other on the GPU (mapped on the device and copied, not through a host mapping), with the CPU's
// pixels, in order.
TEST(CudaMemory, ChainAcrossTwoDevicesGivesTheCpuPixels) {
    SKIP_WITHOUT_GPU();
    if (cudaDeviceCount() < 2) GTEST_SKIP() << "needs two CUDA devices";
    for (const char* format : {"RGBA", "NV12", "GRAY8"}) {
        SCOPED_TRACE(format);
        const GstVideoInfo info = videoInfo(format, 385, 289);
        std::vector<GstBuffer*> frames = randomFrames(info, 7);
        std::vector<GstBuffer*> expected = runChain(chain("cpu"), capsString(format, 385, 289), frames);
        GstHarness* h = nullptr;
        FilterLog log(GST_LEVEL_LOG);
        std::vector<GstBuffer*> out =
            runChain("cudahisteq name=a backend=cuda cuda-device-id=0 mode=clahe ! cudaconvolve name=b backend=cuda "
                     "cuda-device-id=1 preset=gaussian size=5 ! cudaconvolve name=c backend=cuda cuda-device-id=0 "
                     "preset=sharpen",
                     capsString(format, 385, 289), frames, nullptr, &h);
        EXPECT_TRUE(sameFramesInOrder(out, expected, info, &frames));
        EXPECT_NE(log.text().find("input in CUDA memory of another context, copied by the GPU"), std::string::npos)
            << "b and c copy their input from the other device on the GPU";
        EXPECT_EQ(contextDevice(h->element, "a"), 0);
        EXPECT_EQ(contextDevice(h->element, "b"), 1);
        EXPECT_EQ(contextDevice(h->element, "c"), 0);
        gst_harness_teardown(h);
        unrefAll(out);
        unrefAll(expected);
        unrefAll(frames);
    }
}

// The middle element of a chain of ours has its frames in CUDA memory on both sides: from its second frame in each
// slot they run as one CUDA graph (its launches captured and the slot's graph updated with each frame's pointers:
// one part, RGBA and GRAY8 (a pool of ours); two parts on two streams, NV12 with planes=all; the copies of the planes
// luma-only filtering leaves, I420; an equalizer, whose frames wait for the one before as event nodes: CLAHE with
// temporal smoothing, also on GRAY16_LE (a pool of ours), the global block-LUT kernels that take turns with two
// histograms, statistics copied to the host), with the CPU's pixels in order. CUDAFILTERS_CUDA_GRAPHS=0 turns the
// graphs off, with the same pixels.
TEST(CudaMemory, ResidentFramesRunAsOneGraph) {
    SKIP_WITHOUT_GPU();
    struct Case {
        const char* format;
        const char* element;
        const char* settings;
    };
    const Case cases[] = {{"RGBA", "cudaconvolve", "preset=gaussian size=3"},
                          {"NV12", "cudaconvolve", "preset=gaussian size=5 planes=all"},
                          {"I420", "cudaconvolve", "preset=sharpen"},
                          {"NV12", "cudahisteq", "mode=clahe tiles-x=3 tiles-y=2 smoothing=0.6"},
                          {"NV12", "cudahisteq", "mode=global"},
                          {"RGBA", "cudahisteq", "mode=clahe post-messages=true"},
                          {"GRAY8", "cudaconvolve", "preset=gaussian size=5"},
                          {"GRAY16_LE", "cudahisteq", "mode=clahe"}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.format) + " " + c.element + " " + c.settings);
        const GstVideoInfo info = videoInfo(c.format, 385, 289);
        const std::string caps = capsString(c.format, 385, 289);
        auto launch = [&](const char* backend) {
            return std::string("cudaconvolve backend=") + backend + " preset=gaussian size=5 ! " + c.element +
                   " name=b backend=" + backend + " " + c.settings + " ! cudaconvolve backend=" + backend +
                   " preset=box size=3";
        };
        std::vector<GstBuffer*> frames = randomFrames(info, 9);
        std::vector<GstBuffer*> expected = runChain(launch("cpu"), caps, frames);
        std::vector<std::string> statistics[2];  // the element messages of graphs on and off, in order
        for (bool graphs : {true, false}) {
            SCOPED_TRACE(graphs ? "graphs" : "CUDAFILTERS_CUDA_GRAPHS=0");
            if (graphs) g_unsetenv("CUDAFILTERS_CUDA_GRAPHS");
            else g_setenv("CUDAFILTERS_CUDA_GRAPHS", "0", TRUE);
            std::string text;
            std::vector<GstBuffer*> out;
            GstBus* bus = gst_bus_new();
            {
                FilterLog log;
                out = runChain(launch("cuda"), caps, frames, nullptr, nullptr,
                               [&](GstHarness* h) { gst_element_set_bus(h->element, bus); });
                text = log.text();
            }
            ASSERT_TRUE(sameFramesInOrder(out, expected, info, &frames));
            EXPECT_EQ(text.find("launched as one CUDA graph (updated)") != std::string::npos, graphs) << text;
            EXPECT_EQ(text.find("could not"), std::string::npos) << text;
            for (GstMessage* m : popMessages(bus, GST_MESSAGE_ELEMENT)) {
                const GstStructure* fields = gst_message_get_structure(m);
                if (gst_structure_has_name(fields, "cudahisteq")) {
                    gchar* serialized = gst_structure_to_string(fields);
                    statistics[graphs ? 0 : 1].push_back(serialized);
                    g_free(serialized);
                }
                gst_message_unref(m);
            }
            gst_object_unref(bus);
            unrefAll(out);
        }
        const bool posts = std::string(c.settings).find("post-messages=true") != std::string::npos;
        EXPECT_EQ(statistics[0].size(), posts ? frames.size() : 0u);
        EXPECT_EQ(statistics[0], statistics[1]) << "statistics with graphs on and off";
        g_unsetenv("CUDAFILTERS_CUDA_GRAPHS");
        unrefAll(expected);
        unrefAll(frames);
    }
}

// Pageable memory that upstream pushes again is registered for DMA, stays registered while it is recycled (the gauge
// stays flat), and is released when the memory is freed.
TEST(HostRegistration, RecycledMemoryIsRegisteredWhileItLives) {
    SKIP_WITHOUT_GPU();
    const GstVideoInfo info = videoInfo("RGBA", 1920, 1080);
    const gsize size = GST_VIDEO_INFO_SIZE(&info);
    const guint64 before = allocatorGauge("registered-bytes");
    FreedFlag flag;
    std::vector<GstMemory*> ring;
    for (int i = 0; i < 4; ++i) {
        GstBuffer* frame = randomFrame(info, 7 + i);
        GstMapInfo map;
        gst_buffer_map(frame, &map, GST_MAP_READ);
        void* data = g_malloc(size);
        std::memcpy(data, map.data, size);
        gst_buffer_unmap(frame, &map);
        gst_buffer_unref(frame);
        ring.push_back(gst_memory_new_wrapped(GstMemoryFlags(0), data, size, 0, size, data, g_free));
        gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(ring.back()), g_quark_from_static_string("test-freed"), &flag,
                                  FreedFlag::notify);
    }
    std::vector<GstBuffer*> inputs;
    GstHarness* h = makeHarness("cudaconvolve", {"preset=gaussian", "size=5"});
    gst_harness_set_src_caps_str(h, capsString("RGBA", 1920, 1080).c_str());
    std::vector<GstBuffer*> out;
    guint64 afterTwoRounds = 0;
    for (int i = 0; i < 40; ++i) {
        GstBuffer* b = gst_buffer_new();
        gst_buffer_append_memory(b, gst_memory_ref(ring[i % 4]));
        inputs.push_back(gst_buffer_ref(b));
        ASSERT_EQ(gst_harness_push(h, b), GST_FLOW_OK);
        while (GstBuffer* o = gst_harness_try_pull(h)) out.push_back(o);
        if (i == 11) afterTwoRounds = allocatorGauge("registered-bytes");
    }
    out = finish(h, out);
    const guint64 atEnd = allocatorGauge("registered-bytes");
    EXPECT_EQ(afterTwoRounds - before, 4 * size) << "each frame of the ring registered once it came back";
    EXPECT_EQ(atEnd, afterTwoRounds) << "flat while recycled";
    std::vector<GstBuffer*> expected = runChain("cudaconvolve backend=cpu preset=gaussian size=5",
                                                capsString("RGBA", 1920, 1080), std::vector<GstBuffer*>(inputs.begin(), inputs.begin() + 4));
    ASSERT_EQ(out.size(), inputs.size());
    for (std::size_t i = 0; i < out.size(); ++i) EXPECT_TRUE(framesEqual(out[i], expected[i % 4], info)) << "frame " << i;
    gst_harness_teardown(h);
    unrefAll(out);
    unrefAll(expected);
    unrefAll(inputs);
    for (GstMemory* m : ring) gst_memory_unref(m);
    EXPECT_EQ(flag.freed.load(), 4);
    EXPECT_EQ(allocatorGauge("registered-bytes"), before) << "released with the memory";
}

}  // namespace
}  // namespace elementtest
