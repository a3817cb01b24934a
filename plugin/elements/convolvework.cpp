// SPDX-License-Identifier: LGPL-2.1-or-later
// cudaconvolve's plans and passes (see convolvework.h).
#include "elements/convolvework.h"

#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>

#include <algorithm>
#include <utility>

namespace gstcudafilters {

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
    desc.algorithm = s.algorithm;
    return desc;
}

std::vector<cf::Kernel2D> userKernels(const cf::ConvolveDesc& desc) {
    if (!desc.kernels.empty()) return desc.kernels;
    cf::Kernel2D k;
    k.width = int(desc.row.size());
    k.height = int(desc.column.size());
    k.taps.resize(std::size_t(k.width) * std::size_t(k.height));
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x) k.taps[std::size_t(y) * k.width + x] = desc.column[y] * desc.row[x];
    return {k};
}

const char* const kChannelsAllowed =
    "output=channels writes kernel n to output component n (R, G, B, A) and takes 1 kernel (grey out), 3 kernels "
    "(RGB or BGR out, GRAY8 input only) or 4 kernels (RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR out from "
    "GRAY8; RGBA64_LE from GRAY16_LE), on a GRAY8 or GRAY16_LE input";
const char* const kMultiChannelAllowed =
    "output=multi-channel takes a packed RGB input (RGB, BGR, RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR) and "
    "writes GRAY8, with 1 kernel (used for R, G and B) or 3 kernels in R|G|B order";

std::string kernelCount(std::size_t n) { return std::to_string(n) + (n == 1 ? " kernel" : " kernels"); }

void checkKernelCount(GstCudaConvolveOutput output, std::size_t n) {
    if (output == GST_CUDA_CONVOLVE_OUTPUT_CHANNELS && n != 1 && n != 3 && n != 4)
        throw cf::InvalidArgument(std::string(kChannelsAllowed) + "; the kernel settings give " + kernelCount(n) +
                                  ": give 1, 3 or 4 kernels (separated by '|' in the kernel text), or set "
                                  "output=same");
    if (output == GST_CUDA_CONVOLVE_OUTPUT_MULTI_CHANNEL && n != 1 && n != 3)
        throw cf::InvalidArgument(std::string(kMultiChannelAllowed) + "; the kernel settings give " + kernelCount(n) +
                                  ": give 1 or 3 kernels (separated by '|' in the kernel text), or set output=same");
}

namespace {

// One side's channel → the index of the R, G, B (then A or padding) component it holds, from the plane layout.
std::vector<int> componentOfChannel(const PlaneLayout& plane) {
    std::vector<int> comp(std::size_t(plane.channels), -1);
    for (int c = 0; c < 4; ++c) {
        const int ch = plane.componentChannel[std::size_t(c)];
        if (ch >= 0 && ch < plane.channels) comp[std::size_t(ch)] = c;
    }
    for (int& c : comp)
        if (c < 0) c = 3;  // the padding byte of RGBx-style formats stands where alpha would
    return comp;
}

// The engine plan for output=channels on a grey plane: kernels in the output's memory order.
cf::ConvolvePlan channelsPlan(cf::ConvolveDesc desc, const PlaneLayout& in, const PlaneLayout& out) {
    const std::vector<cf::Kernel2D> user = userKernels(desc);
    checkKernelCount(GST_CUDA_CONVOLVE_OUTPUT_CHANNELS, user.size());
    if (in.channels != 1 || std::size_t(out.channels) != user.size())
        throw cf::InvalidArgument("output=channels: the kernel settings give " + kernelCount(user.size()) +
                                  " but the negotiated output has " + std::to_string(out.channels) +
                                  (out.channels == 1 ? " channel" : " channels") +
                                  "; a different number of kernels applies from the next negotiation (restart the "
                                  "element)");
    const std::vector<int> comp = componentOfChannel(out);
    desc.kernels.clear();
    for (int ch = 0; ch < out.channels; ++ch) desc.kernels.push_back(user[std::size_t(comp[std::size_t(ch)])]);
    desc.row.clear();
    desc.column.clear();
    desc.mode = cf::ConvolveMode::Filter;
    desc.combine = cf::Combine::Channels;
    desc.channelMask = 1;
    return cf::ConvolvePlan::make(desc, in.type, 1);
}

// The engine plan for output=multi-channel: one kernel per input channel in memory order (zero taps for alpha and
// padding), their responses summed into one output channel.
cf::ConvolvePlan multiChannelPlan(cf::ConvolveDesc desc, const PlaneLayout& in, const PlaneLayout& out) {
    const std::vector<cf::Kernel2D> user = userKernels(desc);
    checkKernelCount(GST_CUDA_CONVOLVE_OUTPUT_MULTI_CHANNEL, user.size());
    if (!in.rgb || out.channels != 1)
        throw cf::InvalidArgument(std::string(kMultiChannelAllowed) + "; the negotiated formats do not fit");
    const std::vector<int> comp = componentOfChannel(in);
    cf::Kernel2D zero = user[0];
    std::fill(zero.taps.begin(), zero.taps.end(), 0.0f);
    desc.kernels.clear();
    for (int ch = 0; ch < in.channels; ++ch) {
        const int c = comp[std::size_t(ch)];
        const bool colour = (in.colorMask >> ch) & 1u;
        desc.kernels.push_back(!colour || c > 2 ? zero : user[user.size() == 1 ? 0 : std::size_t(c)]);
    }
    desc.row.clear();
    desc.column.clear();
    desc.mode = cf::ConvolveMode::MultiChannel;
    desc.outputs = 1;
    return cf::ConvolvePlan::make(desc, in.type, in.channels);
}

}  // namespace

void checkConvolveSettings(const ConvolveSettings& s) {
    cf::ConvolveDesc desc = describe(s);
    desc.channelMask = 1;
    cf::ConvolvePlan::make(desc, cf::SampleType::U8, 1);
    if (s.output == GST_CUDA_CONVOLVE_OUTPUT_SAME) return;
    const std::size_t n = userKernels(desc).size();
    checkKernelCount(s.output, n);
    PlaneLayout grey, rgb;
    grey.channels = 1;
    rgb.channels = 3;
    rgb.rgb = true;
    rgb.colorMask = 0x7;
    rgb.componentChannel = {{0, 1, 2, -1}};
    if (s.output == GST_CUDA_CONVOLVE_OUTPUT_CHANNELS) {
        PlaneLayout out = grey;
        out.channels = int(n);
        out.componentChannel = {{0, n > 1 ? 1 : -1, n > 2 ? 2 : -1, n > 3 ? 3 : -1}};
        channelsPlan(desc, grey, out);
    } else {
        multiChannelPlan(desc, rgb, grey);
    }
}

// The passes for the negotiated planes: output=same filters the selected planes (the others are copied by the base);
// the other output modes have one plane on each side (negotiated by transform_formats). Packed 4:2:2 luma is
// filtered as Y/chroma pairs (chroma copied); with planes=all its U and V samples then as their own half-width
// planes (U with U neighbours, V with V), Y left as the first pass wrote it.
std::vector<ConvolvePass> makePasses(const ConvolveSettings& s, const WorkConfig& config) {
    const cf::ConvolveDesc desc = describe(s);
    if (s.output != GST_CUDA_CONVOLVE_OUTPUT_SAME) {
        if (config.planes.size() != 1 || config.outPlanes.size() != 1)
            throw cf::InvalidArgument(s.output == GST_CUDA_CONVOLVE_OUTPUT_CHANNELS ? kChannelsAllowed
                                                                                     : kMultiChannelAllowed);
        return {{0, false,
                 s.output == GST_CUDA_CONVOLVE_OUTPUT_CHANNELS
                     ? channelsPlan(desc, config.planes[0], config.outPlanes[0])
                     : multiChannelPlan(desc, config.planes[0], config.outPlanes[0])}};
    }
    const bool all = s.planes == GST_CUDA_CONVOLVE_PLANES_ALL;
    std::vector<ConvolvePass> passes;
    for (const PlaneLayout& plane : config.planes) {
        cf::ConvolveDesc planeDesc = desc;
        if (plane.packed422()) {
            planeDesc.channelMask = 1u << plane.pairsLumaChannel;
            passes.push_back({plane.plane, true, cf::ConvolvePlan::make(planeDesc, plane.type, 2, plane.bits)});
            if (!all) continue;
            planeDesc.channelMask = plane.chromaMask();
            planeDesc.copyMask = 0;
            passes.push_back(
                {plane.plane, false, cf::ConvolvePlan::make(planeDesc, plane.type, plane.channels, plane.bits)});
            continue;
        }
        const bool filtered = !plane.yuv || plane.luma || all;
        if (!filtered || plane.colorMask == 0) continue;
        planeDesc.channelMask = plane.colorMask;
        passes.push_back({plane.plane, false, cf::ConvolvePlan::make(planeDesc, plane.type, plane.channels, plane.bits)});
    }
    return passes;
}

// True when the pass leaves the samples it writes as they are (channels it leaves to another pass count as kept).
bool keepsSamples(const ConvolvePass& pass) {
    cf::ConvolvePlan plan = pass.plan;
    plan.copyMask = ~plan.channelMask & ((1u << plan.inputChannels) - 1);
    return plan.isIdentity();
}

}  // namespace gstcudafilters
