// SPDX-License-Identifier: LGPL-2.1-or-later
// The derivative and sharpening presets on the CPU backend against the OpenCV calls they equal: cv::Sobel, cv::Scharr
// and cv::Laplacian into 16-bit sums then cv::convertScaleAbs, cv::filter2D for sharpen, emboss and Prewitt; and
// kernels of integer taps over a power of two, with bias and absolute, against cv::filter2D's sums finished as the
// element documents. Every border OpenCV has, 1-4 channels, masked alpha, in place, frames smaller than the kernel.
#include "convolve_cases.hpp"

#include <gtest/gtest.h>

#if CUDAFILTERS_HAVE_OPENCV
#include "opencv_images.hpp"
#include <cudafilters/presets.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <functional>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

using OpenCvCall = std::function<void(const cv::Mat& in, cv::Mat& out, int border)>;

struct Filter {
    std::string name;
    std::function<ConvolveDesc()> desc;
    OpenCvCall openCv;
};

OpenCvCall derivative(std::function<void(const cv::Mat&, cv::Mat&, int)> sums) {
    return [sums](const cv::Mat& in, cv::Mat& out, int border) {
        cv::Mat d;
        sums(in, d, border);
        cv::convertScaleAbs(d, out);
    };
}

OpenCvCall filter2D(Kernel2D k) {
    return [k](const cv::Mat& in, cv::Mat& out, int border) {
        cv::filter2D(in, out, -1, cv::Mat(k.height, k.width, CV_32F, const_cast<float*>(k.taps.data())),
                     cv::Point(-1, -1), 0, border);
    };
}

// A random kernel of integer taps with divisor 8, bias 3.5 and |.|: OpenCV's sums, then / 8 + 3.5, |.|, rounded half
// to even (convertScaleAbs does exactly that).
Filter scaledInteger(int w, int h) {
    const Kernel2D k = randomKernel(w, h, std::uint32_t(w * 17 + h), true);
    return {"int" + std::to_string(w) + "x" + std::to_string(h),
            [k] {
                ConvolveDesc d;
                d.kernels = {k};
                d.divisor = 8;
                d.bias = 3.5;
                d.absolute = true;
                return d;
            },
            [k](const cv::Mat& in, cv::Mat& out, int border) {
                cv::Mat sums;
                cv::filter2D(in, sums, CV_32F, cv::Mat(k.height, k.width, CV_32F, const_cast<float*>(k.taps.data())),
                             cv::Point(-1, -1), 0, border);
                cv::convertScaleAbs(sums, out, 1.0 / 8, 3.5);
            }};
}

std::vector<Filter> filters() {
    std::vector<Filter> out;
    for (int k : {3, 5, 7}) {
        out.push_back({"sobelx" + std::to_string(k), [k] { return presetDesc(Preset::SobelX, k); },
                       derivative([k](const cv::Mat& i, cv::Mat& d, int b) { cv::Sobel(i, d, CV_16S, 1, 0, k, 1, 0, b); })});
        out.push_back({"sobely" + std::to_string(k), [k] { return presetDesc(Preset::SobelY, k); },
                       derivative([k](const cv::Mat& i, cv::Mat& d, int b) { cv::Sobel(i, d, CV_16S, 0, 1, k, 1, 0, b); })});
    }
    out.push_back({"scharrx", [] { return presetDesc(Preset::ScharrX); },
                   derivative([](const cv::Mat& i, cv::Mat& d, int b) { cv::Scharr(i, d, CV_16S, 1, 0, 1, 0, b); })});
    out.push_back({"scharry", [] { return presetDesc(Preset::ScharrY); },
                   derivative([](const cv::Mat& i, cv::Mat& d, int b) { cv::Scharr(i, d, CV_16S, 0, 1, 1, 0, b); })});
    for (int k : {1, 3, 5})
        out.push_back({"laplacian" + std::to_string(k), [k] { return presetDesc(Preset::Laplacian, k); },
                       derivative([k](const cv::Mat& i, cv::Mat& d, int b) { cv::Laplacian(i, d, CV_16S, k, 1, 0, b); })});
    out.push_back({"sharpen", [] { return presetDesc(Preset::Sharpen); },
                   filter2D(Kernel2D{3, 3, {0, -1, 0, -1, 5, -1, 0, -1, 0}})});
    out.push_back({"emboss", [] { return presetDesc(Preset::Emboss); },
                   filter2D(Kernel2D{3, 3, {-2, -1, 0, -1, 1, 1, 0, 1, 2}})});
    out.push_back({"prewittx", [] { return presetDesc(Preset::PrewittX); },
                   derivative([](const cv::Mat& i, cv::Mat& d, int b) {
                       const float t[] = {-1, 0, 1, -1, 0, 1, -1, 0, 1};
                       cv::filter2D(i, d, CV_16S, cv::Mat(3, 3, CV_32F, const_cast<float*>(t)), cv::Point(-1, -1), 0, b);
                   })});
    for (auto [w, h] : {std::pair{3, 3}, {5, 5}, {7, 5}, {2, 2}, {4, 3}}) out.push_back(scaledInteger(w, h));
    return out;
}

struct Case {
    int filter;
    Border border;
    int channels;
    int width, height;
    unsigned channelMask = 0xF;
    bool inPlace = false;
    std::string name() const {
        std::string s = filters()[std::size_t(filter)].name + "_b" + std::to_string(int(border)) + "_c" +
                        std::to_string(channels) + "_" + std::to_string(width) + "x" + std::to_string(height);
        if (channelMask != 0xF) s += "_m" + std::to_string(channelMask);
        if (inPlace) s += "_inplace";
        return s;
    }
};

std::vector<Case> cases() {
    std::vector<Case> out;
    const int n = int(filters().size());
    for (int f = 0; f < n; ++f) {
        for (Border b : {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant})
            out.push_back({f, b, 1, 97, 55});
        for (int c : {3, 4}) out.push_back({f, Border::Reflect101, c, 97, 55});
        for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {6, 5}}) out.push_back({f, Border::Reflect101, 1, w, h});
        out.push_back({f, Border::Replicate, 1, 1921, 1081});
        out.push_back({f, Border::Reflect101, 4, 97, 55, 0x7});
        out.push_back({f, Border::Reflect101, 1, 97, 55, 0xF, true});
        out.push_back({f, Border::Reflect101, 4, 97, 55, 0x7, true});
    }
    return out;
}

class DerivativesVsOpenCv : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(DerivativesVsOpenCv, SameSamples) {
    const Case c = GetParam();
    const Filter f = filters()[std::size_t(c.filter)];
    ConvolveDesc desc = f.desc();
    desc.border = c.border;
    desc.channelMask = c.channelMask;
    const ConvolvePlan plan = ConvolvePlan::make(desc, SampleType::U8, c.channels);
    HostImage src(c.width, c.height, c.channels, SampleType::U8);
    src.fillRandom(std::uint32_t(c.width * 7 + c.filter));
    const HostImage original = src;
    cv::Mat want;
    f.openCv(matOf(src), want, cvBorder(c.border));

    HostImage out = c.inPlace ? src : outputFor(plan, c.width, c.height);
    makeCpuConvolver(plan)->process(c.inPlace ? out.view() : src.view(), out.view());
    ASSERT_TRUE(out.paddingIntact());
    const Mismatch m = mismatch(out, want, original, c.channelMask);
    EXPECT_EQ(m.count, 0) << "first at (" << m.x << ", " << m.y << ") channel " << m.c;
}

INSTANTIATE_TEST_SUITE_P(Sweep, DerivativesVsOpenCv, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name(); });

#endif
