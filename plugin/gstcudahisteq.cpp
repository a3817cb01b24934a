/**
 * SECTION:element-cudahisteq
 * @title: cudahisteq
 * @short_description: Histogram equalization (global or CLAHE) of video frames on a CUDA GPU
 *
 * Spreads the grey levels of every frame: `global` as OpenCV's equalizeHist, `clahe` (contrast-limited adaptive
 * equalization over a grid of tiles) as OpenCV's CLAHE, bit-exact to both on 8-bit frames. YUV formats equalize the
 * luma plane and keep chroma; RGB formats equalize the luma of BT.601 YCrCb (`color-mode=luma`) or each of R, G and
 * B (`color-mode=per-channel`); alpha and padding are kept. #GstCudaHistEq:smoothing averages the histograms over
 * time so that brightness does not pump from frame to frame.
 *
 * With #GstCudaHistEq:post-messages the element posts an element message named `cudahisteq` for every frame:
 *
 * * #GstClockTime `timestamp`, `stream-time`, `running-time`, `duration`: of the frame
 * * #guint64 `frame`: index of the frame since the element started
 * * #GstValueArray of #guint `histogram`: 256 bins of the equalized samples (16-bit: value >> 8) before equalization
 * * #gdouble `mean`, #guint `min`, #guint `max`: of those samples, in sample units
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

#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <algorithm>
#include <array>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_histeq_debug);
#define GST_CAT_DEFAULT gst_cuda_histeq_debug

using namespace gstcudafilters;
namespace cf = cudafilters;

enum {
    PROP_0,
    PROP_MODE,
    PROP_CLIP_LIMIT,
    PROP_TILES_X,
    PROP_TILES_Y,
    PROP_SMOOTHING,
    PROP_COLOR_MODE,
    PROP_POST_MESSAGES,
};

#define DEFAULT_MODE cf::EqualizeMode::Global
#define DEFAULT_CLIP_LIMIT 2.0
#define DEFAULT_TILES 8
#define DEFAULT_SMOOTHING 0.0
#define MAX_SMOOTHING 0.999
#define DEFAULT_COLOR_MODE cf::ColorMode::Luma
#define DEFAULT_POST_MESSAGES FALSE

#define LIVE_FLAGS GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define CONTROLLABLE_FLAGS GParamFlags(LIVE_FLAGS | GST_PARAM_CONTROLLABLE)

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
class HistEqWork final : public FilterWork {
public:
    HistEqWork(std::unique_ptr<cf::Equalizer> equalizer, int plane, int slots)
        : equalizer_(std::move(equalizer)), plane_(plane), frameOfSlot_(std::size_t(slots), 0) {}

    bool writesPlane(int plane) const override { return plane == plane_; }

    void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                 GpuStream stream) override {
        frameOfSlot_[std::size_t(slot)] = equalizer_->frameCount();
        equalizer_->process(src[std::size_t(plane_)], dst[std::size_t(plane_)], stream);
    }

    void frameDone(GstElement* element, GstBuffer* out, int slot) override {
        if (!equalizer_->plan().statistics) return;
        cf::FrameStatistics stats;
        if (!equalizer_->statistics(stats, frameOfSlot_[std::size_t(slot)])) return;
        post(element, out, stats);
    }

    void reset() override { equalizer_->reset(); }

    std::shared_ptr<FilterWork> rebuild(Backend backend, int slots) const override {
        return std::make_shared<HistEqWork>(cf::makeEqualizer(equalizer_->plan(), backend), plane_, slots);
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
    int plane_;
    std::vector<std::uint64_t> frameOfSlot_;
};

GType mode_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {int(cf::EqualizeMode::Global), "One histogram over the frame (as OpenCV equalizeHist)", "global"},
        {int(cf::EqualizeMode::Clahe), "Contrast-limited adaptive equalization over tiles (as OpenCV CLAHE)", "clahe"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaHistEqMode", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

GType color_mode_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {int(cf::ColorMode::Luma), "Equalize luma (Y of YUV formats; BT.601 Y of RGB formats), keep colour", "luma"},
        {int(cf::ColorMode::PerChannel), "RGB formats: equalize R, G and B independently (YUV formats: Y)",
         "per-channel"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaHistEqColorMode", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

}  // namespace

struct _GstCudaHistEq {
    GstCudaFilter parent;
    HistEqSettings* settings;  // under the object lock
};

G_DEFINE_TYPE(GstCudaHistEq, gst_cuda_histeq, GST_TYPE_CUDA_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudahisteq, "cudahisteq", GST_RANK_NONE, GST_TYPE_CUDA_HISTEQ)

static HistEqSettings copy_settings(GstCudaHistEq* self) {
    GST_OBJECT_LOCK(self);
    HistEqSettings s = *self->settings;
    GST_OBJECT_UNLOCK(self);
    return s;
}

static std::shared_ptr<FilterWork> gst_cuda_histeq_make_work(GstCudaFilter* filter, const WorkConfig& config) {
    const HistEqSettings s = copy_settings(GST_CUDA_HISTEQ(filter));
    cf::EqualizeDesc desc = describe(s);
    // The plane holding luma (YUV, grey) or the packed RGB pixels: the only plane equalized.
    const PlaneLayout& plane = config.planes[0];
    desc.tilesX = std::min(desc.tilesX, plane.width);  // the grid never has more tiles than pixels
    desc.tilesY = std::min(desc.tilesY, plane.height);
    cf::ChannelOrder order;
    int channels = 1;
    if (plane.rgb) {
        channels = plane.channels;
        order.red = plane.componentChannel[GST_VIDEO_COMP_R];
        order.green = plane.componentChannel[GST_VIDEO_COMP_G];
        order.blue = plane.componentChannel[GST_VIDEO_COMP_B];
    }
    // YUV planes: Y alone is a 1-channel view of plane 0 only when the plane holds nothing else.
    cf::EqualizePlan plan = cf::EqualizePlan::make(desc, plane.type, channels, order);
    GST_DEBUG_OBJECT(filter, "%s equalization, %d channel(s), %s", cf::equalizeModeName(plan.mode), channels,
                     cf::backendName(config.backend));
    return std::make_shared<HistEqWork>(cf::makeEqualizer(std::move(plan), config.backend), plane.plane,
                                        config.slots);
}

static void gst_cuda_histeq_check_settings(GstCudaFilter* filter) {
    const HistEqSettings s = copy_settings(GST_CUDA_HISTEQ(filter));
    cf::EqualizePlan::make(describe(s), cf::SampleType::U8, 1);
}

static void gst_cuda_histeq_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_HISTEQ(object);
    GST_OBJECT_LOCK(self);
    HistEqSettings& s = *self->settings;
    switch (prop_id) {
    case PROP_MODE:
        s.mode = cf::EqualizeMode(g_value_get_enum(value));
        break;
    case PROP_CLIP_LIMIT:
        s.clipLimit = g_value_get_double(value);
        break;
    case PROP_TILES_X:
        s.tilesX = g_value_get_int(value);
        break;
    case PROP_TILES_Y:
        s.tilesY = g_value_get_int(value);
        break;
    case PROP_SMOOTHING:
        s.smoothing = g_value_get_double(value);
        break;
    case PROP_COLOR_MODE:
        s.colorMode = cf::ColorMode(g_value_get_enum(value));
        break;
    case PROP_POST_MESSAGES:
        s.postMessages = g_value_get_boolean(value);
        break;
    default:
        GST_OBJECT_UNLOCK(self);
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        return;
    }
    GST_OBJECT_UNLOCK(self);
    gst_cuda_filter_settings_changed(GST_CUDA_FILTER(self));
}

static void gst_cuda_histeq_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_HISTEQ(object);
    GST_OBJECT_LOCK(self);
    const HistEqSettings& s = *self->settings;
    switch (prop_id) {
    case PROP_MODE:
        g_value_set_enum(value, int(s.mode));
        break;
    case PROP_CLIP_LIMIT:
        g_value_set_double(value, s.clipLimit);
        break;
    case PROP_TILES_X:
        g_value_set_int(value, s.tilesX);
        break;
    case PROP_TILES_Y:
        g_value_set_int(value, s.tilesY);
        break;
    case PROP_SMOOTHING:
        g_value_set_double(value, s.smoothing);
        break;
    case PROP_COLOR_MODE:
        g_value_set_enum(value, int(s.colorMode));
        break;
    case PROP_POST_MESSAGES:
        g_value_set_boolean(value, s.postMessages);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_histeq_finalize(GObject* object) {
    delete GST_CUDA_HISTEQ(object)->settings;
    G_OBJECT_CLASS(gst_cuda_histeq_parent_class)->finalize(object);
}

static void gst_cuda_histeq_init(GstCudaHistEq* self) { self->settings = new HistEqSettings(); }

static void gst_cuda_histeq_class_init(GstCudaHistEqClass* klass) {
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstCudaFilterClass* filter_class = GST_CUDA_FILTER_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(gst_cuda_histeq_debug, "cudahisteq", 0, "CUDA histogram equalization");

    gobject_class->set_property = gst_cuda_histeq_set_property;
    gobject_class->get_property = gst_cuda_histeq_get_property;
    gobject_class->finalize = gst_cuda_histeq_finalize;

    g_object_class_install_property(gobject_class, PROP_MODE,
        g_param_spec_enum("mode", "Mode", "Global equalization or CLAHE", mode_get_type(), int(DEFAULT_MODE),
                          LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_CLIP_LIMIT,
        g_param_spec_double("clip-limit", "Clip limit",
                            "CLAHE: histogram bins are clipped at clip-limit x (tile pixels / 256), as OpenCV; "
                            "0 = no clipping (plain adaptive equalization)",
                            0.0, 1000.0, DEFAULT_CLIP_LIMIT, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_TILES_X,
        g_param_spec_int("tiles-x", "Tiles X",
                         "CLAHE: columns of the tile grid, 1 to 256 (at most the frame width in pixels; 16-bit formats: "
                         "tiles-x x tiles-y at most 256)", 1,
                         cf::kMaxTiles, DEFAULT_TILES, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_TILES_Y,
        g_param_spec_int("tiles-y", "Tiles Y",
                         "CLAHE: rows of the tile grid, 1 to 256 (at most the frame height in pixels; 16-bit formats: "
                         "tiles-x x tiles-y at most 256)", 1,
                         cf::kMaxTiles, DEFAULT_TILES, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_SMOOTHING,
        g_param_spec_double("smoothing", "Temporal smoothing",
                            "Weight of the past in the exponential moving average of histograms, 0 (each frame on "
                            "its own) to 0.999 (very slow adaptation)",
                            0.0, MAX_SMOOTHING, DEFAULT_SMOOTHING, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_COLOR_MODE,
        g_param_spec_enum("color-mode", "Colour mode",
                          "RGB formats: equalize luma or each colour channel (YUV formats always equalize Y)",
                          color_mode_get_type(), int(DEFAULT_COLOR_MODE), LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_POST_MESSAGES,
        g_param_spec_boolean("post-messages", "Post messages",
                             "Post an element message 'cudahisteq' per frame with its histogram, mean, min and max",
                             DEFAULT_POST_MESSAGES, LIVE_FLAGS));

    gst_element_class_set_static_metadata(element_class, "CUDA histogram equalization", "Filter/Effect/Video",
        "Equalizes the histogram of video frames (global or CLAHE, with temporal smoothing) on a CUDA GPU, or the CPU",
        "gst-cuda-filters developers");

    filter_class->make_work = gst_cuda_histeq_make_work;
    filter_class->check_settings = gst_cuda_histeq_check_settings;

    gst_type_mark_as_plugin_api(mode_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(color_mode_get_type(), GstPluginAPIFlags(0));
}
