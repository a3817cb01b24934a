// SPDX-License-Identifier: LGPL-2.1-or-later
// The gaussian and box presets on the CPU backend against cv::GaussianBlur and cv::blur: the same bits, on every
// border, size, sigma, sample type and channel layout the element gives them, frames smaller than the window too.
// The same cases hold the project's own code for builds without OpenCV (cpu_smoothing_exact.hpp) to those bits.
#include "convolve_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#if CUDAFILTERS_HAVE_OPENCV
#include "cpu_smoothing_exact.hpp"
#include "opencv_images.hpp"
#include "../../engine/convolve/smoothing_arithmetic.hpp"
#include <cudafilters/presets.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

struct Case {
    Preset preset;
    int size;
    double sigma;
    Border border;
    double borderValue;
    SampleType type;
    int channels;
    int width, height;
    unsigned channelMask = 0xF;
    bool inPlace = false;
    bool scene = false;  // a smooth frame with edges instead of noise (see fill())

    std::string name() const {
        std::string s = std::string(preset == Preset::Gaussian ? "gaussian" : "box") + std::to_string(size);
        if (sigma > 0) s += "_s" + std::to_string(int(sigma * 10));
        s += "_b" + std::to_string(int(border)) + (borderValue != 0 ? "v" : "") +
             (type == SampleType::U8 ? "_u8" : "_u16") + "_c" + std::to_string(channels) + "_" +
             std::to_string(width) + "x" + std::to_string(height);
        if (channelMask != 0xF) s += "_m" + std::to_string(channelMask);
        if (inPlace) s += "_inplace";
        if (scene) s += "_scene";
        return s;
    }
};

// Random samples, or for `scene` what photographs have more of: slow gradients (where sums land near a rounding
// boundary row after row), hard edges and a little noise.
void fill(const Case& c, HostImage& src) {
    const std::uint32_t seed = std::uint32_t(c.width * 131 + c.size * 7 + c.channels);
    if (!c.scene) {
        src.fillRandom(seed);
        return;
    }
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> noise(-1.5, 1.5);
    const double top = src.maxValue();
    for (int y = 0; y < src.height(); ++y)
        for (int x = 0; x < src.width(); ++x)
            for (int ch = 0; ch < src.channels(); ++ch) {
                double v = 0.5 + 0.3 * std::sin(x / 23.0 + ch) * std::cos(y / 31.0) + 0.15 * (x > src.width() / 2);
                if ((x / 40 + y / 40) % 3 == 0) v *= 0.6;  // blocks with hard edges
                src.setSample(x, y, ch, std::clamp(std::round(v * top + noise(rng) * top / 255), 0.0, top));
            }
}

void openCv(const Case& c, const cv::Mat& in, cv::Mat& out, int border) {
    if (c.preset == Preset::Gaussian)
        cv::GaussianBlur(in, out, cv::Size(c.size, c.size), c.sigma, c.sigma, border);
    else
        cv::blur(in, out, cv::Size(c.size, c.size), cv::Point(-1, -1), border);
}

// What OpenCV gives: the function with the border itself where it has it. Wrap and a constant other than 0 it does
// not take: there the frame padded by the window's reach with cv::copyMakeBorder is filtered and its centre kept.
cv::Mat expected(const Case& c, HostImage& src) {
    cv::Mat out;
    if (c.border != Border::Wrap && c.borderValue == 0) {
        openCv(c, matOf(src), out, cvBorder(c.border));
        return out;
    }
    const int before = c.size / 2, after = c.size - 1 - before;
    cv::Mat padded, filtered;
    cv::copyMakeBorder(matOf(src), padded, before, after, before, after, cvBorder(c.border),
                       cv::Scalar::all(c.borderValue));
    openCv(c, padded, filtered, cv::BORDER_REPLICATE);
    filtered(cv::Rect(before, before, src.width(), src.height())).copyTo(out);
    return out;
}

ConvolveDesc descOf(const Case& c) {
    ConvolveDesc desc = presetDesc(c.preset, c.size, c.sigma);
    desc.border = c.border;
    desc.borderValue = c.borderValue;
    desc.channelMask = c.channelMask;
    return desc;
}

std::vector<Case> cases() {
    std::vector<Case> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    // Every size 1-31 (box: even too), at one frame size and border; then the borders on fewer sizes.
    for (int k = 1; k <= 31; ++k) {
        if (k % 2) out.push_back({Preset::Gaussian, k, 0, Border::Reflect101, 0, SampleType::U8, 1, 385, 289});
        out.push_back({Preset::Box, k, 0, Border::Reflect101, 0, SampleType::U8, 1, 385, 289});
    }
    for (Border b : borders)
        for (int k : {3, 5, 9, 31}) {
            out.push_back({Preset::Gaussian, k, 0, b, 0, SampleType::U8, 1, 97, 55});
            out.push_back({Preset::Box, k, 0, b, 0, SampleType::U8, 1, 97, 55});
            out.push_back({Preset::Box, k + 1, 0, b, 0, SampleType::U8, 1, 97, 55});
        }
    for (double sigma : {0.5, 1.0, 2.0, 5.3})
        for (int k : {3, 9, 15}) out.push_back({Preset::Gaussian, k, sigma, Border::Reflect101, 0, SampleType::U8, 1, 385, 289});
    // Constant borders with a value OpenCV's functions do not take.
    for (Preset p : {Preset::Gaussian, Preset::Box})
        out.push_back({p, 5, 0, Border::Constant, 200, SampleType::U8, 1, 97, 55});
    out.push_back({Preset::Gaussian, 7, 0, Border::Constant, 40000, SampleType::U16, 1, 97, 55});
    // 16 bits, and 1-4 channels.
    for (Border b : {Border::Replicate, Border::Reflect101, Border::Constant})
        for (int k : {3, 5, 9}) {
            out.push_back({Preset::Gaussian, k, 0, b, 0, SampleType::U16, 1, 97, 55});
            out.push_back({Preset::Box, k, 0, b, 0, SampleType::U16, 1, 97, 55});
        }
    for (int channels : {2, 3, 4})
        for (SampleType t : {SampleType::U8, SampleType::U16}) {
            out.push_back({Preset::Gaussian, 5, 0, Border::Reflect101, 0, t, channels, 97, 55});
            out.push_back({Preset::Box, 4, 0, Border::Reflect101, 0, t, channels, 97, 55});
        }
    // Frames smaller than the window.
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {7, 5}, {33, 17}})
        for (Border b : borders) {
            out.push_back({Preset::Gaussian, 9, 0, b, 0, SampleType::U8, 1, w, h});
            out.push_back({Preset::Box, 6, 0, b, 0, SampleType::U8, 1, w, h});
        }
    // Full HD, odd-sized by one: the functions' threaded stripes.
    for (int k : {3, 5, 9, 31}) out.push_back({Preset::Gaussian, k, 0, Border::Reflect101, 0, SampleType::U8, 1, 1921, 1081});
    out.push_back({Preset::Gaussian, 5, 0, Border::Reflect101, 0, SampleType::U8, 3, 1921, 1081});
    out.push_back({Preset::Box, 5, 0, Border::Reflect101, 0, SampleType::U8, 1, 1921, 1081});
    // blur's float division (windows over 256 samples at 8 bits, every window over 1 at 16): rows of whole vectors,
    // which OpenCV divides in float, not in its double scalar code (smoothing::BoxDivision).
    for (int k : {17, 22, 28, 31}) out.push_back({Preset::Box, k, 0, Border::Reflect101, 0, SampleType::U8, 1, 256, 97});
    for (int k : {11, 14, 24, 31}) out.push_back({Preset::Box, k, 0, Border::Reflect101, 0, SampleType::U16, 2, 128, 97});
    // Smooth frames with edges.
    for (SampleType t : {SampleType::U8, SampleType::U16})
        for (int channels : {1, 3}) {
            for (auto [k, sigma] : {std::pair{3, 0.0}, {5, 0.0}, {9, 0.0}, {9, 2.0}, {15, 0.0}})
                out.push_back({Preset::Gaussian, k, sigma, Border::Reflect101, 0, t, channels, 385, 289, 0xF, false, true});
            for (int k : {2, 4, 5, 6, 9})
                out.push_back({Preset::Box, k, 0, Border::Reflect101, 0, t, channels, 385, 289, 0xF, false, true});
        }
    // Alpha left out (RGBA with channel mask 7), and in place.
    for (Preset p : {Preset::Gaussian, Preset::Box}) {
        out.push_back({p, 5, 0, Border::Reflect101, 0, SampleType::U8, 4, 97, 55, 0x7});
        out.push_back({p, 5, 0, Border::Reflect101, 0, SampleType::U8, 1, 97, 55, 0xF, true});
        out.push_back({p, 5, 0, Border::Reflect101, 0, SampleType::U8, 4, 97, 55, 0x7, true});
    }
    return out;
}

class SmoothingVsOpenCv : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(SmoothingVsOpenCv, SameSamples) {
    const Case c = GetParam();
    const ConvolvePlan plan = ConvolvePlan::make(descOf(c), c.type, c.channels);
    ASSERT_NE(plan.smoothing.function, Smoothing::Function::None);
    HostImage src(c.width, c.height, c.channels, c.type);
    fill(c, src);
    const HostImage original = src;
    const cv::Mat want = expected(c, src);

    HostImage out = c.inPlace ? src : outputFor(plan, c.width, c.height);
    makeCpuConvolver(plan)->process(c.inPlace ? out.view() : src.view(), out.view());
    ASSERT_TRUE(out.paddingIntact());
    const Mismatch m = mismatch(out, want, original, c.channelMask);
    EXPECT_EQ(m.count, 0) << "first at (" << m.x << ", " << m.y << ") channel " << m.c;
}

TEST_P(SmoothingVsOpenCv, OwnArithmeticSameSamples) {
    const Case c = GetParam();
    const ConvolvePlan plan = ConvolvePlan::make(descOf(c), c.type, c.channels);
    HostImage src(c.width, c.height, c.channels, c.type);
    fill(c, src);
    const HostImage original = src;
    const cv::Mat want = expected(c, src);

    HostImage out = c.inPlace ? src : outputFor(plan, c.width, c.height);
    cpu::SmoothingScratch scratch;
    cpu::smoothExactly(plan, c.inPlace ? out.view() : src.view(), out.view(), scratch);
    ASSERT_TRUE(out.paddingIntact());
    const Mismatch m = mismatch(out, want, original, c.channelMask);
    EXPECT_EQ(m.count, 0) << "first at (" << m.x << ", " << m.y << ") channel " << m.c;
}

INSTANTIATE_TEST_SUITE_P(Sweep, SmoothingVsOpenCv, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name(); });

// The kernel every backend's Gaussian taps come from is cv::getGaussianKernel's, bit for bit.
TEST(SmoothingArithmetic, GaussianKernelIsOpenCvs) {
    for (int n = 1; n <= 63; n += 2)
        for (double sigma : {0.0, 0.3, 0.5, 0.8, 1.0, 1.3, 2.0, 3.7, 5.3, 10.0, 31.0}) {
            const std::vector<double> ours = smoothing::gaussianKernel(n, sigma);
            const cv::Mat theirs = cv::getGaussianKernel(n, sigma, CV_64F);
            for (int i = 0; i < n; ++i) ASSERT_EQ(ours[std::size_t(i)], theirs.at<double>(i)) << n << " " << sigma << " " << i;
        }
}

// The function is kept only where the plan computes exactly it; anything else the user adds goes the float way.
TEST(SmoothingPlan, KeptOnlyForTheFunctionItself) {
    const auto kept = [](ConvolveDesc desc, SampleBits bits = {}) {
        return ConvolvePlan::make(desc, SampleType::U16, 1, bits).smoothing.function != Smoothing::Function::None;
    };
    EXPECT_TRUE(kept(presetDesc(Preset::Gaussian, 5)));
    EXPECT_TRUE(kept(presetDesc(Preset::Box, 4)));
    EXPECT_TRUE(kept(presetDesc(Preset::Gaussian, 5), SampleBits::low(10)));
    EXPECT_FALSE(kept(presetDesc(Preset::Gaussian, 5), SampleBits::high(10)));
    EXPECT_FALSE(kept(presetDesc(Preset::Sharpen)));
    ConvolveDesc d = presetDesc(Preset::Gaussian, 5);
    d.bias = 1;
    EXPECT_FALSE(kept(d));
    d = presetDesc(Preset::Gaussian, 5);
    d.absolute = true;
    EXPECT_FALSE(kept(d));
    d = presetDesc(Preset::Gaussian, 5);
    d.divisor = 2;
    EXPECT_FALSE(kept(d));
    d = presetDesc(Preset::Gaussian, 5);
    d.algorithm = ConvolveAlgorithm::Fft;
    EXPECT_FALSE(kept(d));
    d = presetDesc(Preset::Box, 5);
    d.divisor = 25;
    EXPECT_TRUE(kept(d));
    d.divisor = 24;
    EXPECT_FALSE(kept(d));
    EXPECT_FALSE(kept(presetDesc(Preset::Gaussian, 5, 1e-300)));
}

#endif
