// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference against OpenCV's filter2D / sepFilter2D, for every border mode OpenCV shares.
#include "convolve_cases.hpp"

#include <gtest/gtest.h>

#if CUDAFILTERS_HAVE_OPENCV
#include "opencv_images.hpp"
#include <cudafilters/presets.hpp>

#include <opencv2/imgproc.hpp>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

struct Case {
    int width, height, kw, kh;
    Border border;
    SampleType type;
    int channels;
    bool integerTaps;  // integer taps with divisor 1 or 16
    // OpenCV switches filter2D to a DFT at 130 taps (8-bit single channel) or 50 (other types); its float error
    // then rounds exact .5 ties either way, so bit-exactness is only expected on its direct path.
    bool openCvDirect() const {
        const int limit = (type == SampleType::U8 && channels == 1) ? 130 : 50;
        return kw * kh < limit;
    }
    std::string name() const {
        return std::to_string(width) + "x" + std::to_string(height) + "_k" + std::to_string(kw) + "x" +
               std::to_string(kh) + "_b" + std::to_string(int(border)) + (type == SampleType::U8 ? "_u8" : "_u16") +
               "_c" + std::to_string(channels) + (integerTaps ? "_int" : "_real");
    }
};

std::vector<Case> cases() {
    std::vector<Case> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant};
    for (auto [w, h] : {std::pair{1, 1}, {7, 3}, {385, 289}})
        for (int k : {1, 2, 3, 4, 5, 7, 9, 15, 31})
            for (Border b : borders) out.push_back({w, h, k, k, b, SampleType::U8, 1, (k % 2) == 1});
    for (auto [kw, kh] : {std::pair{3, 7}, {1, 5}, {6, 2}, {9, 1}})
        for (Border b : borders) out.push_back({385, 289, kw, kh, b, SampleType::U8, 1, true});
    for (int c : {3, 4})
        for (Border b : borders) out.push_back({97, 55, 5, 5, b, SampleType::U8, c, false});
    for (int k : {3, 5, 9})
        for (Border b : borders) out.push_back({385, 289, k, k, b, SampleType::U16, 1, k != 5});
    out.push_back({1921, 1081, 3, 3, Border::Replicate, SampleType::U8, 1, true});
    out.push_back({1921, 1081, 7, 7, Border::Reflect101, SampleType::U8, 1, false});
    out.push_back({3840, 2160, 3, 3, Border::Replicate, SampleType::U8, 1, false});
    return out;
}

class ReferenceVsOpenCV : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(ReferenceVsOpenCV, Filter2D) {
    const Case c = GetParam();
    HostImage src(c.width, c.height, c.channels, c.type);
    src.fillRandom(c.width * 31 + c.kw);
    ConvolveDesc desc;
    desc.kernels = {randomKernel(c.kw, c.kh, c.kw * 7 + c.kh, c.integerTaps)};
    desc.border = c.border;
    desc.bias = c.integerTaps ? 0 : 3.5;
    if (c.integerTaps) desc.divisor = (c.kw * c.kh) % 2 ? 16 : 1;
    const ConvolvePlan plan = ConvolvePlan::make(desc, c.type, c.channels);
    HostImage ours = runReference(plan, src);
    ASSERT_TRUE(ours.paddingIntact());

    HostImage expected(c.width, c.height, c.channels, c.type);
    const cv::Mat taps(c.kh, c.kw, CV_32F, const_cast<float*>(plan.kernels[0].taps.data()));
    cv::Mat dst = matOf(expected);
    cv::filter2D(matOf(src), dst, -1, taps, cv::Point(-1, -1), desc.bias, cvBorder(c.border));
    const Difference d = compareImages(ours, expected);
    EXPECT_LE(d.maxAbs, c.integerTaps && c.openCvDirect() ? 0 : 1) << describe(d);
}

INSTANTIATE_TEST_SUITE_P(Sweep, ReferenceVsOpenCV, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name(); });

TEST(ReferenceVsOpenCVSeparable, GaussianMatchesSepFilter2D) {
    HostImage src(385, 289, 1, SampleType::U8);
    src.fillRandom(5);
    for (int k : {3, 5, 9, 15, 31})
        for (Border b : {Border::Replicate, Border::Reflect, Border::Reflect101}) {
            ConvolveDesc desc = presetDesc(Preset::Gaussian, k, k / 3.0);
            desc.border = b;
            const ConvolvePlan plan = ConvolvePlan::make(desc, SampleType::U8, 1);
            ASSERT_TRUE(plan.separable);
            HostImage ours = runReference(plan, src), expected(385, 289, 1, SampleType::U8);
            const cv::Mat g(k, 1, CV_32F, desc.row.data());
            cv::Mat dst = matOf(expected);
            cv::sepFilter2D(matOf(src), dst, -1, g, g, cv::Point(-1, -1), 0, cvBorder(b));
            const Difference d = compareImages(ours, expected);
            EXPECT_LE(d.maxAbs, 1) << "k=" << k << " " << describe(d);
        }
}

#endif
