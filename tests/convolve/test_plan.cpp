// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convolve_cases.hpp"

#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

ConvolveDesc single(Kernel2D k) {
    ConvolveDesc d;
    d.kernels = {std::move(k)};
    return d;
}

std::string planError(const ConvolveDesc& desc, SampleType type = SampleType::U8, int channels = 1) {
    try {
        ConvolvePlan::make(desc, type, channels);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

std::string imageError(int sw, int sh, int dw, int dh, int dstChannels = 1, SampleType dstType = SampleType::U8) {
    const ConvolvePlan plan = ConvolvePlan::make(single(Kernel2D{3, 3, std::vector<float>(9, 1.f)}), SampleType::U8, 1);
    HostImage src(std::max(sw, 1), std::max(sh, 1), 1, SampleType::U8);
    HostImage dst(std::max(dw, 1), std::max(dh, 1), dstChannels, dstType);
    ImageView s = src.view(), d = dst.view();
    s.width = sw;
    s.height = sh;
    d.width = dw;
    d.height = dh;
    try {
        reference::makeConvolver(plan)->process(s, d);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST(PlanValidation, RejectsNoKernel) { EXPECT_EQ(planError(ConvolveDesc{}), "no kernel given"); }

TEST(PlanValidation, RejectsEmptyKernel) { EXPECT_EQ(planError(single(Kernel2D{})), "kernel is empty"); }

TEST(PlanValidation, RejectsRaggedTaps) {
    EXPECT_EQ(planError(single(Kernel2D{3, 3, std::vector<float>(8, 1.f)})), "kernel has 8 taps, expected 3x3");
}

TEST(PlanValidation, RejectsNaNTap) {
    EXPECT_EQ(planError(single(Kernel2D{3, 1, {1.f, kNaN, 1.f}})), "kernel tap 2 (row 1) is not a finite number");
}

TEST(PlanValidation, RejectsInfiniteTap) {
    EXPECT_EQ(planError(single(Kernel2D{1, 2, {1.f, kInf}})), "kernel tap 2 (row 2) is not a finite number");
}

TEST(PlanValidation, RejectsKernelOver255) {
    EXPECT_EQ(planError(single(Kernel2D{256, 1, std::vector<float>(256, 1.f)})),
              "kernel is 256x1; the largest supported size is 255x255");
}

TEST(PlanValidation, RejectsNaNDivisor) {
    ConvolveDesc d = single(Kernel2D{1, 1, {1.f}});
    d.divisor = kNaN;
    EXPECT_EQ(planError(d), "divisor must be a finite number");
}

TEST(PlanValidation, RejectsInfiniteBias) {
    ConvolveDesc d = single(Kernel2D{1, 1, {1.f}});
    d.bias = -kInf;
    EXPECT_EQ(planError(d), "bias must be a finite number");
}

TEST(PlanValidation, RejectsNaNBorderValue) {
    ConvolveDesc d = single(Kernel2D{1, 1, {1.f}});
    d.borderValue = kNaN;
    EXPECT_EQ(planError(d), "border value must be a finite number");
}

TEST(PlanValidation, RejectsBankOfMixedSizes) {
    ConvolveDesc d;
    d.kernels = {Kernel2D{3, 3, std::vector<float>(9, 1.f)}, Kernel2D{1, 3, {1.f, 2.f, 1.f}}};
    EXPECT_EQ(planError(d), "kernel 2 is 1x3 but kernel 1 is 3x3; a bank needs one size");
}

TEST(PlanValidation, RejectsKernelsAndRowTogether) {
    ConvolveDesc d = single(Kernel2D{1, 1, {1.f}});
    d.row = {1.f};
    d.column = {1.f};
    EXPECT_EQ(planError(d), "give either kernels or a row and a column, not both");
}

TEST(PlanValidation, RejectsRowWithoutColumn) {
    ConvolveDesc d;
    d.row = {1.f, 2.f, 1.f};
    EXPECT_EQ(planError(d), "separable kernel has no column");
}

TEST(PlanValidation, RejectsFiveChannels) {
    EXPECT_EQ(planError(single(Kernel2D{1, 1, {1.f}}), SampleType::U8, 5), "images have 1 to 4 channels, not 5");
}

TEST(PlanValidation, RejectsChannelOutputFromColourInput) {
    ConvolveDesc d;
    d.kernels = {Kernel2D{1, 1, {1.f}}, Kernel2D{1, 1, {2.f}}};
    d.combine = Combine::Channels;
    EXPECT_EQ(planError(d, SampleType::U8, 3),
              "combine=channels writes one output channel per kernel and needs a single-channel input, not 3 channels");
}

TEST(PlanValidation, RejectsMultiChannelKernelCount) {
    ConvolveDesc d;
    d.mode = ConvolveMode::MultiChannel;
    d.outputs = 1;
    d.kernels = {Kernel2D{1, 1, {1.f}}, Kernel2D{1, 1, {1.f}}};
    EXPECT_EQ(planError(d, SampleType::U8, 3),
              "multi-channel mode with 1 outputs and 3 input channels needs 3 kernels, got 2");
}

TEST(PlanValidation, RejectsZeroSizedFrame) { EXPECT_EQ(imageError(0, 5, 0, 5), "source image is empty (0x5)"); }

TEST(PlanValidation, RejectsMismatchedPlaneSizes) {
    EXPECT_EQ(imageError(8, 5, 8, 4), "source is 8x5 but destination is 8x4");
}

TEST(PlanValidation, RejectsWrongDestinationChannels) {
    EXPECT_EQ(imageError(8, 5, 8, 5, 3), "the plan writes 1-channel destinations, got 3");
}

TEST(PlanValidation, RejectsWrongSampleType) {
    EXPECT_EQ(imageError(8, 5, 8, 5, 1, SampleType::U16),
              "the plan is for u8 samples, got source u8 and destination u16");
}

TEST(PlanValidation, RejectsShortPitch) {
    const ConvolvePlan plan = ConvolvePlan::make(single(Kernel2D{1, 1, {1.f}}), SampleType::U8, 1);
    HostImage src(8, 2, 1, SampleType::U8), dst(8, 2, 1, SampleType::U8);
    ImageView s = src.view();
    s.pitch = 7;
    try {
        makeConvolver(plan, Backend::Cpu)->process(s, dst.view());
        FAIL() << "no error";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "source image pitch 7 is smaller than a row (8 bytes)");
    }
}

TEST(PlanValidation, RejectsSamplesOffTheirAlignment) {
    const ConvolvePlan plan = ConvolvePlan::make(single(Kernel2D{1, 1, {1.f}}), SampleType::U16, 1);
    HostImage src(8, 2, 1, SampleType::U16), dst(8, 2, 1, SampleType::U16);
    ImageView odd = src.view();
    odd.pitch += 1;  // a 16-bit plane with an odd stride
    ImageView shifted = src.view();
    shifted.data = static_cast<std::uint8_t*>(shifted.data) + 1;
    for (const ImageView& s : {odd, shifted}) {
        try {
            makeConvolver(plan, Backend::Cpu)->process(s, dst.view());
            ADD_FAILURE() << "no error";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("source image is not aligned to its 2-byte samples"), std::string::npos)
                << e.what();
        }
    }
}

TEST(Plan, AutoDivisorIsTapSum) {
    const ConvolvePlan plan = ConvolvePlan::make(single(Kernel2D{2, 2, {1.f, 1.f, 1.f, 1.f}}), SampleType::U8, 1);
    EXPECT_EQ(plan.kernels[0].taps, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
}

TEST(Plan, AutoDivisorIsOneWhenTapsSumToZero) {
    const ConvolvePlan plan = ConvolvePlan::make(single(Kernel2D{3, 1, {-1.f, 0.f, 1.f}}), SampleType::U8, 1);
    EXPECT_EQ(plan.kernels[0].taps, (std::vector<float>{-1.f, 0.f, 1.f}));
}

TEST(Plan, ExplicitDivisorApplies) {
    ConvolveDesc d = single(Kernel2D{2, 1, {2.f, 6.f}});
    d.divisor = -2;
    EXPECT_EQ(ConvolvePlan::make(d, SampleType::U8, 1).kernels[0].taps, (std::vector<float>{-1.f, -3.f}));
}

TEST(Plan, DetectsRankOneKernels) {
    EXPECT_TRUE(ConvolvePlan::make(presetDesc(Preset::Box, 9), SampleType::U8, 1).separable);
    EXPECT_TRUE(ConvolvePlan::make(single(outerProduct(sobelTaps(5, 0), sobelTaps(5, 1))), SampleType::U8, 1).separable);
    EXPECT_FALSE(ConvolvePlan::make(single(randomKernel(5, 5, 1, false)), SampleType::U8, 1).separable);
    EXPECT_FALSE(ConvolvePlan::make(presetDesc(Preset::Sharpen), SampleType::U8, 1).separable);
}

TEST(Plan, RankOneToleranceIsOnePartPerMillion) {
    Kernel2D k = outerProduct({1.f, 2.f, 1.f}, {1.f, 2.f, 1.f});
    k.taps[0] += 2e-6f;  // 5e-7 of the largest tap (4): still rank-1
    EXPECT_TRUE(ConvolvePlan::make(single(k), SampleType::U8, 1).separable);
    k.taps[0] += 1e-5f;
    EXPECT_FALSE(ConvolvePlan::make(single(k), SampleType::U8, 1).separable);
}

TEST(Plan, SeparableFactorsReproduceTaps) {
    const ConvolvePlan plan =
        ConvolvePlan::make(single(outerProduct({1.f, 4.f, 6.f, 4.f, 1.f}, {1.f, 2.f, 1.f})), SampleType::U8, 1);
    ASSERT_TRUE(plan.separable);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 3; ++x) EXPECT_FLOAT_EQ(plan.column[y] * plan.row[x], plan.kernels[0].at(x, y));
}

TEST(Plan, IntegerKernelsGetIntegerFactors) {
    const ConvolvePlan plan =
        ConvolvePlan::make(single(outerProduct({1.f, 4.f, 6.f, 4.f, 1.f}, {1.f, 4.f, 6.f, 4.f, 1.f})), SampleType::U8, 1);
    ASSERT_TRUE(plan.separable);
    EXPECT_EQ(plan.row, (std::vector<float>{1, 4, 6, 4, 1}));
    EXPECT_EQ(plan.column, (std::vector<float>{1 / 256.f, 4 / 256.f, 6 / 256.f, 4 / 256.f, 1 / 256.f}));
}

TEST(Plan, IdentityIsRecognised) {
    EXPECT_TRUE(ConvolvePlan::make(presetDesc(Preset::Identity), SampleType::U8, 4).isIdentity());
    EXPECT_TRUE(ConvolvePlan::make(single(Kernel2D{3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0}}), SampleType::U8, 1).isIdentity());
    EXPECT_FALSE(ConvolvePlan::make(presetDesc(Preset::Box, 3), SampleType::U8, 1).isIdentity());
}

// Even sizes anchor at K/2: a 2-tap [1 0] reads the sample to the left.
TEST(Plan, EvenKernelAnchorsAtHalfSize) {
    HostImage src(6, 1, 1, SampleType::U8);
    for (int x = 0; x < 6; ++x) src.setSample(x, 0, 0, 10 * (x + 1));
    ConvolveDesc d = single(Kernel2D{2, 1, {1.f, 0.f}});
    d.border = Border::Replicate;
    const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
    for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
        HostImage out = runBackend(b, plan, src);
        EXPECT_EQ(out.sample(0, 0, 0), 10) << reference::implName(b);
        for (int x = 1; x < 6; ++x) EXPECT_EQ(out.sample(x, 0, 0), 10 * x) << reference::implName(b);
    }
}

// A divisor near 0 is named with its value and the smallest magnitude taken.
TEST(PlanValidation, RejectsDivisorNearZeroNamingIt) {
    ConvolveDesc d = single(Kernel2D{1, 1, {1.f}});
    d.divisor = 1e-300;
    EXPECT_EQ(planError(d), "divisor 1e-300 is too close to 0: use 0 (automatic) or a magnitude of at least 1e-30");
    d.divisor = -1e-31;
    EXPECT_EQ(planError(d), "divisor -1e-31 is too close to 0: use 0 (automatic) or a magnitude of at least 1e-30");
}

// Taps that the division pushes past the largest float are refused naming the divisor, not "tap 1".
TEST(PlanValidation, RejectsDivisorThatOverflowsTheTaps) {
    ConvolveDesc d = single(Kernel2D{3, 1, {3e38f, 1.f, 0.f}});
    d.divisor = 1e-3;
    EXPECT_EQ(planError(d), "divisor 0.001 makes taps larger than a float holds (3.4e38); use a divisor of larger "
                            "magnitude, or 0 (automatic)");
    ConvolveDesc automatic = single(Kernel2D{3, 1, {3e38f, -3e38f, 1e-3f}});
    EXPECT_EQ(planError(automatic), "the automatic divisor (the sum of the taps) is so close to 0 that the divided "
                                    "taps are larger than a float holds (3.4e38); set divisor");
}

// A row and a column whose products overflow float: the taps themselves are at fault, not the divisor of 1.
TEST(PlanValidation, RejectsSeparableTapsWhoseProductsOverflow) {
    ConvolveDesc d;
    d.row = std::vector<float>(3, 1e36f);
    d.column = {1000.f, 1000.f, 1000.f};
    d.divisor = 1;
    EXPECT_EQ(planError(d), "the taps (products of a row and a column tap) are larger than a float holds (3.4e38); use "
                            "smaller taps, or a divisor of larger magnitude");
}
