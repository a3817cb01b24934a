// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer target: random property values (any type, out of range, NaN/Inf, long strings) set on cudaconvolve or
// cudahisteq between random buffers under random caps: 18 formats (10-bit ones with bits outside their depth, packed
// 4:2:2 of odd widths too), sizes from 1x1 to a long side of 8192 (the area
// capped at 2^14 pixels so that an input stays fast), and buffers whose
// planes have padded, odd strides and offsets (GstVideoMeta). Every input must end without a crash, a sanitizer
// report or a GStreamer CRITICAL; errors on the bus are fine. The CPU backend by default; on a GPU host
// FUZZ_ELEMENT_BACKEND=auto fuzzes the CUDA one (scripts/gpu/fuzz-element.sh).
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

class Bytes {
public:
    Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool empty() const { return pos_ >= size_; }
    std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint32_t u32() { return u8() | (u8() << 8) | (u8() << 16) | (std::uint32_t(u8()) << 24); }
    double real() {
        switch (u8() % 8) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        case 3: return -1e300;
        default: return (std::int32_t(u32()) / 65536.0);
        }
    }
    // Mostly small values (where sizes, tiles and depths have their edges), now and then any value up to the
    // properties' limits and beyond, and the extremes.
    std::int32_t integer() {
        switch (u8() % 16) {
        case 0: return std::int32_t(u32()) % 600;
        case 1: return u8() & 1 ? INT32_MAX : INT32_MIN;
        default: return std::int32_t(u8() % 48) - 8;
        }
    }
    std::string text() {
        static const char* pieces[] = {"1", "-2", "0.5", " ", ";", "|", ",", "nan", "1e39", "x", "0 1 0", ";;", "|"};
        std::string s;
        const int n = u8() % 40;
        for (int i = 0; i < n; ++i) s += pieces[u8() % (sizeof pieces / sizeof *pieces)];
        if (u8() == 255) s.append(100000, '1');  // a huge string now and then
        return s;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// Pixel loops are the bulk of an input's time and add no coverage past the first rows: frames stay small, and long
// strips (up to 8192) thin. Whole 8K frames go through both elements in the element suite (Sizes.*).
constexpr int kMaxArea = 1 << 14;

const GstVideoFormat kFormats[] = {
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_xRGB,  GST_VIDEO_FORMAT_RGB,       GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_YV12,  GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444,  GST_VIDEO_FORMAT_ABGR,      GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE};

// Bytes that vary along and across rows (a prime period), copied in blocks: the fill costs little next to the work.
void fillPattern(std::uint8_t* data, std::size_t size, int round) {
    static std::uint8_t pattern[4093];
    for (std::size_t i = 0; i < sizeof pattern; ++i) pattern[i] = std::uint8_t(i * 31 + round);
    for (std::size_t done = 0; done < size; done += sizeof pattern)
        std::memcpy(data + done, pattern, std::min(sizeof pattern, size - done));
}

// FUZZ_ELEMENT_TRACE=1 prints what an input does (to read a finding, or to write a regression seed).
bool tracing() {
    static const bool on = std::getenv("FUZZ_ELEMENT_TRACE") != nullptr;
    return on;
}

void trace(const char* format, ...) {
    if (!tracing()) return;
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
}

void setRandomProperty(GstElement* element, Bytes& in) {
    guint count = 0;
    GParamSpec** specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(element), &count);
    GParamSpec* spec = specs[in.u8() % count];
    if ((spec->flags & G_PARAM_WRITABLE) && !(spec->flags & G_PARAM_CONSTRUCT_ONLY) &&
        std::strcmp(spec->name, "name") != 0 && std::strcmp(spec->name, "parent") != 0) {
        GValue value = G_VALUE_INIT;
        g_value_init(&value, spec->value_type);
        const GType t = G_TYPE_FUNDAMENTAL(spec->value_type);
        if (t == G_TYPE_STRING) g_value_take_string(&value, g_strdup(in.text().c_str()));
        else if (t == G_TYPE_DOUBLE) g_value_set_double(&value, in.real());
        else if (t == G_TYPE_FLOAT) g_value_set_float(&value, float(in.real()));
        else if (t == G_TYPE_INT) g_value_set_int(&value, in.integer());
        else if (t == G_TYPE_UINT) g_value_set_uint(&value, guint(in.integer()));
        else if (t == G_TYPE_BOOLEAN) g_value_set_boolean(&value, in.u8() & 1);
        else if (t == G_TYPE_ENUM) g_value_set_enum(&value, in.u8() % 20);
        // Values outside a spec's range or enum are refused by GObject with a warning; the element must cope with
        // every value GObject lets through.
        if (t == G_TYPE_STRING || g_param_value_validate(spec, &value) == FALSE) {
            if (tracing()) {
                gchar* contents = g_strdup_value_contents(&value);
                trace("set %s = %.60s", spec->name, contents);
                g_free(contents);
            }
            g_object_set_property(G_OBJECT(element), spec->name, &value);
        }
        g_value_unset(&value);
    }
    g_free(specs);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_setenv("GST_REGISTRY_FORK", "no", TRUE);
    gst_init(nullptr, nullptr);
    // A GStreamer CRITICAL (a failed precondition) is a finding.
    g_log_set_always_fatal(GLogLevelFlags(G_LOG_LEVEL_CRITICAL));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Bytes in(data, size);
    const char* name = in.u8() & 1 ? "cudahisteq" : "cudaconvolve";
    trace("element %s", name);
    GstHarness* h = gst_harness_new(name);
    if (!h) std::abort();  // the plugin must be on GST_PLUGIN_PATH
    // CPU-only machines fuzz the CPU backend; FUZZ_ELEMENT_BACKEND=auto or cuda on a GPU host fuzzes the CUDA one.
    static const char* backend = std::getenv("FUZZ_ELEMENT_BACKEND") ? std::getenv("FUZZ_ELEMENT_BACKEND") : "cpu";
    gst_util_set_object_arg(G_OBJECT(h->element), "backend", backend);
    for (int round = 0; round < 3 && !in.empty(); ++round) {
        for (int p = in.u8() % 6; p > 0; --p) setRandomProperty(h->element, in);
        const GstVideoFormat format = kFormats[in.u8() % (sizeof kFormats / sizeof *kFormats)];
        int width = 1 + in.u8() % 48, height = 1 + in.u8() % 32;
        if (in.u8() >= 240) {  // now and then a long side up to 8192
            const int longSide = 1 + int(in.u32() % 8192);
            const int shortSide = 1 + in.u8() % std::max(1, std::min(64, kMaxArea / longSide));
            const bool wide = in.u8() & 1;
            width = wide ? longSide : shortSide;
            height = wide ? shortSide : longSide;
        }
        GstVideoInfo info;
        gst_video_info_set_format(&info, format, guint(width), guint(height));
        GstCaps* caps = gst_video_info_to_caps(&info);
        trace("caps %s %dx%d", gst_video_format_to_string(format), width, height);
        gst_harness_set_src_caps(h, caps);
        // Padded planes: each stride grows by 0..63 bytes (odd ones too), the planes follow each other.
        gsize offsets[GST_VIDEO_MAX_PLANES] = {}, size = 0;
        gint strides[GST_VIDEO_MAX_PLANES] = {};
        const bool padded = in.u8() & 1;
        for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
            strides[p] = GST_VIDEO_INFO_PLANE_STRIDE(&info, p) + (padded ? in.u8() % 64 : 0);
            offsets[p] = size;
            size += gsize(strides[p]) * GST_VIDEO_INFO_COMP_HEIGHT(&info, p == 0 ? 0 : 1);
        }
        trace("strides %d %d %d", strides[0], strides[1], strides[2]);
        for (int f = 1 + in.u8() % 3; f > 0; --f) {
            trace("push");
            GstBuffer* buffer = gst_buffer_new_allocate(nullptr, padded ? size : GST_VIDEO_INFO_SIZE(&info), nullptr);
            if (padded)
                gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, format, guint(width), guint(height),
                                               GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
            GstMapInfo map;
            gst_buffer_map(buffer, &map, GST_MAP_WRITE);
            fillPattern(map.data, map.size, round);
            gst_buffer_unmap(buffer, &map);
            gst_harness_push(h, buffer);  // any flow return is acceptable
            setRandomProperty(h->element, in);
        }
        while (GstBuffer* out = gst_harness_try_pull(h)) gst_buffer_unref(out);
        if (tracing()) {
            gchar* active = nullptr;
            g_object_get(h->element, "active-backend", &active, nullptr);
            trace("active-backend %s", active);
            g_free(active);
        }
    }
    gst_harness_push_event(h, gst_event_new_eos());
    while (GstBuffer* out = gst_harness_try_pull(h)) gst_buffer_unref(out);
    gst_harness_teardown(h);
    return 0;
}
