// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// cudaconvolve's settings and the work built from them: the engine plans for the negotiated planes (one pass per
// plane, two for a packed 4:2:2 plane with planes=all) and one Convolver per slot and pass. No GObject here: the
// element (gstcudaconvolve.cpp) binds the settings to its properties and maps the caps.
#include "base/filterwork.h"
#include "base/planelayout.h"

#include <cudafilters/convolve.hpp>
#include <cudafilters/presets.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

typedef enum { GST_CUDA_CONVOLVE_PLANES_LUMA, GST_CUDA_CONVOLVE_PLANES_ALL } GstCudaConvolvePlanes;

typedef enum {
    GST_CUDA_CONVOLVE_OUTPUT_SAME,
    GST_CUDA_CONVOLVE_OUTPUT_CHANNELS,
    GST_CUDA_CONVOLVE_OUTPUT_MULTI_CHANNEL,
} GstCudaConvolveOutput;

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
#define DEFAULT_OUTPUT GST_CUDA_CONVOLVE_OUTPUT_SAME
#define DEFAULT_ALGORITHM cf::ConvolveAlgorithm::Auto

namespace gstcudafilters {

namespace cf = cudafilters;

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
    GstCudaConvolveOutput output = DEFAULT_OUTPUT;
    cf::ConvolveAlgorithm algorithm = DEFAULT_ALGORITHM;
};

// The engine description the settings ask for. Throws cf::InvalidArgument.
cf::ConvolveDesc describe(const ConvolveSettings& s);
// The kernels the settings give, as full 2D kernels (a separable preset multiplied out), for the output modes.
std::vector<cf::Kernel2D> userKernels(const cf::ConvolveDesc& desc);
// What output=channels and output=multi-channel take, in words (errors name them).
extern const char* const kChannelsAllowed;
extern const char* const kMultiChannelAllowed;
// "1 kernel", "3 kernels".
std::string kernelCount(std::size_t n);
// Throws cf::InvalidArgument when the number of kernels does not suit the output mode.
void checkKernelCount(GstCudaConvolveOutput output, std::size_t n);
// Throws cf::InvalidArgument when the settings give no plan for their output mode, whatever the format.
void checkConvolveSettings(const ConvolveSettings& s);

// One filtering pass: a plan applied to a plane, or to the Y/chroma pairs of a packed 4:2:2 plane (lumaPairs).
struct ConvolvePass {
    int plane = 0;
    bool pairs = false;
    cf::ConvolvePlan plan;
};

// The passes for the negotiated planes: output=same filters the selected planes (the others are copied by the base);
// the other output modes have one plane on each side (negotiated by transform_formats). Packed 4:2:2 luma is
// filtered as Y/chroma pairs (chroma copied); with planes=all its U and V samples then as their own half-width
// planes (U with U neighbours, V with V), Y left as the first pass wrote it.
std::vector<ConvolvePass> makePasses(const ConvolveSettings& s, const WorkConfig& config);
// True when the pass leaves the samples it writes as they are (channels it leaves to another pass count as kept).
bool keepsSamples(const ConvolvePass& pass);

// One Convolver per slot and pass: slots run concurrently (on their own streams, or on the CPU executor's worker
// threads) and a Convolver's scratch belongs to one frame at a time. Each is prepared for its view's size (the FFT path's plans, work areas and kernel spectra
// are made here, not on the first frame). Passes run in order: a packed 4:2:2 plane with planes=all is filtered
// as Y/chroma pairs (Y filtered, chroma copied), then as macropixels (U and V filtered, Y left as the first pass
// wrote it).
class ConvolveWork final : public FilterWork {
public:
    ConvolveWork(std::vector<ConvolvePass> passes, std::vector<PlaneLayout> planes, Backend backend, int slots)
        : passes_(std::move(passes)), planes_(std::move(planes)) {
        const int sets = slots;
        partOfPlane_.assign(planes_.size(), -1);
        for (std::size_t k = 0; k < passes_.size(); ++k) {
            int& part = partOfPlane_[std::size_t(passes_[k].plane)];
            if (part < 0) {
                part = int(parts_.size());
                parts_.emplace_back();
            }
            parts_[std::size_t(part)].push_back(k);
        }
        convolvers_.resize(std::size_t(sets));
        for (auto& set : convolvers_)
            for (const ConvolvePass& pass : passes_) {
                set.push_back(cf::makeConvolver(pass.plan, backend));
                const PlaneLayout& layout = planes_[std::size_t(pass.plane)];
                set.back()->prepare(pass.pairs ? layout.pairsWidth : layout.width, layout.height);
            }
    }

    // Takes passes of the same shape (planes and parts unchanged) in place: every Convolver of every slot retuned, or
    // none (false: a new work is needed). Frames already enqueued keep the values they were launched with.
    bool retune(const std::vector<ConvolvePass>& passes) {
        if (passes.size() != passes_.size()) return false;
        for (std::size_t k = 0; k < passes.size(); ++k)
            if (passes[k].plane != passes_[k].plane || passes[k].pairs != passes_[k].pairs) return false;
        std::vector<std::pair<cf::Convolver*, std::size_t>> retuned;
        for (auto& set : convolvers_)
            for (std::size_t k = 0; k < set.size(); ++k) {
                if (!set[k]->retune(passes[k].plan)) {
                    // Put back the plans the others had: a plan they were built with has their shape.
                    for (auto& [convolver, pass] : retuned) convolver->retune(passes_[pass].plan);
                    return false;
                }
                retuned.emplace_back(set[k].get(), k);
            }
        passes_ = passes;
        return true;
    }

    bool writesPlane(int plane) const override { return partOfPlane_[std::size_t(plane)] >= 0; }
    bool slotsConcurrent() const override { return true; }
    bool capturable() const override {
        for (const auto& set : convolvers_)
            for (const auto& convolver : set)
                if (!convolver->capturable()) return false;
        return true;
    }

    void process(int slot, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                 GpuStream stream) override {
        for (int part = 0; part < parts(); ++part) processPart(slot, part, src, dst, stream);
    }

    // One part per plane: the passes of a plane run in order, planes independently.
    int parts() const override { return int(parts_.size()); }
    void processPart(int slot, int part, const std::vector<ImageView>& src, const std::vector<ImageView>& dst,
                     GpuStream stream) override {
        auto& set = convolvers_[std::size_t(slot) % convolvers_.size()];
        for (std::size_t k : parts_[std::size_t(part)]) {
            const ConvolvePass& pass = passes_[k];
            const std::size_t p = std::size_t(pass.plane);
            if (pass.pairs) set[k]->process(lumaPairs(src[p], planes_[p]), lumaPairs(dst[p], planes_[p]), stream);
            else set[k]->process(src[p], dst[p], stream);
        }
    }

    std::shared_ptr<FilterWork> rebuild(Backend backend, int slots) const override {
        return std::make_shared<ConvolveWork>(passes_, planes_, backend, slots);
    }

private:
    std::vector<ConvolvePass> passes_;
    std::vector<PlaneLayout> planes_;  // the input planes, for their sizes
    std::vector<std::vector<std::size_t>> parts_;  // pass indices, one list per plane filtered, in pass order
    std::vector<int> partOfPlane_;                 // per input plane: its part, -1 when no pass writes it
    std::vector<std::vector<std::unique_ptr<cf::Convolver>>> convolvers_;
};

}  // namespace gstcudafilters
