/**
 * SECTION:element-cudaconvolve
 * @title: cudaconvolve
 * @short_description: 2D convolution (correlation) of video frames on a CUDA GPU
 *
 * Filters every frame with a kernel: a preset (box, gaussian, sharpen, Sobel, Scharr, Prewitt, Laplacian, emboss)
 * or taps given as text, or a bank of kernels whose responses are combined (gradient magnitude, sum, max |r|).
 * Each output sample is `sum(taps · input) / divisor + bias`, optionally made absolute, rounded half to even and
 * saturated — exactly as the engine's reference, on the GPU or, without one, on the CPU.
 *
 * Colour channels are filtered and alpha or padding copied; for YUV formats #GstCudaConvolve:planes chooses the
 * luma plane only (chroma copied) or every plane. An identity kernel makes the element passthrough.
 * Kernel, preset, size, sigma, bias, divisor and border can change while playing; the next frame uses them.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudaconvolve preset=gaussian size=9 sigma=2.5 ! autovideosink
 * ]| Blurs a test pattern with a 9×9 Gaussian (σ = 2.5 pixels).
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudaconvolve kernel="-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1" combine=magnitude ! autovideosink
 * ]| Sobel gradient magnitude from a bank of two 3×3 kernels given as text.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! cudaconvolve preset=sharpen planes=luma pipeline-depth=3 ! videoconvert ! autovideosink
 * ]| Sharpens the luma of a camera, three frames in flight.
 *
 * Since: 0.1
 */
#include "gstcudaconvolve.h"

#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>
#include <cudafilters/presets.hpp>

#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_convolve_debug);
#define GST_CAT_DEFAULT gst_cuda_convolve_debug

using namespace gstcudafilters;
namespace cf = cudafilters;

typedef enum { GST_CUDA_CONVOLVE_PLANES_LUMA, GST_CUDA_CONVOLVE_PLANES_ALL } GstCudaConvolvePlanes;

enum {
    PROP_0,
    PROP_KERNEL,
    PROP_PRESET,
    PROP_SIZE,
    PROP_SIGMA,
    PROP_DIVISOR,
    PROP_BIAS,
    PROP_ABSOLUTE,
    PROP_BORDER,
    PROP_BORDER_VALUE,
    PROP_COMBINE,
    PROP_PLANES,
};

#define DEFAULT_KERNEL ""
#define DEFAULT_PRESET cf::Preset::Identity
#define DEFAULT_SIZE 0
#define DEFAULT_SIGMA 0.0
#define DEFAULT_DIVISOR 0.0
#define DEFAULT_BIAS 0.0
#define DEFAULT_ABSOLUTE FALSE
#define DEFAULT_BORDER cf::Border::Reflect101
#define DEFAULT_BORDER_VALUE 0.0
#define DEFAULT_COMBINE cf::Combine::Magnitude
#define DEFAULT_PLANES GST_CUDA_CONVOLVE_PLANES_LUMA

#define LIVE_FLAGS GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define CONTROLLABLE_FLAGS GParamFlags(LIVE_FLAGS | GST_PARAM_CONTROLLABLE)

namespace {

struct ConvolveSettings {
    std::string kernel = DEFAULT_KERNEL;
    cf::Preset preset = DEFAULT_PRESET;
    int size = DEFAULT_SIZE;
    double sigma = DEFAULT_SIGMA;
    double divisor = DEFAULT_DIVISOR;
    double bias = DEFAULT_BIAS;
    bool absolute = DEFAULT_ABSOLUTE;
    cf::Border border = DEFAULT_BORDER;
    double borderValue = DEFAULT_BORDER_VALUE;
    cf::Combine combine = DEFAULT_COMBINE;
    GstCudaConvolvePlanes planes = DEFAULT_PLANES;
};

// The engine description the settings ask for. Throws cf::InvalidArgument.
cf::ConvolveDesc describe(const ConvolveSettings& s) {
    cf::ConvolveDesc desc;
    if (!s.kernel.empty()) {
        desc.kernels = cf::parseKernelText(s.kernel);
        desc.combine = s.combine;
    } else {
        desc = cf::presetDesc(s.preset, s.size, s.sigma);
    }
    if (s.divisor != 0) desc.divisor = s.divisor;
    desc.bias = s.bias;
    desc.absolute = desc.absolute || s.absolute;
    desc.border = s.border;
    desc.borderValue = s.borderValue;
    return desc;
}

// One Convolver per slot and filtered plane: slots run concurrently on their own streams and a Convolver's
// scratch belongs to one stream at a time.
class ConvolveWork final : public FilterWork {
public:
    ConvolveWork(std::vector<cf::ConvolvePlan> plans, Backend backend, int slots) {
        const int sets = backend == Backend::Cuda ? slots : 1;  // the CPU runs one frame at a time
        filtered_.resize(plans.size());
        convolvers_.resize(std::size_t(sets));
        for (auto& set : convolvers_) {
            set.resize(plans.size());
            for (std::size_t p = 0; p < plans.size(); ++p) {
                filtered_[p] = plans[p].kernelWidth > 0;
                if (filtered_[p]) set[p] = cf::makeConvolver(plans[p], backend);
            }
        }
    }

    bool writesPlane(int plane) const override { return filtered_[std::size_t(plane)]; }

    void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                 GpuStream stream) override {
        auto& set = convolvers_[std::size_t(slot) % convolvers_.size()];
        for (std::size_t p = 0; p < set.size(); ++p)
            if (set[p]) set[p]->process(src[p], dst[p], stream);
    }

private:
    std::vector<bool> filtered_;
    std::vector<std::vector<std::unique_ptr<cf::Convolver>>> convolvers_;
};

GType preset_get_type() {
    static GType type = 0;
    if (g_once_init_enter(&type)) {
        static std::vector<GEnumValue> values;
        for (const cf::PresetInfo& info : cf::presetTable())
            values.push_back({int(info.preset), info.description, info.name});
        values.push_back({0, nullptr, nullptr});
        GType t = g_enum_register_static("GstCudaConvolvePreset", values.data());
        g_once_init_leave(&type, t);
    }
    return type;
}

GType border_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {int(cf::Border::Replicate), "Replicate the edge sample (aaa|abcd|ddd)", "replicate"},
        {int(cf::Border::Reflect), "Reflect including the edge (cba|abcd|dcb)", "reflect"},
        {int(cf::Border::Reflect101), "Reflect around the edge sample (dcb|abcd|cba), as OpenCV's default",
         "reflect-101"},
        {int(cf::Border::Constant), "Use border-value outside the frame", "constant"},
        {int(cf::Border::Wrap), "Wrap around to the opposite edge (bcd|abcd|abc)", "wrap"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaConvolveBorder", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

GType combine_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {int(cf::Combine::Magnitude), "sqrt(sum of squared responses)", "magnitude"},
        {int(cf::Combine::Sum), "Sum of the responses", "sum"},
        {int(cf::Combine::MaxAbs), "Largest absolute response", "max-abs"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaConvolveCombine", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

GType planes_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_CUDA_CONVOLVE_PLANES_LUMA, "Luma only; chroma planes are copied", "luma"},
        {GST_CUDA_CONVOLVE_PLANES_ALL, "Every plane (luma and chroma)", "all"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("GstCudaConvolvePlanes", values);
        g_once_init_leave(&type, t);
    }
    return type;
}

}  // namespace

struct _GstCudaConvolve {
    GstCudaFilter parent;
    ConvolveSettings* settings;  // under the object lock
};

G_DEFINE_TYPE(GstCudaConvolve, gst_cuda_convolve, GST_TYPE_CUDA_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudaconvolve, "cudaconvolve", GST_RANK_NONE, GST_TYPE_CUDA_CONVOLVE)

static ConvolveSettings copy_settings(GstCudaConvolve* self) {
    GST_OBJECT_LOCK(self);
    ConvolveSettings s = *self->settings;
    GST_OBJECT_UNLOCK(self);
    return s;
}

static std::shared_ptr<FilterWork> gst_cuda_convolve_make_work(GstCudaFilter* filter, const WorkConfig& config) {
    const ConvolveSettings s = copy_settings(GST_CUDA_CONVOLVE(filter));
    const cf::ConvolveDesc desc = describe(s);
    std::vector<cf::ConvolvePlan> plans(config.planes.size());
    bool identity = true;
    for (const PlaneLayout& plane : config.planes) {
        const bool filtered = !plane.yuv || plane.luma || s.planes == GST_CUDA_CONVOLVE_PLANES_ALL;
        if (!filtered || plane.colorMask == 0) continue;
        cf::ConvolveDesc planeDesc = desc;
        planeDesc.channelMask = plane.colorMask;
        cf::ConvolvePlan& plan = plans[std::size_t(plane.plane)];
        plan = cf::ConvolvePlan::make(planeDesc, plane.type, plane.channels);
        identity = identity && plan.isIdentity();
    }
    if (identity) {
        GST_DEBUG_OBJECT(filter, "identity kernel: passthrough");
        return nullptr;
    }
    GST_DEBUG_OBJECT(filter, "%dx%d kernel%s, %zu in the bank, %s", plans[0].kernelWidth, plans[0].kernelHeight,
                     plans[0].separable ? " (separable)" : "", plans[0].kernels.size(),
                     cf::backendName(config.backend));
    return std::make_shared<ConvolveWork>(std::move(plans), config.backend, config.slots);
}

static void gst_cuda_convolve_check_settings(GstCudaFilter* filter) {
    const ConvolveSettings s = copy_settings(GST_CUDA_CONVOLVE(filter));
    cf::ConvolveDesc desc = describe(s);
    desc.channelMask = 1;
    cf::ConvolvePlan::make(desc, cf::SampleType::U8, 1);
}

// Rejects a value that is invalid on its own, naming the property and what is allowed; the old value stays.
static void reject(GstCudaConvolve* self, const char* property, const char* allowed, const char* why) {
    GST_WARNING_OBJECT(self, "invalid value for property '%s': %s; %s. Keeping the previous value.", property, why,
                       allowed);
    g_warning("%s: invalid value for property '%s': %s; %s. Keeping the previous value.", GST_OBJECT_NAME(self),
              property, why, allowed);
}

static void gst_cuda_convolve_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_CONVOLVE(object);
    if (prop_id == PROP_KERNEL) {
        const gchar* text = g_value_get_string(value);
        const std::string kernel = text ? text : "";
        if (!kernel.empty()) {
            try {
                cf::ConvolveDesc desc;
                desc.kernels = cf::parseKernelText(kernel);
                cf::ConvolvePlan::make(desc, cf::SampleType::U8, 1);
            } catch (const cf::InvalidArgument& e) {
                reject(self, "kernel",
                       "expected rows separated by ';', values by spaces or commas, kernels of a bank by '|', all "
                       "kernels of one size up to 255x255 (e.g. \"1 2 1; 2 4 2; 1 2 1\"), or \"\" for the preset",
                       e.what());
                return;
            }
        }
        GST_OBJECT_LOCK(self);
        self->settings->kernel = kernel;
        GST_OBJECT_UNLOCK(self);
        gst_cuda_filter_settings_changed(GST_CUDA_FILTER(self));
        return;
    }

    GST_OBJECT_LOCK(self);
    ConvolveSettings& s = *self->settings;
    switch (prop_id) {
    case PROP_PRESET:
        s.preset = cf::Preset(g_value_get_enum(value));
        break;
    case PROP_SIZE:
        s.size = g_value_get_int(value);
        break;
    case PROP_SIGMA:
        s.sigma = g_value_get_double(value);
        break;
    case PROP_DIVISOR:
        s.divisor = g_value_get_double(value);
        break;
    case PROP_BIAS:
        s.bias = g_value_get_double(value);
        break;
    case PROP_ABSOLUTE:
        s.absolute = g_value_get_boolean(value);
        break;
    case PROP_BORDER:
        s.border = cf::Border(g_value_get_enum(value));
        break;
    case PROP_BORDER_VALUE:
        s.borderValue = g_value_get_double(value);
        break;
    case PROP_COMBINE:
        s.combine = cf::Combine(g_value_get_enum(value));
        break;
    case PROP_PLANES:
        s.planes = GstCudaConvolvePlanes(g_value_get_enum(value));
        break;
    default:
        GST_OBJECT_UNLOCK(self);
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        return;
    }
    GST_OBJECT_UNLOCK(self);
    gst_cuda_filter_settings_changed(GST_CUDA_FILTER(self));
}

static void gst_cuda_convolve_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
    auto* self = GST_CUDA_CONVOLVE(object);
    GST_OBJECT_LOCK(self);
    const ConvolveSettings& s = *self->settings;
    switch (prop_id) {
    case PROP_KERNEL:
        g_value_set_string(value, s.kernel.c_str());
        break;
    case PROP_PRESET:
        g_value_set_enum(value, int(s.preset));
        break;
    case PROP_SIZE:
        g_value_set_int(value, s.size);
        break;
    case PROP_SIGMA:
        g_value_set_double(value, s.sigma);
        break;
    case PROP_DIVISOR:
        g_value_set_double(value, s.divisor);
        break;
    case PROP_BIAS:
        g_value_set_double(value, s.bias);
        break;
    case PROP_ABSOLUTE:
        g_value_set_boolean(value, s.absolute);
        break;
    case PROP_BORDER:
        g_value_set_enum(value, int(s.border));
        break;
    case PROP_BORDER_VALUE:
        g_value_set_double(value, s.borderValue);
        break;
    case PROP_COMBINE:
        g_value_set_enum(value, int(s.combine));
        break;
    case PROP_PLANES:
        g_value_set_enum(value, s.planes);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_cuda_convolve_finalize(GObject* object) {
    delete GST_CUDA_CONVOLVE(object)->settings;
    G_OBJECT_CLASS(gst_cuda_convolve_parent_class)->finalize(object);
}

static void gst_cuda_convolve_init(GstCudaConvolve* self) { self->settings = new ConvolveSettings(); }

static void gst_cuda_convolve_class_init(GstCudaConvolveClass* klass) {
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstCudaFilterClass* filter_class = GST_CUDA_FILTER_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(gst_cuda_convolve_debug, "cudaconvolve", 0, "CUDA convolution");

    gobject_class->set_property = gst_cuda_convolve_set_property;
    gobject_class->get_property = gst_cuda_convolve_get_property;
    gobject_class->finalize = gst_cuda_convolve_finalize;

    g_object_class_install_property(gobject_class, PROP_KERNEL,
        g_param_spec_string("kernel", "Kernel",
                            "Taps as text, used instead of the preset when set: rows separated by ';', values by "
                            "spaces or commas, kernels of a bank by '|' (e.g. \"-1 0 1; -2 0 2; -1 0 1\"); "
                            "correlation, anchor at the centre; up to 255x255; empty = use the preset",
                            DEFAULT_KERNEL, LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_PRESET,
        g_param_spec_enum("preset", "Preset", "Kernel used when no kernel text is set", preset_get_type(),
                          int(DEFAULT_PRESET), LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_SIZE,
        g_param_spec_int("size", "Size",
                         "Preset kernel size in pixels (box: any; gaussian: odd; sobel: 3, 5, 7; laplacian: 3, 5; "
                         "others: 3); 0 = the preset's default",
                         0, cf::kMaxKernelSize, DEFAULT_SIZE, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_SIGMA,
        g_param_spec_double("sigma", "Sigma",
                            "Gaussian standard deviation in pixels; 0 = derived from the size as OpenCV does",
                            0.0, 1000.0, DEFAULT_SIGMA, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_DIVISOR,
        g_param_spec_double("divisor", "Divisor",
                            "Responses are divided by this; 0 = automatic (the preset's, or the sum of the taps, "
                            "or 1 when they sum to 0)",
                            -1e6, 1e6, DEFAULT_DIVISOR, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_BIAS,
        g_param_spec_double("bias", "Bias",
                            "Added to every result, in sample units (e.g. 128 to show signed 8-bit responses)",
                            -65535.0, 65535.0, DEFAULT_BIAS, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_ABSOLUTE,
        g_param_spec_boolean("absolute", "Absolute",
                             "Output |result + bias| instead of clamping negative results to 0 (gradient presets "
                             "always do)",
                             DEFAULT_ABSOLUTE, LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_BORDER,
        g_param_spec_enum("border", "Border", "How samples outside the frame are made up", border_get_type(),
                          int(DEFAULT_BORDER), LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_BORDER_VALUE,
        g_param_spec_double("border-value", "Border value",
                            "Sample value outside the frame with border=constant, in sample units (0-255 for 8-bit, "
                            "0-65535 for 16-bit formats)",
                            0.0, 65535.0, DEFAULT_BORDER_VALUE, CONTROLLABLE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_COMBINE,
        g_param_spec_enum("combine", "Combine", "How the responses of a bank of kernels (kernel text with '|') "
                          "become one sample", combine_get_type(), int(DEFAULT_COMBINE), LIVE_FLAGS));
    g_object_class_install_property(gobject_class, PROP_PLANES,
        g_param_spec_enum("planes", "Planes", "YUV formats: filter the luma plane only or every plane",
                          planes_get_type(), DEFAULT_PLANES, LIVE_FLAGS));

    gst_element_class_set_static_metadata(element_class, "CUDA convolution", "Filter/Effect/Video",
        "Convolves video frames with a preset or custom kernel (or a bank of kernels) on a CUDA GPU, or the CPU",
        "gst-cuda-filters developers");

    filter_class->make_work = gst_cuda_convolve_make_work;
    filter_class->check_settings = gst_cuda_convolve_check_settings;

    gst_type_mark_as_plugin_api(preset_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(border_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(combine_get_type(), GstPluginAPIFlags(0));
    gst_type_mark_as_plugin_api(planes_get_type(), GstPluginAPIFlags(0));
}
