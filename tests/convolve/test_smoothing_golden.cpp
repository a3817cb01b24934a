// SPDX-License-Identifier: LGPL-2.1-or-later
// The gaussian and box presets on the CPU backend of every build, OpenCV's or not, against digests of what
// cv::GaussianBlur and cv::blur give on the same frames. A build with OpenCV also checks that OpenCV gives these
// digests, so that they stay OpenCV's.
#include "convolve_cases.hpp"

#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#if CUDAFILTERS_HAVE_OPENCV
#include "opencv_images.hpp"
#include <opencv2/imgproc.hpp>
#endif

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

struct Golden {
    Preset preset;
    int size;
    double sigma;
    Border border;
    SampleType type;
    int channels;
    std::uint64_t digest;
};

// FNV-1a over the samples, row by row.
std::uint64_t digest(const HostImage& image) {
    std::uint64_t h = 1469598103934665603ull;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c) {
                h ^= std::uint64_t(image.sample(x, y, c));
                h *= 1099511628211ull;
            }
    return h;
}

HostImage source(const Golden& g) {
    HostImage src(203, 77, g.channels, g.type);
    src.fillRandom(std::uint32_t(g.size * 31 + g.channels));
    return src;
}

class SmoothingGolden : public ::testing::TestWithParam<Golden> {};

}  // namespace

TEST_P(SmoothingGolden, CpuBackendGivesOpenCvsSamples) {
    const Golden g = GetParam();
    ConvolveDesc desc = presetDesc(g.preset, g.size, g.sigma);
    desc.border = g.border;
    const ConvolvePlan plan = ConvolvePlan::make(desc, g.type, g.channels);
    HostImage src = source(g);
    HostImage out = outputFor(plan, src.width(), src.height());
    makeCpuConvolver(plan)->process(src.view(), out.view());
    EXPECT_EQ(digest(out), g.digest) << std::hex << digest(out);
#if CUDAFILTERS_HAVE_OPENCV
    HostImage theirs = outputFor(plan, src.width(), src.height());
    cv::Mat dst = matOf(theirs);
    if (g.preset == Preset::Gaussian)
        cv::GaussianBlur(matOf(src), dst, cv::Size(g.size, g.size), g.sigma, g.sigma, cvBorder(g.border));
    else
        cv::blur(matOf(src), dst, cv::Size(g.size, g.size), cv::Point(-1, -1), cvBorder(g.border));
    EXPECT_EQ(digest(theirs), g.digest) << "OpenCV " << std::hex << digest(theirs);
#endif
}

// Random 203 × 77 frames (seeded by size and channels), filtered at each size, sigma, border, sample type and channel
// count below; the digest is of OpenCV 4.6's output.
namespace {
const Golden kGoldens[] = {
    {Preset::Gaussian, 5, 0, Border::Reflect101, SampleType::U8, 1, 0xad0ff3a0f52276b5ull},
    {Preset::Gaussian, 9, 2.0, Border::Replicate, SampleType::U8, 3, 0xa283adce2909c1b7ull},
    {Preset::Gaussian, 31, 0, Border::Reflect, SampleType::U8, 1, 0x6ab4ed615fd6baf9ull},
    {Preset::Gaussian, 7, 1.3, Border::Constant, SampleType::U16, 1, 0xf72abcc5fddcdb8dull},
    {Preset::Box, 4, 0, Border::Reflect101, SampleType::U8, 1, 0xc26c8f2e7cee78ffull},
    {Preset::Box, 5, 0, Border::Replicate, SampleType::U8, 4, 0x16ffc643cbef776eull},
    {Preset::Box, 21, 0, Border::Reflect101, SampleType::U8, 1, 0x9063066052a25ceeull},
    {Preset::Box, 6, 0, Border::Constant, SampleType::U16, 2, 0xcff56ced3b83e8b2ull},
};
}  // namespace

INSTANTIATE_TEST_SUITE_P(Digests, SmoothingGolden, ::testing::ValuesIn(kGoldens), [](const auto& info) {
    const Golden& g = info.param;
    return std::string(g.preset == Preset::Gaussian ? "gaussian" : "box") + std::to_string(g.size) + "_b" +
           std::to_string(int(g.border)) + (g.type == SampleType::U8 ? "_u8" : "_u16") + "_c" +
           std::to_string(g.channels);
});
