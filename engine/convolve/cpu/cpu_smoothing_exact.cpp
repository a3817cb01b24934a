// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_smoothing_exact.hpp"
#include "cpu_responses.hpp"
#include "../smoothing_arithmetic.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudafilters::cpu {
namespace {

// The window's taps and what turns the two passes' integer sum into a sample. GaussianBlur: its fixed-point taps,
// rounded half up at 2 × fractionBits; blur: taps of 1 and its division of the sum.
struct Arithmetic {
    std::vector<std::uint32_t> taps;
    int shift = 0;  // GaussianBlur: 2 × fractionBits
    smoothing::BoxDivision box;
};

Arithmetic arithmeticOf(const ConvolvePlan& plan) {
    const Smoothing& s = plan.smoothing;
    Arithmetic a;
    if (s.function == Smoothing::Function::GaussianBlur) {
        const int bits = smoothing::gaussianFractionBits(plan.type);
        a.taps = smoothing::gaussianFixedTaps(s.size, s.sigma, bits);
        a.shift = 2 * bits;
    } else {
        a.taps.assign(std::size_t(s.size), 1u);
        a.box = smoothing::boxDivision(s.size * s.size, plan.type);
    }
    return a;
}

// Row sums fit 32 bits (16-bit samples times 16-bit taps summing to 2^16); the column pass sums in 64.
template <typename T>
void filterBand(const ConvolvePlan& plan, const Arithmetic& a, const ImageView& src, const ImageView& dst, int y0,
                int y1, std::vector<std::uint32_t>& ring) {
    const int k = int(a.taps.size()), before = k / 2;
    const int w = src.width, c = src.channels, rowLength = w * c;
    // The constant border as cv::copyMakeBorder writes it: rounded half to even, saturated to the sample type.
    const double typeMax = src.type == SampleType::U8 ? 255 : 65535;
    const std::uint32_t level =
        plan.border == Border::Constant ? std::uint32_t(std::nearbyint(std::clamp(double(plan.borderValue), 0.0, typeMax))) : 0;
    ring.resize(std::size_t(k) * rowLength);

    // Row sums of source row r (outside the frame: its border row, or the constant's), into ring slot r mod k.
    const auto rowSums = [&](int r) {
        std::uint32_t* out = ring.data() + std::size_t(((r % k) + k) % k) * rowLength;
        const int sr = borderIndex(r, src.height, plan.border);
        if (sr < 0) {
            std::uint32_t sum = 0;
            for (std::uint32_t t : a.taps) sum += t * level;
            std::fill(out, out + rowLength, sum);
            return;
        }
        const T* in = src.row<const T>(sr);
        for (int x = 0; x < w; ++x) {
            if (x >= before && x - before + k <= w) {  // the window inside the row
                const T* window = in + (x - before) * c;
                for (int ch = 0; ch < c; ++ch) {
                    std::uint32_t sum = 0;
                    for (int i = 0; i < k; ++i) sum += a.taps[std::size_t(i)] * window[i * c + ch];
                    out[x * c + ch] = sum;
                }
                continue;
            }
            for (int ch = 0; ch < c; ++ch) {
                std::uint32_t sum = 0;
                for (int i = 0; i < k; ++i) {
                    const int sx = borderIndex(x + i - before, w, plan.border);
                    sum += a.taps[std::size_t(i)] * (sx < 0 ? level : std::uint32_t(in[sx * c + ch]));
                }
                out[x * c + ch] = sum;
            }
        }
    };

    const std::uint32_t maxLevel = std::uint32_t(plan.maxLevel());
    for (int r = y0 - before; r < y0 - before + k - 1; ++r) rowSums(r);
    for (int y = y0; y < y1; ++y) {
        rowSums(y - before + k - 1);
        T* out = dst.row<T>(y);
        for (int i = 0; i < rowLength; ++i) {
            const int ch = i % c;
            if (!(plan.channelMask >> ch & 1u)) continue;
            std::uint64_t sum = 0;
            for (int j = 0; j < k; ++j) {
                const int r = y - before + j;
                sum += std::uint64_t(a.taps[std::size_t(j)]) * ring[std::size_t(((r % k) + k) % k) * rowLength + i];
            }
            std::uint32_t v;
            if (a.shift) v = std::uint32_t((sum + (std::uint64_t(1) << (a.shift - 1))) >> a.shift);
            else v = smoothing::divideBoxSum(a.box, std::uint32_t(sum), maxLevel);
            out[i] = T(std::min(v, maxLevel));
        }
    }
}

template <typename T>
void smoothAs(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch) {
    // In place, or over the source, the rows still to be read would be overwritten: the source is read from a copy.
    ImageView in = src;
    if (overlapping(src, dst)) {
        scratch.padded.resize(src.rowBytes() * src.height);
        in.data = scratch.padded.data();
        in.pitch = src.rowBytes();
        for (int y = 0; y < src.height; ++y) std::memcpy(in.row<std::uint8_t>(y), src.row<const std::uint8_t>(y), in.pitch);
    }
    const Arithmetic a = arithmeticOf(plan);
    const int bands = bandCount(src.height, int(a.taps.size()));
    scratch.rowSums.resize(std::size_t(bands));
    forEachBand(src.height, int(a.taps.size()), [&](int band, int y0, int y1) {
        filterBand<T>(plan, a, in, dst, y0, y1, scratch.rowSums[std::size_t(band)]);
        // The channels not filtered: copied from the source where the plan copies them.
        for (int y = y0; y < y1; ++y) {
            const T* s = in.row<const T>(y);
            T* d = dst.row<T>(y);
            for (int i = 0; i < src.width * src.channels; ++i) {
                const int ch = i % src.channels;
                if (!(plan.channelMask >> ch & 1u) && (plan.copyMask >> ch & 1u)) d[i] = s[i];
            }
        }
    });
}

}  // namespace

void smoothExactly(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch) {
    if (plan.type == SampleType::U8) smoothAs<std::uint8_t>(plan, src, dst, scratch);
    else smoothAs<std::uint16_t>(plan, src, dst, scratch);
}

}  // namespace cudafilters::cpu
