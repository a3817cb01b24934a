// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convolve_cases.hpp"

#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#if CUDAFILTERS_HAVE_OPENCV
#include <opencv2/imgproc.hpp>
#endif

using namespace cudafilters;
using namespace cudafilters::test;

namespace {
std::string presetError(Preset p, int size, double sigma = 0) {
    try {
        presetDesc(p, size, sigma);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(Presets, EveryPresetMakesAValidPlan) {
    for (const PresetInfo& info : presetTable()) {
        const ConvolvePlan plan = ConvolvePlan::make(presetDesc(info.preset), SampleType::U8, 1);
        EXPECT_GT(plan.kernelWidth, 0) << info.name;
        EXPECT_EQ(presetFromName(info.name), info.preset);
    }
}

TEST(Presets, SobelThreeIsTheTextbookKernel) {
    const ConvolveDesc d = presetDesc(Preset::SobelX, 3);
    EXPECT_EQ(d.kernels[0].taps, (std::vector<float>{-1, 0, 1, -2, 0, 2, -1, 0, 1}));
    EXPECT_TRUE(d.absolute);
    const ConvolveDesc m = presetDesc(Preset::SobelMagnitude, 3);
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.kernels[1].taps, (std::vector<float>{-1, -2, -1, 0, 0, 0, 1, 2, 1}));
    EXPECT_EQ(m.combine, Combine::Magnitude);
}

TEST(Presets, RejectsUnknownName) {
    try {
        presetFromName("blurry");
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("unknown preset 'blurry'; presets: identity, box, gaussian"),
                  std::string::npos);
    }
}

TEST(Presets, RejectsSobelSizeFour) { EXPECT_EQ(presetError(Preset::SobelX, 4), "preset sobel has no size 4; sizes: 3, 5, 7"); }
TEST(Presets, RejectsLaplacianSeven) { EXPECT_EQ(presetError(Preset::Laplacian, 7), "preset laplacian has no size 7; sizes: 1, 3, 5"); }
TEST(Presets, RejectsEvenGaussian) {
    EXPECT_EQ(presetError(Preset::Gaussian, 4), "gaussian size must be odd and between 1 and 255, not 4");
}
TEST(Presets, RejectsNegativeSigma) {
    EXPECT_EQ(presetError(Preset::Gaussian, 5, -1), "gaussian sigma must be 0 (from the size) or a positive number");
}
TEST(Presets, RejectsHugeBox) { EXPECT_EQ(presetError(Preset::Box, 256), "box size must be between 1 and 255"); }

#if CUDAFILTERS_HAVE_OPENCV
TEST(Presets, GaussianMatchesOpenCV) {
    for (int k : {1, 3, 5, 7, 9, 15, 31})
        for (double sigma : {0.0, 0.5, 1.3, 4.0}) {
            const std::vector<float> ours = gaussianTaps(k, sigma);
            const cv::Mat cv = cv::getGaussianKernel(k, sigma, CV_32F);
            for (int i = 0; i < k; ++i) EXPECT_EQ(ours[i], cv.at<float>(i)) << "k=" << k << " sigma=" << sigma;
        }
}

TEST(Presets, SobelFactorsMatchOpenCV) {
    for (int k : {3, 5, 7})
        for (int order : {0, 1, 2}) {
            cv::Mat kx, ky;
            cv::getDerivKernels(kx, ky, order, order == 0 ? 1 : 0, k, false, CV_32F);
            const std::vector<float> ours = sobelTaps(k, order);
            for (int i = 0; i < k; ++i) EXPECT_EQ(ours[i], kx.at<float>(i)) << "k=" << k << " order=" << order;
        }
}

TEST(Presets, LaplacianMatchesOpenCV) {
    HostImage src(97, 61, 1, SampleType::U8, 0);
    src.fillRandom(3);
    for (int k : {1, 3, 5}) {
        ConvolveDesc d = presetDesc(Preset::Laplacian, k);
        d.border = Border::Reflect101;
        HostImage ours = runReference(ConvolvePlan::make(d, SampleType::U8, 1), src);
        cv::Mat in(src.height(), src.width(), CV_8U, src.bytes(), src.pitch()), lap, expected;
        cv::Laplacian(in, lap, CV_32F, k);
        cv::convertScaleAbs(lap, expected);
        for (int y = 0; y < src.height(); ++y)
            for (int x = 0; x < src.width(); ++x)
                ASSERT_EQ(ours.sample(x, y, 0), expected.at<std::uint8_t>(y, x)) << "k=" << k << " at " << x << "," << y;
    }
}
#endif

// A sigma whose square underflows gives the limit of narrow Gaussians, the centre tap alone (an identity), instead
// of taps of 0/0 that the plan then refuses without naming sigma.
TEST(Presets, GaussianOfVanishingSigmaIsTheCentreTap) {
    for (double sigma : {1e-160, 1e-300, 4.9e-324}) {
        EXPECT_EQ(gaussianTaps(5, sigma), (std::vector<float>{0, 0, 1, 0, 0})) << sigma;
        const ConvolveDesc desc = presetDesc(Preset::Gaussian, 5, sigma);
        EXPECT_TRUE(ConvolvePlan::make(desc, SampleType::U8, 1).isIdentity()) << sigma;
    }
    EXPECT_EQ(gaussianTaps(3, 1e-150), (std::vector<float>{0, 1, 0}));  // its square is still a double
}
