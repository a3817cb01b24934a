// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:element-cudahisteq
 * @title: cudahisteq
 * @short_description: Histogram equalization (global or CLAHE) of video frames on a CUDA GPU
 *
 * Spreads the grey levels of every frame: `global` as OpenCV's equalizeHist, `clahe` (contrast-limited adaptive
 * equalization over a grid of tiles) as OpenCV's CLAHE, bit-exact to both on 8-bit frames. YUV formats equalize the
 * luma plane and keep chroma: packed 4:2:2 (YUY2, UYVY, YVYU, even widths) its Y samples in place; 10-bit formats
 * (I420_10LE, P010_10LE) with one histogram bin per 10-bit level, their samples kept in their container's bits. RGB
 * formats equalize the luma of BT.601 YCrCb (`color-mode=luma`) or each of R, G and B (`color-mode=per-channel`);
 * alpha and padding are kept. #GstCudaHistEq:smoothing averages the histograms over
 * time so that brightness does not pump from frame to frame.
 *
 * With #GstCudaHistEq:post-messages the element posts an element message named `cudahisteq` for every frame:
 *
 * * #GstClockTime `timestamp`, `stream-time`, `running-time`, `duration`: of the frame
 * * #guint64 `frame`: index of the frame since the element started
 * * #GstValueArray of #guint `histogram`: 256 bins of the equalized samples (16-bit: value >> 8, 10-bit: level >> 2)
 *   before equalization
 * * #gdouble `mean`, #guint `min`, #guint `max`: of those samples, in levels (10-bit formats: 0 to 1023)
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! cudahisteq mode=clahe clip-limit=2 tiles-x=8 tiles-y=8 smoothing=0.8 ! videoconvert ! autovideosink
 * ]| Adaptive equalization of a camera's luma with temporal smoothing.
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball ! video/x-raw,format=GRAY8 ! cudahisteq post-messages=true ! fakesink
 * ]| Global equalization, printing each frame's histogram, mean, min and max.
 *
 * Since: 0.1
 */
#include "gstcudahisteq.h"
#include "settingsproperties.h"

#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <algorithm>
#include <array>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_histeq_debug);
#define GST_CAT_DEFAULT gst_cuda_histeq_debug

using namespace gstcudafilters;
namespace cf = cudafilters;

// The engine's enums as GEnum values (the settings keep the engine's types).
typedef enum {
    GST_CUDA_HISTEQ_MODE_GLOBAL = int(cf::EqualizeMode::Global),
    GST_CUDA_HISTEQ_MODE_CLAHE = int(cf::EqualizeMode::Clahe),
} GstCudaHistEqMode;

typedef enum {
    GST_CUDA_HISTEQ_COLOR_MODE_LUMA = int(cf::ColorMode::Luma),
    GST_CUDA_HISTEQ_COLOR_MODE_PER_CHANNEL = int(cf::ColorMode::PerChannel),
} GstCudaHistEqColorMode;

G_DEFINE_ENUM_TYPE(GstCudaHistEqMode, gst_cuda_histeq_mode,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_HISTEQ_MODE_GLOBAL, "global"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_HISTEQ_MODE_CLAHE, "clahe"))
G_DEFINE_ENUM_TYPE(GstCudaHistEqColorMode, gst_cuda_histeq_color_mode,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_HISTEQ_COLOR_MODE_LUMA, "luma"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_HISTEQ_COLOR_MODE_PER_CHANNEL, "per-channel"))

#define DEFAULT_MODE cf::EqualizeMode::Global
#define DEFAULT_CLIP_LIMIT 2.0
#define DEFAULT_TILES 8
#define DEFAULT_SMOOTHING 0.0
#define MAX_SMOOTHING 0.999
#define DEFAULT_COLOR_MODE cf::ColorMode::Luma
#define DEFAULT_POST_MESSAGES FALSE

namespace {

struct HistEqSettings {
    cf::EqualizeMode mode = DEFAULT_MODE;
    double clipLimit = DEFAULT_CLIP_LIMIT;
    int tilesX = DEFAULT_TILES;
    int tilesY = DEFAULT_TILES;
    double smoothing = DEFAULT_SMOOTHING;
    cf::ColorMode colorMode = DEFAULT_COLOR_MODE;
    bool postMessages = DEFAULT_POST_MESSAGES;
};

cf::EqualizeDesc describe(const HistEqSettings& s) {
    cf::EqualizeDesc desc;
    desc.mode = s.mode;
    desc.clipLimit = s.clipLimit;
    desc.tilesX = s.tilesX;
    desc.tilesY = s.tilesY;
    desc.smoothing = s.smoothing;
    desc.colorMode = s.colorMode;
    desc.statistics = s.postMessages;
    return desc;
}

// One Equalizer for all slots: it orders its own work across streams, so the temporal state follows frame order.
// A packed 4:2:2 plane is equalized as Y/chroma pairs (lumaPairs).
class HistEqWork final : public FilterWork {
public:
    HistEqWork(std::unique_ptr<cf::Equalizer> equalizer, const PlaneLayout& layout, int slots)
        : equalizer_(std::move(equalizer)), layout_(layout), frameOfSlot_(std::size_t(slots), 0) {}

    // Takes a plan of the same shape for the same plane in place, the temporal state kept; false: a new work is
    // needed (the Equalizer's retune changes all or nothing).
    bool retune(const cf::EqualizePlan& plan, int plane) { return plane == layout_.plane && equalizer_->retune(plan); }

    bool writesPlane(int plane) const override { return plane == layout_.plane; }

    void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                 GpuStream stream) override {
        frameOfSlot_[std::size_t(slot)] = equalizer_->frameCount();
        const ImageView& in = src[std::size_t(layout_.plane)];
        const ImageView& out = dst[std::size_t(layout_.plane)];
        if (layout_.packed422()) equalizer_->process(lumaPairs(in, layout_), lumaPairs(out, layout_), stream);
        else equalizer_->process(in, out, stream);
    }

    void frameDone(GstElement* element, GstBuffer* out, int slot) override {
        if (!equalizer_->plan().statistics) return;
        cf::FrameStatistics stats;
        if (!equalizer_->statistics(stats, frameOfSlot_[std::size_t(slot)])) return;
        post(element, out, stats);
    }

    bool capturable() const override { return equalizer_->capturable(); }
    bool keepsState() const override { return true; }
    bool readsResultsWhenDone() const override { return equalizer_->plan().statistics; }

    void reset() override { equalizer_->reset(); }

    std::shared_ptr<FilterWork> rebuild(Backend backend, int slots) const override {
        return std::make_shared<HistEqWork>(cf::makeEqualizer(equalizer_->plan(), backend), layout_, slots);
    }

private:
    static void post(GstElement* element, GstBuffer* out, const cf::FrameStatistics& stats) {
        GstBaseTransform* trans = GST_BASE_TRANSFORM(element);
        const GstClockTime timestamp = GST_BUFFER_PTS(out);
        const bool timed = trans->segment.format == GST_FORMAT_TIME;  // else the conversions would be CRITICALs
        GstStructure* s = gst_structure_new("cudahisteq", "timestamp", G_TYPE_UINT64, timestamp, "stream-time",
            G_TYPE_UINT64, timed ? gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, timestamp) : GST_CLOCK_TIME_NONE, "running-time",
            G_TYPE_UINT64, timed ? gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, timestamp) : GST_CLOCK_TIME_NONE, "duration",
            G_TYPE_UINT64, GST_BUFFER_DURATION(out), "frame", G_TYPE_UINT64, guint64(stats.frame), "samples",
            G_TYPE_UINT64, guint64(stats.samples), "mean", G_TYPE_DOUBLE, stats.mean, "min", G_TYPE_UINT,
            guint(stats.min), "max", G_TYPE_UINT, guint(stats.max), nullptr);
        GValue histogram = G_VALUE_INIT;
        gst_value_array_init(&histogram, cf::kStatisticsBins);
        GValue bin = G_VALUE_INIT;
        g_value_init(&bin, G_TYPE_UINT);
        for (std::uint32_t count : stats.histogram) {
            g_value_set_uint(&bin, count);
            gst_value_array_append_value(&histogram, &bin);
        }
        g_value_unset(&bin);
        gst_structure_take_value(s, "histogram", &histogram);
        gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), s));
    }

    std::unique_ptr<cf::Equalizer> equalizer_;
    PlaneLayout layout_;  // the plane equalized
    std::vector<std::uint64_t> frameOfSlot_;
};

}  // namespace

struct _GstCudaHistEq {
    GstCudaFilter parent;
    HistEqSettings* settings;  // under the object lock
};

G_DEFINE_TYPE(GstCudaHistEq, gst_cuda_histeq, GST_TYPE_CUDA_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudahisteq, "cudahisteq", GST_RANK_NONE, GST_TYPE_CUDA_HISTEQ)

using HistEqProperties = SettingsProperties<&_GstCudaHistEq::settings>;

static void gst_cuda_histeq_init(GstCudaHistEq* self) { HistEqProperties::init(self); }

static HistEqSettings copy_settings(GstCudaHistEq* self) { return HistEqProperties::copy(self); }

static std::shared_ptr<FilterWork> gst_cuda_histeq_make_work(GstCudaFilter* filter, const WorkConfig& config) {
    const HistEqSettings s = copy_settings(GST_CUDA_HISTEQ(filter));
    cf::EqualizeDesc desc = describe(s);
    // The plane holding luma (YUV, grey) or the packed RGB pixels: the only plane equalized.
    const PlaneLayout& plane = config.planes[0];
    desc.tilesX = std::min(desc.tilesX, plane.packed422() ? plane.pairsWidth : plane.width);  // no more tiles than pixels
    desc.tilesY = std::min(desc.tilesY, plane.height);
    cf::ChannelOrder order;
    int channels = 1;
    if (plane.rgb) {
        channels = plane.channels;
        order.red = plane.componentChannel[GST_VIDEO_COMP_R];
        order.green = plane.componentChannel[GST_VIDEO_COMP_G];
        order.blue = plane.componentChannel[GST_VIDEO_COMP_B];
    }
    // YUV planes: Y alone is a 1-channel view of plane 0 when the plane holds nothing else; packed 4:2:2 Y the
    // equalized channel of Y/chroma pairs.
    if (plane.packed422()) channels = 2;
    cf::EqualizePlan plan = cf::EqualizePlan::make(desc, plane.type, channels, order,
                                                   channels == 1 ? plane.bits : cf::SampleBits{}, plane.pairsLumaChannel);
    if (auto* current = dynamic_cast<HistEqWork*>(config.current.get());
        current && current->retune(plan, plane.plane)) {
        GST_DEBUG_OBJECT(filter, "new values applied in place");
        return config.current;
    }
    GST_DEBUG_OBJECT(filter, "%s equalization, %d channel(s), %s", cf::equalizeModeName(plan.mode), channels,
                     cf::backendName(config.backend));
    return std::make_shared<HistEqWork>(cf::makeEqualizer(std::move(plan), config.backend), plane, config.slots);
}

static void gst_cuda_histeq_check_settings(GstCudaFilter* filter) {
    const HistEqSettings s = copy_settings(GST_CUDA_HISTEQ(filter));
    cf::EqualizePlan::make(describe(s), cf::SampleType::U8, 1);
}

// The properties, each bound to its member of the settings.
static void gst_cuda_histeq_install_properties(GObjectClass* gobject_class) {
    HistEqProperties::install(gobject_class, {
        bind<&HistEqSettings::mode>(
            g_param_spec_enum("mode", "Mode",
                              "global: one histogram over the frame (as OpenCV equalizeHist); clahe: "
                              "contrast-limited adaptive equalization over tiles (as OpenCV CLAHE)",
                              gst_cuda_histeq_mode_get_type(), int(DEFAULT_MODE), kLiveFlags)),
        bind<&HistEqSettings::clipLimit>(
            g_param_spec_double("clip-limit", "Clip limit",
                                "CLAHE: histogram bins are clipped at clip-limit x (tile pixels / 256), as OpenCV; "
                                "0 = no clipping (plain adaptive equalization)",
                                0.0, 1000.0, DEFAULT_CLIP_LIMIT, kControllableFlags)),
        bind<&HistEqSettings::tilesX>(
            g_param_spec_int("tiles-x", "Tiles X",
                             "CLAHE: columns of the tile grid, 1 to 256 (at most the frame width in pixels; 16-bit "
                             "formats: tiles-x x tiles-y at most 256)",
                             1, cf::kMaxTiles, DEFAULT_TILES, kControllableFlags)),
        bind<&HistEqSettings::tilesY>(
            g_param_spec_int("tiles-y", "Tiles Y",
                             "CLAHE: rows of the tile grid, 1 to 256 (at most the frame height in pixels; 16-bit "
                             "formats: tiles-x x tiles-y at most 256)",
                             1, cf::kMaxTiles, DEFAULT_TILES, kControllableFlags)),
        bind<&HistEqSettings::smoothing>(
            g_param_spec_double("smoothing", "Temporal smoothing",
                                "Weight of the past in the exponential moving average of histograms, 0 (each frame "
                                "on its own) to 0.999 (very slow adaptation)",
                                0.0, MAX_SMOOTHING, DEFAULT_SMOOTHING, kControllableFlags)),
        bind<&HistEqSettings::colorMode>(
            g_param_spec_enum("color-mode", "Colour mode",
                              "RGB formats: luma equalizes the BT.601 Y and keeps colour, per-channel equalizes R, G "
                              "and B independently (YUV formats always equalize Y)",
                              gst_cuda_histeq_color_mode_get_type(), int(DEFAULT_COLOR_MODE), kLiveFlags)),
        bind<&HistEqSettings::postMessages>(
            g_param_spec_boolean("post-messages", "Post messages",
                                 "Post an element message 'cudahisteq' per frame with its histogram, mean, min and "
                                 "max",
                                 DEFAULT_POST_MESSAGES, kLiveFlags)),
    });
}

static void gst_cuda_histeq_class_init(GstCudaHistEqClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_histeq_debug, "cudahisteq", 0, "CUDA histogram equalization");
    gst_cuda_histeq_install_properties(G_OBJECT_CLASS(klass));

    GstCudaFilterClass* filter_class = GST_CUDA_FILTER_CLASS(klass);
    gst_cuda_filter_class_set_metadata(filter_class, "CUDA histogram equalization",
        "Equalizes the histogram of video frames (global or CLAHE, with temporal smoothing) on a CUDA GPU, or the CPU");
    filter_class->make_work = gst_cuda_histeq_make_work;
    filter_class->check_settings = gst_cuda_histeq_check_settings;

    gst_type_mark_as_plugin_api(gst_cuda_histeq_mode_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(gst_cuda_histeq_color_mode_get_type(), GstPluginAPIFlags(0));
}
