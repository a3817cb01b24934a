// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference: one output sample at a time, in double, straight from the definition. The judge of every backend.
#include "reference.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/convolve_arithmetic.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace cudafilters::reference {
namespace {

double readSample(const ImageView& image, int x, int y, int c) {
    const int i = x * image.channels + c;
    if (image.type == SampleType::U8) return image.row<const std::uint8_t>(y)[i];
    return image.row<const std::uint16_t>(y)[i];
}

void writeSample(const ImageView& image, int x, int y, int c, int value) {
    const int i = x * image.channels + c;
    if (image.type == SampleType::U8) image.row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(value);
    else image.row<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(value);
}

class ReferenceConvolver final : public Convolver {
public:
    explicit ReferenceConvolver(ConvolvePlan plan) : Convolver(std::move(plan)) {}

    void process(const ImageView& src, const ImageView& dst, GpuStream) override {
        validateImages(plan_, src, dst);
        // Read everything before writing so that src == dst works.
        const int outChannels = plan_.outputChannels;
        std::vector<int> out(std::size_t(src.width) * src.height * outChannels);
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x)
                for (int o = 0; o < outChannels; ++o)
                    out[(std::size_t(y) * src.width + x) * outChannels + o] = outputSample(src, x, y, o);
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x)
                for (int o = 0; o < outChannels; ++o)
                    if (written(o)) writeSample(dst, x, y, o, out[(std::size_t(y) * src.width + x) * outChannels + o]);
    }

    bool retune(const ConvolvePlan& plan) override {
        if (!plan_.sameShape(plan)) return false;
        plan_ = plan;
        return true;
    }

private:
    // Filter mode: channels neither filtered nor copied are left as they are in dst.
    bool written(int o) const {
        return plan_.mode != ConvolveMode::Filter || plan_.combine == Combine::Channels ||
               ((plan_.channelMask | plan_.copyMask) >> o & 1u);
    }

    double response(const ImageView& src, const Kernel2D& k, int x, int y, int c) const {
        const int ax = k.width / 2, ay = k.height / 2;
        double sum = 0;
        for (int ky = 0; ky < k.height; ++ky) {
            const int sy = borderIndex(y + ky - ay, src.height, plan_.border);
            for (int kx = 0; kx < k.width; ++kx) {
                const int sx = borderIndex(x + kx - ax, src.width, plan_.border);
                const double v = (sx < 0 || sy < 0) ? double(plan_.borderValue) : readSample(src, sx, sy, c);
                sum += double(k.at(kx, ky)) * v;
            }
        }
        return sum;
    }

    int outputSample(const ImageView& src, int x, int y, int o) const {
        const int maxValue = plan_.maxLevel(), shift = plan_.bits.shift;
        if (plan_.mode == ConvolveMode::MultiChannel) {
            double sum = 0;
            for (int c = 0; c < plan_.inputChannels; ++c)
                sum += response(src, plan_.kernels[std::size_t(o) * plan_.inputChannels + c], x, y, c);
            return finishSample(sum, plan_.bias, plan_.absolute, maxValue, shift);
        }
        if (plan_.combine == Combine::Channels)
            return finishSample(response(src, plan_.kernels[o], x, y, 0), plan_.bias, plan_.absolute, maxValue, shift);
        if (!(plan_.channelMask & (1u << o))) return int(readSample(src, x, y, o));
        double combined = combineInit<double>(plan_.combine);
        for (const Kernel2D& k : plan_.kernels)
            combined = combineAdd(plan_.combine, combined, response(src, k, x, y, o));
        return finishSample(combineFinish(plan_.combine, combined), plan_.bias, plan_.absolute, maxValue, shift);
    }
};

}  // namespace

std::unique_ptr<Convolver> makeConvolver(ConvolvePlan plan) {
    return std::make_unique<ReferenceConvolver>(std::move(plan));
}

}  // namespace cudafilters::reference
