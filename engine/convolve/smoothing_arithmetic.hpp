// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// OpenCV's own arithmetic for the two presets that are its functions, in one place for every backend: the Gaussian
// kernel as cv::getGaussianKernel computes it, the fixed-point taps of 8- and 16-bit cv::GaussianBlur, and how
// cv::blur turns a window's integer sum into a sample.
#include <cudafilters/border.hpp>
#include <cudafilters/image.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace cudafilters::smoothing {

// cv::getGaussianKernel(n, sigma, CV_64F): n taps summing to 1; sigma 0 is derived from n, and n <= 9 with sigma 0
// gives OpenCV's binomial tables. OpenCV computes it in softdouble, which is IEEE double arithmetic with an exp of
// its own: the same operations in double, with that exp, give the same bits.
std::vector<double> gaussianKernel(int n, double sigma);

// The integer taps cv::GaussianBlur filters 8- and 16-bit frames with (odd n): the kernel times 2^fractionBits,
// rounded half to even from the outer taps inwards with each rounding error carried to the next tap, the centre tap
// taking what makes them sum to exactly 2^fractionBits.
std::vector<std::uint32_t> gaussianFixedTaps(int n, double sigma, int fractionBits);

// 8 bits of fraction for 8-bit samples, 16 for 16-bit: the rows are filtered with these taps, the columns of the row
// sums with them again, and the sum of both passes rounded half up at 2 × fractionBits.
constexpr int gaussianFractionBits(SampleType type) { return type == SampleType::U8 ? 8 : 16; }

// How cv::blur divides a window's integer sum by its area.
struct BoxDivision {
    // 8-bit frames and windows of at most 256 samples: ((sum + delta) × scale) >> 23, in integers.
    bool integer = true;
    std::uint32_t scale = 1u << 23;
    std::uint32_t delta = 0;
    // Otherwise the sum as a float times float(1 / area), rounded half to even: OpenCV's vector code. (Its scalar
    // code, which takes the last few samples of a row, multiplies in double instead, and rounds a few sums the other
    // way: 8-bit windows of 22² and 28², 16-bit windows from 11² on.)
    float reciprocal = 1;
};
BoxDivision boxDivision(int area, SampleType type);

CUDAFILTERS_HD std::uint32_t divideBoxSum(const BoxDivision& d, std::uint32_t sum, std::uint32_t maxLevel) {
    if (d.integer) return std::uint32_t((std::uint64_t(sum + d.delta) * d.scale) >> 23);
    const float v = rintf(float(sum) * d.reciprocal);
    return v >= float(maxLevel) ? maxLevel : std::uint32_t(v);
}

}  // namespace cudafilters::smoothing
