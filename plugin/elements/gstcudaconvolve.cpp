// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:element-cudaconvolve
 * @title: cudaconvolve
 * @short_description: 2D convolution (correlation) of video frames on a CUDA GPU
 *
 * Filters every frame with a kernel: a preset (box, gaussian, sharpen, Sobel, Scharr, Prewitt, Laplacian, emboss)
 * or taps given as text, or a bank of kernels whose responses are combined (gradient magnitude, sum, max |r|).
 * Each output sample is `sum(taps · input) / divisor + bias`, optionally made absolute, rounded half to even and
 * saturated — exactly as the engine's reference, on the GPU or, without one, on the CPU. The `gaussian` and `box`
 * presets are OpenCV's cv::GaussianBlur and cv::blur (same size, sigma and border): the CPU backend gives their
 * bits, fixed-point rounding included (it calls them, or without OpenCV computes their integer arithmetic); the CUDA
 * backend sums the same taps in float, which differs from them by 1 on some samples.
 *
 * Colour channels are filtered and alpha or padding copied; for YUV formats #GstCudaConvolve:planes chooses the
 * luma plane only (chroma copied) or every plane; packed 4:2:2 (YUY2, UYVY, YVYU, as cameras deliver it) is filtered
 * in place in its packing, Y with Y neighbours and, with `planes=all`, U with U and V with V as half-width planes
 * (even widths only). 10-bit formats keep their container's layout: results are rounded
 * to a 10-bit level and saturated at 1023 (I420_10LE, in the low bits) or 1023 << 6 = 65472 (P010_10LE, low 6 bits
 * zero); bias and border value are in stored units (mid-grey: 512 for I420_10LE, 32768 for P010_10LE and P016_LE).
 * An identity kernel makes the element passthrough.
 * Kernel, preset, size, sigma, bias, divisor and border can change while playing; the next frame uses them.
 * Large kernels are computed through the FFT where that is faster (#GstCudaConvolve:algorithm): cuFFT on the GPU,
 * loaded at run time from the CUDA toolkit's libcufft.so.12 (without it, auto sums directly), OpenCV's DFT on the CPU.
 *
 * #GstCudaConvolve:output reaches the engine's two modes that change the format; with the default, `same`, the
 * caps are never changed:
 *
 * - `channels`: a grey input (GRAY8 or GRAY16_LE) and a bank of N kernels; kernel n's response is written to
 *   output component n (R, G, B, then A or the padding byte). N = 1 keeps the grey format; N = 3 gives RGB or BGR
 *   (GRAY8 only); N = 4 gives RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB or xBGR from GRAY8 and RGBA64_LE from
 *   GRAY16_LE. Any other N fails at start, an input that is not grey at negotiation (LIBRARY/SETTINGS).
 * - `multi-channel`: a packed RGB input (RGB, BGR, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR) becomes a GRAY8
 *   response map, `sum over R, G, B of kernel_c applied to channel c`. The kernel text gives one kernel per colour
 *   channel in R|G|B order, whatever the format's byte order, or a single kernel used for all three; alpha and
 *   padding get no kernel. With divisor 0 the sum is divided by the sum of all the taps used (so a blur gives the
 *   mean of the blurred channels and a zero-sum kernel, e.g. a Laplacian, the plain sum).
 *
 * In both modes #GstCudaConvolve:combine is not used. #GstCudaConvolve:output can be set in the NULL and READY
 * states only (it changes the caps); while playing in `channels` mode a kernel change must keep the number of
 * kernels (otherwise the previous filter stays, with a warning).
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
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudaconvolve output=channels absolute=true kernel="-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1 | 0 1 0; 1 -4 1; 0 1 0" ! videoconvert ! autovideosink
 * ]| Writes the Sobel x response of a grey frame to red, Sobel y to green and the Laplacian to blue (RGB output).
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=BGRx ! cudaconvolve output=multi-channel absolute=true kernel="0 1 0; 1 -4 1; 0 1 0" ! videoconvert ! autovideosink
 * ]| A GRAY8 edge map: the Laplacian of R, G and B summed (one kernel for the three colour channels; `kernel="kr | kg | kb"` gives one each).
 *
 * Since: 0.1
 */
#include "elements/gstcudaconvolve.h"
#include "elements/convolvework.h"
#include "base/settingsproperties.h"

#include <cudafilters/convolve.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>
#include <cudafilters/presets.hpp>

#include <algorithm>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_cuda_convolve_debug);
#define GST_CAT_DEFAULT gst_cuda_convolve_debug

using namespace gstcudafilters;
namespace cf = cudafilters;

// The engine's enums as GEnum values (the settings keep the engine's types).
typedef enum {
    GST_CUDA_CONVOLVE_BORDER_REPLICATE = int(cf::Border::Replicate),
    GST_CUDA_CONVOLVE_BORDER_REFLECT = int(cf::Border::Reflect),
    GST_CUDA_CONVOLVE_BORDER_REFLECT_101 = int(cf::Border::Reflect101),
    GST_CUDA_CONVOLVE_BORDER_CONSTANT = int(cf::Border::Constant),
    GST_CUDA_CONVOLVE_BORDER_WRAP = int(cf::Border::Wrap),
} GstCudaConvolveBorder;

typedef enum {
    GST_CUDA_CONVOLVE_COMBINE_MAGNITUDE = int(cf::Combine::Magnitude),
    GST_CUDA_CONVOLVE_COMBINE_SUM = int(cf::Combine::Sum),
    GST_CUDA_CONVOLVE_COMBINE_MAX_ABS = int(cf::Combine::MaxAbs),
} GstCudaConvolveCombine;

typedef enum {
    GST_CUDA_CONVOLVE_ALGORITHM_AUTO = int(cf::ConvolveAlgorithm::Auto),
    GST_CUDA_CONVOLVE_ALGORITHM_DIRECT = int(cf::ConvolveAlgorithm::Direct),
    GST_CUDA_CONVOLVE_ALGORITHM_FFT = int(cf::ConvolveAlgorithm::Fft),
} GstCudaConvolveAlgorithm;

G_DEFINE_ENUM_TYPE(GstCudaConvolvePlanes, gst_cuda_convolve_planes,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_PLANES_LUMA, "luma"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_PLANES_ALL, "all"))
G_DEFINE_ENUM_TYPE(GstCudaConvolveOutput, gst_cuda_convolve_output,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_OUTPUT_SAME, "same"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_OUTPUT_CHANNELS, "channels"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_OUTPUT_MULTI_CHANNEL, "multi-channel"))
G_DEFINE_ENUM_TYPE(GstCudaConvolveBorder, gst_cuda_convolve_border,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_BORDER_REPLICATE, "replicate"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_BORDER_REFLECT, "reflect"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_BORDER_REFLECT_101, "reflect-101"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_BORDER_CONSTANT, "constant"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_BORDER_WRAP, "wrap"))
G_DEFINE_ENUM_TYPE(GstCudaConvolveCombine, gst_cuda_convolve_combine,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_COMBINE_MAGNITUDE, "magnitude"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_COMBINE_SUM, "sum"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_COMBINE_MAX_ABS, "max-abs"))
G_DEFINE_ENUM_TYPE(GstCudaConvolveAlgorithm, gst_cuda_convolve_algorithm,
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_ALGORITHM_AUTO, "auto"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_ALGORITHM_DIRECT, "direct"),
                   G_DEFINE_ENUM_VALUE(GST_CUDA_CONVOLVE_ALGORITHM_FFT, "fft"))

// The presets come from the engine's table.
static GType gst_cuda_convolve_preset_get_type() {
    static const GType type = [] {
        std::vector<GEnumValue> values;
        for (const cf::PresetInfo& info : cf::presetTable())
            values.push_back({int(info.preset), info.description, info.name});
        return registerRuntimeEnum("GstCudaConvolvePreset", values);
    }();
    return type;
}


namespace {

// output=channels: the formats written for a grey input and N kernels, preferred first (none: N not allowed).
std::vector<GstVideoFormat> channelsOutputs(GstVideoFormat in, std::size_t n) {
    if (in == GST_VIDEO_FORMAT_GRAY8) {
        if (n == 1) return {GST_VIDEO_FORMAT_GRAY8};
        if (n == 3) return {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR};
        if (n == 4)
            return {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
                    GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR};
    } else if (in == GST_VIDEO_FORMAT_GRAY16_LE) {
        if (n == 1) return {GST_VIDEO_FORMAT_GRAY16_LE};
        if (n == 4) return {GST_VIDEO_FORMAT_RGBA64_LE};
    }
    return {};
}

const std::vector<GstVideoFormat>& greyFormats() {
    static const std::vector<GstVideoFormat> f = {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE};
    return f;
}

// output=multi-channel: the packed RGB inputs (each becomes GRAY8).
const std::vector<GstVideoFormat>& multiChannelInputs() {
    static const std::vector<GstVideoFormat> f = {
        GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
        GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
        GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR};
    return f;
}

bool contains(const std::vector<GstVideoFormat>& v, GstVideoFormat f) {
    return std::find(v.begin(), v.end(), f) != v.end();
}

}  // namespace

struct _GstCudaConvolve {
    GstCfFilter parent;
    SettingsStore<ConvolveSettings>* settings;  // under the object lock
};

G_DEFINE_TYPE(GstCudaConvolve, gst_cuda_convolve, GST_TYPE_CF_FILTER)
GST_ELEMENT_REGISTER_DEFINE(cudaconvolve, "cudaconvolve", GST_RANK_NONE, GST_TYPE_CUDA_CONVOLVE)

using ConvolveProperties = SettingsProperties<&_GstCudaConvolve::settings>;

static ConvolveSettings copy_settings(GstCudaConvolve* self) { return ConvolveProperties::copy(self); }


static void gst_cuda_convolve_check_settings(GstCfFilter* filter) {
    checkConvolveSettings(copy_settings(GST_CUDA_CONVOLVE(filter)));
}

static std::shared_ptr<FilterWork> gst_cuda_convolve_make_work(GstCfFilter* filter, const WorkConfig& config) {
    const ConvolveSettings s = ConvolveProperties::copyForWork(GST_CUDA_CONVOLVE(filter));
    std::vector<ConvolvePass> passes = makePasses(s, config);
    if (std::all_of(passes.begin(), passes.end(), keepsSamples)) {
        GST_DEBUG_OBJECT(filter, "identity kernel: passthrough");
        return nullptr;
    }
    if (auto* current = dynamic_cast<ConvolveWork*>(config.current.get()); current && current->retune(passes)) {
        GST_DEBUG_OBJECT(filter, "new values applied in place");
        return config.current;
    }
    const cf::ConvolvePlan& first = passes[0].plan;
    GST_DEBUG_OBJECT(filter, "%dx%d kernel%s, %zu in the bank, %d -> %d channels, %zu pass(es), %s", first.kernelWidth,
                     first.kernelHeight, first.separable ? " (separable)" : "", first.kernels.size(),
                     first.inputChannels, first.outputChannels, passes.size(), cf::backendName(config.backend));
    return std::make_shared<ConvolveWork>(std::move(passes), config.planes, config.backend, config.slots);
}


// The format mapping of output=channels (n kernels) or output=multi-channel, seen from one pad: the formats on the
// other pad for one format on this one, and every format this pad can have.
struct FormatMap {
    bool channels;
    std::size_t n;
    GstPadDirection direction;

    std::vector<GstVideoFormat> other(GstVideoFormat f) const {
        if (direction == GST_PAD_SINK) {
            if (channels) return channelsOutputs(f, n);
            return contains(multiChannelInputs(), f) ? std::vector<GstVideoFormat>{GST_VIDEO_FORMAT_GRAY8}
                                                     : std::vector<GstVideoFormat>{};
        }
        if (channels) {
            std::vector<GstVideoFormat> in;
            for (GstVideoFormat g : greyFormats())
                if (contains(channelsOutputs(g, n), f)) in.push_back(g);
            return in;
        }
        return f == GST_VIDEO_FORMAT_GRAY8 ? multiChannelInputs() : std::vector<GstVideoFormat>{};
    }

    std::vector<GstVideoFormat> all() const {
        if (direction == GST_PAD_SINK) return channels ? greyFormats() : multiChannelInputs();
        if (!channels) return {GST_VIDEO_FORMAT_GRAY8};
        std::vector<GstVideoFormat> out;
        for (GstVideoFormat g : greyFormats())
            for (GstVideoFormat f : channelsOutputs(g, n)) out.push_back(f);
        return out;
    }
};

// The formats a caps structure names (a string, a list, or none: every format of the pad).
static std::vector<GstVideoFormat> structure_formats(const GstStructure* st, const FormatMap& map) {
    const GValue* field = gst_structure_get_value(st, "format");
    if (!field) return map.all();
    std::vector<GstVideoFormat> formats;
    if (G_VALUE_HOLDS_STRING(field)) {
        formats.push_back(gst_video_format_from_string(g_value_get_string(field)));
    } else if (GST_VALUE_HOLDS_LIST(field)) {
        for (guint k = 0; k < gst_value_list_get_size(field); ++k) {
            const GValue* v = gst_value_list_get_value(field, k);
            if (G_VALUE_HOLDS_STRING(v)) formats.push_back(gst_video_format_from_string(g_value_get_string(v)));
        }
    }
    return formats;
}

static void set_formats(GstStructure* st, const std::vector<GstVideoFormat>& formats) {
    if (formats.size() == 1) {
        gst_structure_set(st, "format", G_TYPE_STRING, gst_video_format_to_string(formats[0]), nullptr);
        return;
    }
    GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
    gst_value_list_init(&list, guint(formats.size()));
    g_value_init(&item, G_TYPE_STRING);
    for (GstVideoFormat g : formats) {
        g_value_set_string(&item, gst_video_format_to_string(g));
        gst_value_list_append_value(&list, &item);
    }
    g_value_unset(&item);
    gst_structure_take_value(st, "format", &list);
}

// Each structure of caps with its formats mapped (structures none of whose formats map are dropped); unmapped gets
// the first format that has no counterpart.
static GstCaps* map_caps(GstCaps* caps, const FormatMap& map, std::string& unmapped) {
    GstCaps* any = gst_caps_is_any(caps) ? gst_caps_from_string("video/x-raw") : nullptr;
    GstCaps* from = any ? any : caps;
    GstCaps* result = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(from); ++i) {
        const GstStructure* st = gst_caps_get_structure(from, i);
        std::vector<GstVideoFormat> mapped;
        for (GstVideoFormat f : structure_formats(st, map)) {
            std::vector<GstVideoFormat> o = map.other(f);
            if (o.empty() && unmapped.empty() && f != GST_VIDEO_FORMAT_UNKNOWN) unmapped = gst_video_format_to_string(f);
            for (GstVideoFormat g : o)
                if (!contains(mapped, g)) mapped.push_back(g);
        }
        if (mapped.empty()) continue;
        GstStructure* copy = gst_structure_copy(st);
        set_formats(copy, mapped);
        gst_structure_remove_fields(copy, "colorimetry", "chroma-site", nullptr);
        GstCapsFeatures* features = any ? nullptr : gst_caps_get_features(from, i);
        result = gst_caps_merge_structure_full(result, copy, features ? gst_caps_features_copy(features) : nullptr);
    }
    if (any) gst_caps_unref(any);
    return result;
}

// Caps: output=same keeps them; the other modes map grey to RGB-family formats or packed RGB to GRAY8.
static GstCaps* gst_cuda_convolve_transform_formats(GstCfFilter* filter, GstPadDirection direction, GstCaps* caps,
                                                    std::string* why) {
    const ConvolveSettings s = copy_settings(GST_CUDA_CONVOLVE(filter));
    if (s.output == GST_CUDA_CONVOLVE_OUTPUT_SAME) return nullptr;
    const bool channels = s.output == GST_CUDA_CONVOLVE_OUTPUT_CHANNELS;
    std::size_t n = 1;
    if (channels) {
        try {
            n = userKernels(describe(s)).size();
            checkKernelCount(s.output, n);
        } catch (const cf::InvalidArgument& e) {
            *why = e.what();
            // The fixed caps of a negotiation are refused (the base posts `why`). Any other query (a link made
            // before the start, as gst-launch makes them) gets the formats of every count allowed: refusing it
            // would leave only a link failure, while the start then posts the error that names the kernels.
            if (gst_caps_is_fixed(caps)) return gst_caps_new_empty();
            GstCaps* all = gst_caps_new_empty();
            for (std::size_t count : {1, 3, 4}) {
                std::string unused;
                all = gst_caps_merge(all, map_caps(caps, FormatMap{true, count, direction}, unused));
            }
            return all;
        }
    }
    std::string unmapped;
    GstCaps* result = map_caps(caps, FormatMap{channels, n, direction}, unmapped);
    if (gst_caps_is_empty(result)) {
        if (channels)
            *why = std::string(kChannelsAllowed) + "; with " + kernelCount(n) +
                   (unmapped.empty() ? std::string() : ", not on " + unmapped);
        else
            *why = std::string(kMultiChannelAllowed) + (unmapped.empty() ? std::string() : ", not " + unmapped);
        if (direction == GST_PAD_SRC) *why += " output";
    }
    return result;
}

// The kernel text on its own: parsed and validated as one 8-bit channel would take it.
static std::string check_kernel_text(const GValue* value) {
    const gchar* text = g_value_get_string(value);
    if (!text || !*text) return {};
    try {
        cf::ConvolveDesc desc;
        desc.kernels = cf::parseKernelText(text);
        cf::ConvolvePlan::make(desc, cf::SampleType::U8, 1);
    } catch (const cf::InvalidArgument& e) {
        return e.what();
    }
    return {};
}

static void gst_cuda_convolve_init(GstCudaConvolve* self) { ConvolveProperties::init(self); }

using ConvolveBindings = std::vector<PropertyBinding<ConvolveSettings>>;

// The kernel: its text, or a preset with its size and sigma.
static ConvolveBindings gst_cuda_convolve_kernel_bindings() {
    /**
     * GstCudaConvolve:kernel:
     *
     * Taps as text. Controllable: a string, so a GstController drives it through a control binding that sets
     * strings (GStreamer's stock bindings set numbers, booleans and enums only); a value that does not parse is
     * refused with a warning and the previous taps stay.
     */
    /**
     * GstCudaConvolve:preset:
     *
     * Controllable: a GstDirectControlBinding maps control values 0 to 1 over the presets in their order.
     */
    return {
        bind<&ConvolveSettings::kernel>(
            g_param_spec_string("kernel", "Kernel",
                                "Taps as text, used instead of the preset when set: rows separated by ';', values by "
                                "spaces or commas, kernels of a bank by '|' (e.g. \"-1 0 1; -2 0 2; -1 0 1\"); "
                                "correlation, anchor at the centre; up to 255x255; empty = use the preset",
                                DEFAULT_KERNEL, kControllableFlags),
            check_kernel_text,
            "expected rows separated by ';', values by spaces or commas, kernels of a bank by '|', all kernels of "
            "one size up to 255x255 (e.g. \"1 2 1; 2 4 2; 1 2 1\"), or \"\" for the preset"),
        bind<&ConvolveSettings::preset>(
            g_param_spec_enum("preset", "Preset", "Kernel used when no kernel text is set",
                              gst_cuda_convolve_preset_get_type(), int(DEFAULT_PRESET), kControllableFlags)),
        bind<&ConvolveSettings::size>(
            g_param_spec_int("size", "Size",
                             "Preset kernel size in pixels (box: any; gaussian: odd; sobel: 3, 5, 7; laplacian: "
                             "cv::Laplacian's ksize 1, 3 or 5; others: 3); 0 = the preset's default",
                             0, cf::kMaxKernelSize, DEFAULT_SIZE, kControllableFlags)),
        bind<&ConvolveSettings::sigma>(
            g_param_spec_double("sigma", "Sigma",
                                "Gaussian standard deviation in pixels; 0 = derived from the size as OpenCV does",
                                0.0, 1000.0, DEFAULT_SIGMA, kControllableFlags)),
    };
}

// What is done to each response: the divisor, the bias, the absolute value.
static ConvolveBindings gst_cuda_convolve_normalisation_bindings() {
    return {
        bind<&ConvolveSettings::divisor>(
            g_param_spec_double("divisor", "Divisor",
                                "Responses are divided by this; 0 = automatic (the preset's, or the sum of the taps, "
                                "or 1 when they sum to 0)",
                                -1e6, 1e6, DEFAULT_DIVISOR, kControllableFlags)),
        bind<&ConvolveSettings::bias>(
            g_param_spec_double("bias", "Bias",
                                "Added to every result, in stored sample units (e.g. 128 to show signed 8-bit responses; "
                                "512 for I420_10LE, 32768 for P010_10LE)",
                                -65535.0, 65535.0, DEFAULT_BIAS, kControllableFlags)),
        bind<&ConvolveSettings::absolute>(
            g_param_spec_boolean("absolute", "Absolute",
                                 "Output |result + bias| instead of clamping negative results to 0 (gradient "
                                 "presets always do)",
                                 DEFAULT_ABSOLUTE, kLiveFlags)),
    };
}

// How samples outside the frame are made up.
static ConvolveBindings gst_cuda_convolve_border_bindings() {
    return {
        bind<&ConvolveSettings::border>(
            g_param_spec_enum("border", "Border",
                              "How samples outside the frame are made up: replicate the edge sample (aaa|abcd|ddd), "
                              "reflect including the edge (cba|abcd|dcb), reflect-101 around the edge sample "
                              "(dcb|abcd|cba, OpenCV's default), constant (border-value), wrap to the opposite edge "
                              "(bcd|abcd|abc)",
                              gst_cuda_convolve_border_get_type(), int(DEFAULT_BORDER), kLiveFlags)),
        bind<&ConvolveSettings::borderValue>(
            g_param_spec_double("border-value", "Border value",
                                "Sample value outside the frame with border=constant, in stored sample units (0-255 for "
                                "8-bit, 0-1023 for I420_10LE, 0-65535 for 16-bit formats and P010_10LE)",
                                0.0, 65535.0, DEFAULT_BORDER_VALUE, kControllableFlags)),
    };
}

// How a bank is combined, the algorithm, the planes filtered and what the element writes.
static ConvolveBindings gst_cuda_convolve_output_bindings() {
    return {
        bind<&ConvolveSettings::combine>(
            g_param_spec_enum("combine", "Combine",
                              "How the responses of a bank of kernels (kernel text with '|') become one sample: "
                              "magnitude = sqrt(sum of squares), sum, max-abs = the largest absolute response",
                              gst_cuda_convolve_combine_get_type(), int(DEFAULT_COMBINE), kLiveFlags)),
        bind<&ConvolveSettings::algorithm>(
            g_param_spec_enum("algorithm", "Algorithm",
                              "How the correlation is computed: direct summation, fft (products of spectra: cuFFT on "
                              "the GPU, OpenCV's DFT on the CPU; its cost hardly grows with the kernel, results "
                              "within 1 of direct), or auto: the FFT for kernels past the crossover measured for the "
                              "backend, sample type and frame size (separable kernels keep their two 1-D passes: "
                              "every size on the CPU, up to 31x31 on the GPU)",
                              gst_cuda_convolve_algorithm_get_type(), int(DEFAULT_ALGORITHM), kLiveFlags)),
        bind<&ConvolveSettings::planes>(
            g_param_spec_enum("planes", "Planes",
                              "YUV formats: filter the luma plane only (chroma copied) or every plane",
                              gst_cuda_convolve_planes_get_type(), DEFAULT_PLANES, kLiveFlags)),
        /**
         * GstCudaConvolve:output:
         *
         * What the element writes. `same` (the default) keeps the caps; `channels` turns a grey frame and a bank of
         * 1, 3 or 4 kernels into one output component per kernel (R, G, B, A: RGB or BGR for 3 kernels, RGBA-family
         * for 4, RGBA64_LE from GRAY16_LE); `multi-channel` turns packed RGB into a GRAY8 response map, the sum over
         * R, G and B of one kernel each (kernel text in R|G|B order, or one kernel for all three; alpha and padding
         * unused). Only in the NULL and READY states.
         */
        bind<&ConvolveSettings::output>(
            g_param_spec_enum("output", "Output",
                              "same: caps unchanged; channels: GRAY8/GRAY16_LE in, kernel n of 1, 3 or 4 to "
                              "component n (RGB/BGR or RGBA-family out; RGBA64_LE from GRAY16_LE); multi-channel: "
                              "packed RGB in, GRAY8 out = sum of kernel c on colour channel c (kernels R|G|B, or one "
                              "for all)",
                              gst_cuda_convolve_output_get_type(), DEFAULT_OUTPUT, kReadyFlags),
            nullptr, "it changes the caps"),
    };
}

// The properties, each bound to its member of the settings; the ids are their positions from 1, in this order.
static void gst_cuda_convolve_install_properties(GObjectClass* gobject_class) {
    ConvolveBindings bindings;
    for (ConvolveBindings (*group)() : {gst_cuda_convolve_kernel_bindings, gst_cuda_convolve_normalisation_bindings,
                                        gst_cuda_convolve_border_bindings, gst_cuda_convolve_output_bindings}) {
        const ConvolveBindings part = group();
        bindings.insert(bindings.end(), part.begin(), part.end());
    }
    ConvolveProperties::install(gobject_class, std::move(bindings));
}

static void gst_cuda_convolve_class_init(GstCudaConvolveClass* klass) {
    GST_DEBUG_CATEGORY_INIT(gst_cuda_convolve_debug, "cudaconvolve", 0, "CUDA convolution");
    gst_cuda_convolve_install_properties(G_OBJECT_CLASS(klass));

    GstCfFilterClass* filter_class = GST_CF_FILTER_CLASS(klass);
    gst_cf_filter_class_set_metadata(filter_class, "CUDA convolution",
        "Convolves video frames with a preset or custom kernel (or a bank of kernels) on a CUDA GPU, or the CPU");
    filter_class->make_work = gst_cuda_convolve_make_work;
    filter_class->check_settings = gst_cuda_convolve_check_settings;
    filter_class->transform_formats = gst_cuda_convolve_transform_formats;

    // output=channels can write RGBA64_LE (a GRAY16_LE input and 4 kernels): the source pad accepts it too.
    GstCaps* srcCaps = gst_cf_filter_template_caps("RGBA64_LE");
    gst_element_class_add_pad_template(GST_ELEMENT_CLASS(klass),
                                       gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, srcCaps));
    gst_caps_unref(srcCaps);

    for (GType type : {gst_cuda_convolve_preset_get_type(), gst_cuda_convolve_border_get_type(),
                       gst_cuda_convolve_combine_get_type(), gst_cuda_convolve_planes_get_type(),
                       gst_cuda_convolve_algorithm_get_type(),
                       gst_cuda_convolve_output_get_type()})
        gst_type_mark_as_plugin_api(type, GstPluginAPIFlags(0));
}
