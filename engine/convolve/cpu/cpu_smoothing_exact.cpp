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
// rounded half up at 2 × fractionBits; blur: taps of 1 and its division of the sum. The taps are made on the first
// frame and again only when the plan's function, size, sigma or sample type changes.
struct Arithmetic {
    const std::vector<std::uint32_t>& taps;
    int shift = 0;  // GaussianBlur: 2 × fractionBits
    smoothing::BoxDivision box;
};

Arithmetic arithmeticOf(const ConvolvePlan& plan, SmoothingScratch& scratch) {
    const Smoothing& s = plan.smoothing;
    const bool gaussian = s.function == Smoothing::Function::GaussianBlur;
    const int bits = smoothing::gaussianFractionBits(plan.type);
    const Smoothing& made = scratch.tapsOf;
    if (made.function != s.function || made.size != s.size || made.sigma != s.sigma || scratch.tapsType != plan.type ||
        scratch.taps.empty()) {
        scratch.taps = gaussian ? smoothing::gaussianFixedTaps(s.size, s.sigma, bits)
                                : std::vector<std::uint32_t>(std::size_t(s.size), 1u);
        scratch.tapsOf = s;
        scratch.tapsType = plan.type;
    }
    if (gaussian) return {scratch.taps, 2 * bits, {}};
    return {scratch.taps, 0, smoothing::boxDivision(s.size * s.size, plan.type)};
}

// Row sums fit 32 bits (16-bit samples times 16-bit taps summing to 2^16); column sums too, but for 16-bit
// GaussianBlur (Acc: 64 bits). Each pass is a multiply-add of one tap over a whole row at a time, which the compiler
// vectorises.
template <typename T, typename Acc>
void filterBand(const ConvolvePlan& plan, const Arithmetic& a, const ImageView& src, const ImageView& dst, int y0,
                int y1, SmoothingScratch::Band& band, std::vector<Acc>& columns) {
    const int k = int(a.taps.size()), before = k / 2;
    const int w = src.width, c = src.channels, rowLength = w * c;
    // The constant border as cv::copyMakeBorder writes it: rounded half to even, saturated to the sample type.
    const double typeMax = src.type == SampleType::U8 ? 255 : 65535;
    const std::uint32_t level = plan.border == Border::Constant
                                    ? std::uint32_t(std::nearbyint(std::clamp(double(plan.borderValue), 0.0, typeMax)))
                                    : 0;
    band.rows.resize(std::size_t(k) * rowLength);
    band.padded.resize(std::size_t(w + k - 1) * c);
    columns.resize(std::size_t(rowLength));
    std::uint32_t* padded = band.padded.data();
    const auto slot = [&](int r) { return band.rows.data() + std::size_t(((r % k) + k) % k) * rowLength; };

    // sum over i of taps[i] · line(i)[e], for every e of a row. The taps are symmetric: the two lines of a pair are
    // added first, halving the multiplications, and blur's taps of 1 need none.
    const bool ones = !a.shift;
    const auto accumulate = [&](auto zero, int count, auto line, auto* out) {
        using Sum = decltype(zero);
        std::fill(out, out + rowLength, Sum(0));
        if (ones) {
            for (int i = 0; i < count; ++i) {
                const std::uint32_t* l = line(i);
                for (int e = 0; e < rowLength; ++e) out[e] += l[e];
            }
            return;
        }
        for (int i = 0; i < count / 2; ++i) {
            const Sum t = a.taps[std::size_t(i)];
            const std::uint32_t* l = line(i);
            const std::uint32_t* r = line(count - 1 - i);
            for (int e = 0; e < rowLength; ++e) out[e] += t * (Sum(l[e]) + r[e]);
        }
        const Sum t = a.taps[std::size_t(count / 2)];
        const std::uint32_t* m = line(count / 2);
        for (int e = 0; e < rowLength; ++e) out[e] += t * m[e];
    };

    // Row sums of source row r (outside the frame: its border row, or the constant's), into ring slot r mod k.
    const auto rowSums = [&](int r) {
        std::uint32_t* out = slot(r);
        const int sr = borderIndex(r, src.height, plan.border);
        if (sr < 0) {
            std::uint32_t sum = 0;
            for (std::uint32_t t : a.taps) sum += t * level;
            std::fill(out, out + rowLength, sum);
            return;
        }
        const T* in = src.row<const T>(sr);
        for (int x = -before; x < w + k - 1 - before; ++x) {
            const int sx = x >= 0 && x < w ? x : borderIndex(x, w, plan.border);
            for (int ch = 0; ch < c; ++ch) padded[(x + before) * c + ch] = sx < 0 ? level : in[sx * c + ch];
        }
        accumulate(std::uint32_t(0), k, [&](int i) { return padded + i * c; }, out);
    };

    const std::uint32_t maxLevel = std::uint32_t(plan.maxLevel());
    const unsigned all = (1u << c) - 1;
    const bool everyChannel = (plan.channelMask & all) == all;
    Acc* sums = columns.data();
    for (int r = y0 - before; r < y0 - before + k - 1; ++r) rowSums(r);
    for (int y = y0; y < y1; ++y) {
        rowSums(y - before + k - 1);
        accumulate(Acc(0), k, [&](int j) { return slot(y - before + j); }, sums);
        T* out = dst.row<T>(y);
        for (int e = 0; e < rowLength; ++e) {
            if (!everyChannel && !(plan.channelMask >> (e % c) & 1u)) continue;
            std::uint32_t v;
            if (a.shift) v = std::uint32_t((sums[e] + (Acc(1) << (a.shift - 1))) >> a.shift);
            else v = smoothing::divideBoxSum(a.box, std::uint32_t(sums[e]), maxLevel);
            out[e] = T(std::min(v, maxLevel));
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
    const Arithmetic a = arithmeticOf(plan, scratch);
    const int bands = bandCount(src.height, int(a.taps.size()));
    scratch.bands.resize(std::max(scratch.bands.size(), std::size_t(bands)));
    const bool wide = sizeof(T) == 2 && a.shift;  // 16-bit GaussianBlur: column sums up to 2^48
    forEachBand(src.height, int(a.taps.size()), [&](int b, int y0, int y1) {
        SmoothingScratch::Band& band = scratch.bands[std::size_t(b)];
        if (wide) filterBand<T, std::uint64_t>(plan, a, in, dst, y0, y1, band, band.wideColumns);
        else filterBand<T, std::uint32_t>(plan, a, in, dst, y0, y1, band, band.columns);
        // The channels not filtered: copied from the source where the plan copies them.
        const unsigned all = (1u << src.channels) - 1;
        for (int y = y0; (plan.channelMask & all) != all && y < y1; ++y) {
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
