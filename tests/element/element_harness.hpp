// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Helpers for the element tests: harness set-up on the backend chosen by CUDAFILTERS_TEST_BACKEND (cpu by default,
// cuda on the GPU host), random frames, planes as host images, captured warnings and bus messages.
#include "reference.hpp"
#include "test_images.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/device.hpp>
#include <cudafilters/histeq.hpp>

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace elementtest {

using namespace cudafilters;
using cudafilters::test::HostImage;

inline std::string testBackend() {
    const char* b = std::getenv("CUDAFILTERS_TEST_BACKEND");
    return b && *b ? b : "cpu";
}

inline bool cudaRequested() { return testBackend() == "cuda"; }

// Built with a sanitizer (ASan, UBSan's companion builds, TSan): wall-clock ratios then measure the sanitizer's cost
// on a loaded CI machine, not the element. Timing tests still run their frames (checked by the sanitizer) and report
// the figures, then skip their timing assertions.
inline bool underSanitizer() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

// The formats of the element and, independently of the plugin's own tables, what each plane holds.
struct PlaneSpec {
    int channels;
    unsigned colorMask;  // channels that are colour (filtered), the others alpha or padding (copied)
    bool luma;           // Y or grey plane
};

struct FormatCase {
    const char* name;
    std::vector<PlaneSpec> planes;
    bool rgb = false;
    ChannelOrder order{};
    SampleBits bits{};  // where the levels lie in the samples (10-bit formats)
    int pairsLuma = -1; // packed 4:2:2 (plane 0 = 4-channel macropixels): Y's channel in a Y/chroma pair, else -1
    bool packed422() const { return pairsLuma >= 0; }
    unsigned chromaMask() const { return 0xFu & ~(0x5u << pairsLuma); }
};

inline const std::vector<FormatCase>& formatCases() {
    static const std::vector<FormatCase> cases = {
        {"GRAY8", {{1, 0x1, true}}},
        {"GRAY16_LE", {{1, 0x1, true}}},
        {"RGBA", {{4, 0x7, false}}, true, ChannelOrder::rgb()},
        {"BGRA", {{4, 0x7, false}}, true, ChannelOrder::bgr()},
        {"RGBx", {{4, 0x7, false}}, true, ChannelOrder::rgb()},
        {"BGRx", {{4, 0x7, false}}, true, ChannelOrder::bgr()},
        {"xRGB", {{4, 0xE, false}}, true, ChannelOrder::argb()},
        {"xBGR", {{4, 0xE, false}}, true, ChannelOrder::abgr()},
        {"ARGB", {{4, 0xE, false}}, true, ChannelOrder::argb()},
        {"ABGR", {{4, 0xE, false}}, true, ChannelOrder::abgr()},
        {"RGB", {{3, 0x7, false}}, true, ChannelOrder::rgb()},
        {"BGR", {{3, 0x7, false}}, true, ChannelOrder::bgr()},
        {"I420", {{1, 1, true}, {1, 1, false}, {1, 1, false}}},
        {"YV12", {{1, 1, true}, {1, 1, false}, {1, 1, false}}},
        {"NV12", {{1, 1, true}, {2, 0x3, false}}},
        {"NV21", {{1, 1, true}, {2, 0x3, false}}},
        {"Y42B", {{1, 1, true}, {1, 1, false}, {1, 1, false}}},
        {"Y444", {{1, 1, true}, {1, 1, false}, {1, 1, false}}},
        {"I420_10LE", {{1, 1, true}, {1, 1, false}, {1, 1, false}}, false, {}, SampleBits::low(10)},
        {"P010_10LE", {{1, 1, true}, {2, 0x3, false}}, false, {}, SampleBits::high(10)},
        {"P016_LE", {{1, 1, true}, {2, 0x3, false}}, false, {}, SampleBits::full()},
        {"YUY2", {{4, 0xF, true}}, false, {}, {}, 0},
        {"UYVY", {{4, 0xF, true}}, false, {}, {}, 1},
        {"YVYU", {{4, 0xF, true}}, false, {}, {}, 0},
    };
    return cases;
}

inline const FormatCase& formatCase(const std::string& name) {
    for (const FormatCase& c : formatCases())
        if (name == c.name) return c;
    throw std::runtime_error("unknown format " + name);
}

inline std::string capsString(const std::string& format, int width, int height, int fpsN = 30) {
    return "video/x-raw,format=" + format + ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
           ",framerate=" + std::to_string(fpsN) + "/1";
}

inline GstVideoInfo videoInfo(const std::string& format, int width, int height) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(format.c_str()), guint(width), guint(height));
    info.fps_n = 30;
    info.fps_d = 1;
    return info;
}

// An element configured for the backend under test, properties as "name=value" (as gst-launch parses them), set
// before the harness starts it (backend and pipeline-depth apply at start). With a bus when `bus` is given.
inline GstHarness* makeHarness(const char* factory, const std::vector<std::string>& props, int depth = 2,
                               GstBus* bus = nullptr) {
    GstElement* element = gst_element_factory_make(factory, nullptr);
    gst_util_set_object_arg(G_OBJECT(element), "backend", testBackend().c_str());
    g_object_set(element, "pipeline-depth", depth, nullptr);
    for (const std::string& p : props) {
        const auto eq = p.find('=');
        gst_util_set_object_arg(G_OBJECT(element), p.substr(0, eq).c_str(), p.substr(eq + 1).c_str());
    }
    if (bus) gst_element_set_bus(element, bus);
    GstHarness* h = gst_harness_new_with_element(element, "sink", "src");
    gst_object_unref(element);
    return h;
}

// A frame in the default layout (rows padded as GStreamer pads them) with random samples and poisoned padding. Formats
// of fewer significant bits than their 16-bit container get valid samples only (I420_10LE below 1024, P010_10LE with
// its low 6 bits zero).
inline GstBuffer* randomFrame(const GstVideoInfo& info, std::uint32_t seed, GstClockTime pts = GST_CLOCK_TIME_NONE) {
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    std::mt19937 rng(seed);
    for (gsize i = 0; i < map.size; ++i) map.data[i] = std::uint8_t(rng());
    const int depth = GST_VIDEO_INFO_COMP_DEPTH(&info, 0), shift = int(GST_VIDEO_FORMAT_INFO_SHIFT(info.finfo, 0));
    if (depth > 8 && depth < 16) {
        const std::uint16_t mask = std::uint16_t(((1u << depth) - 1u) << shift);
        for (gsize i = 0; i + 1 < map.size; i += 2) {
            std::uint16_t v;
            std::memcpy(&v, map.data + i, 2);
            v &= mask;
            std::memcpy(map.data + i, &v, 2);
        }
    }
    gst_buffer_unmap(buffer, &map);
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale_int(GST_SECOND, info.fps_d, info.fps_n ? info.fps_n : 30);
    return buffer;
}

// Plane p of a mapped frame as a host image (its own copy): `channels` samples per pixel, the plane's narrowest
// component's width (packed 4:2:2: the macropixels).
inline HostImage planeImage(const GstVideoFrame& frame, int plane, int channels) {
    const GstVideoFormatInfo* finfo = frame.info.finfo;
    int comp = -1;
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++c)
        if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) == guint(plane) &&
            (comp < 0 || GST_VIDEO_FRAME_COMP_WIDTH(&frame, c) < GST_VIDEO_FRAME_COMP_WIDTH(&frame, comp)))
            comp = int(c);
    const int width = GST_VIDEO_FRAME_COMP_WIDTH(&frame, comp);
    const int height = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, comp);
    const SampleType type = GST_VIDEO_FORMAT_INFO_DEPTH(finfo, comp) > 8 ? SampleType::U16 : SampleType::U8;
    HostImage image(width, height, channels, type);
    const auto* data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
    const std::size_t stride = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane));
    for (int y = 0; y < height; ++y) std::memcpy(image.bytes() + y * image.pitch(), data + y * stride, image.rowBytes());
    return image;
}

// Packed 4:2:2 as 1-channel Y (width × height) and back: pixel x's Y is in macropixel x / 2, channel pairsLuma +
// 2 · (x % 2).
inline HostImage extractY(const FormatCase& fc, const HostImage& macro, int width) {
    HostImage y(width, macro.height(), 1, macro.type());
    for (int r = 0; r < macro.height(); ++r)
        for (int x = 0; x < width; ++x) y.setSample(x, r, 0, macro.sample(x / 2, r, fc.pairsLuma + 2 * (x % 2)));
    return y;
}
inline void insertY(const FormatCase& fc, const HostImage& y, HostImage& macro) {
    for (int r = 0; r < y.height(); ++r)
        for (int x = 0; x < y.width(); ++x) macro.setSample(x / 2, r, fc.pairsLuma + 2 * (x % 2), y.sample(x, r, 0));
}

// What cudaconvolve makes of a packed 4:2:2 plane: Y filtered as a plane of its own, chroma copied, or with
// planes=all U and V filtered as half-width planes of their own (U with U neighbours, V with V).
inline HostImage packedExpected(const FormatCase& fc, const ConvolveDesc& base, const HostImage& src, int width,
                         bool allPlanes) {
    HostImage expected = src;
    ConvolveDesc plane = base;
    plane.channelMask = 1;
    HostImage y = extractY(fc, src, width), yOut = y;
    reference::makeConvolver(ConvolvePlan::make(plane, y.type(), 1))->process(y.view(), yOut.view());
    insertY(fc, yOut, expected);
    if (!allPlanes) return expected;
    for (int c = 0; c < 4; ++c) {
        if (!(fc.chromaMask() >> c & 1u)) continue;
        HostImage chroma(src.width(), src.height(), 1, src.type()), chromaOut = chroma;
        for (int r = 0; r < src.height(); ++r)
            for (int x = 0; x < src.width(); ++x) chroma.setSample(x, r, 0, src.sample(x, r, c));
        reference::makeConvolver(ConvolvePlan::make(plane, chroma.type(), 1))->process(chroma.view(), chromaOut.view());
        for (int r = 0; r < src.height(); ++r)
            for (int x = 0; x < src.width(); ++x) expected.setSample(x, r, c, chromaOut.sample(x, r, 0));
    }
    return expected;
}

// Collects GLib warnings (g_warning from the element or GObject's property checks).
class WarningCapture {
public:
    WarningCapture() {
        instance() = this;
        previous_ = g_log_set_default_handler(&WarningCapture::handler, nullptr);
        for (const char* domain : {"GLib-GObject", "cudafilters", "GStreamer"})
            ids_.push_back({domain, g_log_set_handler(domain, GLogLevelFlags(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
                                                      &WarningCapture::handler, nullptr)});
    }
    ~WarningCapture() {
        for (auto& [domain, id] : ids_) g_log_remove_handler(domain, id);
        g_log_set_default_handler(previous_, nullptr);
        instance() = nullptr;
    }
    std::string all() const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::string s;
        for (const std::string& m : messages_) s += m + "\n";
        return s;
    }
    std::size_t count() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return messages_.size();
    }

private:
    static WarningCapture*& instance() {
        static WarningCapture* capture = nullptr;
        return capture;
    }
    static void handler(const gchar*, GLogLevelFlags level, const gchar* message, gpointer) {
        WarningCapture* self = instance();
        if (!self || !(level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL))) return;
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->messages_.push_back(message);
    }
    GLogFunc previous_ = nullptr;
    std::vector<std::pair<const char*, guint>> ids_;
    mutable std::mutex mutex_;
    std::vector<std::string> messages_;
};


inline std::vector<GstMessage*> popMessages(GstBus* bus, GstMessageType types) {
    std::vector<GstMessage*> messages;
    while (GstMessage* m = gst_bus_pop_filtered(bus, types)) messages.push_back(m);
    return messages;
}

// Drops the messages a test did not pop, then the bus: a message left there holds its element, which holds the bus.
inline void releaseBus(GstBus* bus) {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
}

inline std::string messageText(GstMessage* m) {
    GError* error = nullptr;
    gchar* debug = nullptr;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) gst_message_parse_error(m, &error, &debug);
    else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) gst_message_parse_warning(m, &error, &debug);
    else return GST_MESSAGE_TYPE_NAME(m);
    std::string s = std::string(error ? error->message : "") + " | " + (debug ? debug : "");
    if (error) g_error_free(error);
    g_free(debug);
    return s;
}

// Pushes EOS and pulls every remaining buffer.
inline std::vector<GstBuffer*> finish(GstHarness* h, std::vector<GstBuffer*> out = {}) {
    while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
    while (GstBuffer* b = gst_harness_try_pull(h)) out.push_back(b);
    return out;
}

inline void unrefAll(std::vector<GstBuffer*>& buffers) {
    for (GstBuffer* b : buffers) gst_buffer_unref(b);
    buffers.clear();
}

}  // namespace elementtest
