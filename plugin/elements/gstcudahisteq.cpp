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
#include "elements/gstcudahisteq.h"
#include "elements/histeqwork.h"
#include "base/settingsproperties.h"

#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <algorithm>
#include <array>
#include <string>
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

struct _GstCudaHistEq {
    GstCfFilter parent;
    SettingsStore<HistEqSettings>* settings;  // under the object lock
    // The CLAHE grid last clamped to the frame with a warning: requested tiles-x, tiles-y and the plane's width and
    // height (streaming thread only), so that each clamp is said once, not at every rebuild.
    int clampWarned[4];
};

G_DEFINE_TYPE(GstCudaHistEq, gst_cuda_histeq, GST_TYPE_CF_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudahisteq, "cudahisteq", GST_RANK_NONE, GST_TYPE_CUDA_HISTEQ)

using HistEqProperties = SettingsProperties<&_GstCudaHistEq::settings>;

static void gst_cuda_histeq_init(GstCudaHistEq* self) { HistEqProperties::init(self); }

static HistEqSettings copy_settings(GstCudaHistEq* self) { return HistEqProperties::copy(self); }

// CLAHE has at most one tile per pixel in each direction: a larger grid is clamped to the frame, which the user is
// told once per grid and frame size (the tiles then cover one pixel each in that direction).
static void warn_if_tiles_clamped(GstCudaHistEq* self, const HistEqSettings& s, const cf::EqualizePlan& plan,
                                  const PlaneLayout& plane) {
    if (plan.mode != cf::EqualizeMode::Clahe || (plan.tilesX == s.tilesX && plan.tilesY == s.tilesY)) return;
    const int width = plane.packed422() ? plane.pairsWidth : plane.width;
    const int key[4] = {s.tilesX, s.tilesY, width, plane.height};
    if (std::equal(key, key + 4, self->clampWarned)) return;
    std::copy(key, key + 4, self->clampWarned);
    std::string over;
    if (plan.tilesX != s.tilesX)
        over = "tiles-x=" + std::to_string(s.tilesX) + " is more than the frame's " + std::to_string(width) +
               (width == 1 ? " column" : " columns");
    if (plan.tilesY != s.tilesY)
        over += (over.empty() ? "" : " and ") + std::string("tiles-y=") + std::to_string(s.tilesY) +
                " is more than its " + std::to_string(plane.height) + (plane.height == 1 ? " row" : " rows");
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                        ("%s: %s of pixels: CLAHE uses a %dx%d grid (at most one tile per pixel); set tiles-x and "
                         "tiles-y to at most the frame's width and height to choose the grid",
                         GST_OBJECT_NAME(self), over.c_str(), plan.tilesX, plan.tilesY),
                        (nullptr));
}

static std::shared_ptr<FilterWork> gst_cuda_histeq_make_work(GstCfFilter* filter, const WorkConfig& config) {
    const HistEqSettings s = HistEqProperties::copyForWork(GST_CUDA_HISTEQ(filter));
    // The plane holding luma (YUV, grey) or the packed RGB pixels: the only plane equalized.
    const PlaneLayout& plane = config.planes[0];
    cf::EqualizePlan plan = histeqPlan(s, plane);
    warn_if_tiles_clamped(GST_CUDA_HISTEQ(filter), s, plan, plane);
    if (auto* current = dynamic_cast<HistEqWork*>(config.current.get());
        current && current->retune(plan, plane.plane)) {
        GST_DEBUG_OBJECT(filter, "new values applied in place");
        return config.current;
    }
    GST_DEBUG_OBJECT(filter, "%s equalization, %d channel(s), %s", cf::equalizeModeName(plan.mode), plan.channels,
                     cf::backendName(config.backend));
    return std::make_shared<HistEqWork>(cf::makeEqualizer(std::move(plan), config.backend), plane, config.slots);
}

static void gst_cuda_histeq_check_settings(GstCfFilter* filter) {
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

    GstCfFilterClass* filter_class = GST_CF_FILTER_CLASS(klass);
    gst_cf_filter_class_set_metadata(filter_class, "CUDA histogram equalization",
        "Equalizes the histogram of video frames (global or CLAHE, with temporal smoothing) on a CUDA GPU, or the CPU");
    filter_class->make_work = gst_cuda_histeq_make_work;
    filter_class->check_settings = gst_cuda_histeq_check_settings;

    gst_type_mark_as_plugin_api(gst_cuda_histeq_mode_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(gst_cuda_histeq_color_mode_get_type(), GstPluginAPIFlags(0));
}
