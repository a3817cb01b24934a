// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend against the reference, over every feature of the engine.
#include "convolve_cases.hpp"
#include "copy_mask_cases.hpp"

#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

struct Case {
    std::string name;
    int width, height, channels;
    SampleType type;
    ConvolveDesc desc;
    bool exact;
};

ConvolveDesc kernelDesc(Kernel2D k, Border border, double divisor = 0, double bias = 0) {
    ConvolveDesc d;
    d.kernels = {std::move(k)};
    d.border = border;
    d.divisor = divisor;
    d.bias = bias;
    d.borderValue = 77;
    return d;
}

const char* borderName(Border b) {
    static const char* names[] = {"replicate", "reflect", "reflect101", "constant", "wrap"};
    return names[int(b)];
}

std::vector<Case> cases() {
    std::vector<Case> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    for (auto [w, h] : {std::pair{1, 1}, {7, 3}, {385, 289}})
        for (int k : {1, 2, 3, 4, 5, 7, 9, 15, 31})
            for (Border b : borders) {
                const std::string name = std::to_string(w) + "x" + std::to_string(h) + "_k" + std::to_string(k) + "_" +
                                         borderName(b);
                out.push_back({name + "_int", w, h, 1, SampleType::U8,
                               kernelDesc(randomKernel(k, k, k, true), b, 8), true});
                out.push_back({name + "_real", w, h, 1, SampleType::U8,
                               kernelDesc(randomKernel(k, k, k + 100, false), b, 0, 20), false});
            }
    for (auto [kw, kh] : {std::pair{3, 7}, {1, 5}, {6, 2}, {31, 3}})
        out.push_back({"nonsquare_" + std::to_string(kw) + "x" + std::to_string(kh), 385, 289, 1, SampleType::U8,
                       kernelDesc(randomKernel(kw, kh, kw * kh, true), Border::Reflect101, 4), true});
    for (int k : {3, 9, 31})
        for (Border b : borders) {
            out.push_back({std::string("u16_k") + std::to_string(k) + "_" + borderName(b), 385, 289, 1,
                           SampleType::U16, kernelDesc(randomKernel(k, k, k, false), b, 0, 1000), false});
        }
    out.push_back({"big_1921x1081_k3", 1921, 1081, 1, SampleType::U8,
                   kernelDesc(randomKernel(3, 3, 1, true), Border::Replicate, 16), true});
    out.push_back({"big_1921x1081_k15_separable", 1921, 1081, 1, SampleType::U8,
                   presetDesc(Preset::Gaussian, 15, 0), false});
    out.push_back({"big_3840x2160_k5", 3840, 2160, 1, SampleType::U8,
                   kernelDesc(randomKernel(5, 5, 2, false), Border::Reflect101), false});
    // Channels: colour filtered, alpha (bit 3) copied.
    for (int c : {3, 4}) {
        ConvolveDesc d = kernelDesc(randomKernel(5, 5, 3, true), Border::Reflect, 32);
        d.channelMask = 0x7;
        out.push_back({"channels" + std::to_string(c) + "_mask7", 385, 289, c, SampleType::U8, d, true});
        out.push_back({"channels" + std::to_string(c) + "_u16", 97, 31, c, SampleType::U16,
                       kernelDesc(randomKernel(3, 3, 4, false), Border::Wrap), false});
    }
    // Separable given as row and column, and detected.
    {
        ConvolveDesc d;
        d.row = {1, 2, 3, 2, 1};
        d.column = {1, 0, -1};
        d.absolute = true;
        d.border = Border::Reflect101;
        out.push_back({"separable_given", 385, 289, 1, SampleType::U8, d, true});
        out.push_back({"separable_box9", 385, 289, 3, SampleType::U8, presetDesc(Preset::Box, 9), false});
    }
    // Banks.
    for (Combine c : {Combine::Magnitude, Combine::Sum, Combine::MaxAbs}) {
        ConvolveDesc d = presetDesc(Preset::SobelMagnitude, 5);
        d.combine = c;
        d.border = Border::Replicate;
        out.push_back({"bank_sobel5_combine" + std::to_string(int(c)), 385, 289, 1, SampleType::U8, d,
                       c != Combine::Magnitude});
        ConvolveDesc three;
        three.kernels = {randomKernel(3, 3, 5, false), randomKernel(3, 3, 6, false), randomKernel(3, 3, 7, false)};
        three.combine = c;
        three.bias = c == Combine::Sum ? 128 : 0;
        out.push_back({"bank3_rgba_combine" + std::to_string(int(c)), 97, 61, 4, SampleType::U8, three, false});
    }
    {
        ConvolveDesc d = presetDesc(Preset::SobelMagnitude, 3);
        d.combine = Combine::Channels;
        d.bias = 128;
        out.push_back({"bank_to_channels", 385, 289, 1, SampleType::U8, d, true});
    }
    // Multi-channel N:M:M: RGB -> one edge map, and RGBA -> 2 outputs.
    {
        ConvolveDesc d;
        d.mode = ConvolveMode::MultiChannel;
        d.outputs = 1;
        const ConvolveDesc sobel = presetDesc(Preset::SobelX, 3);
        d.kernels = {sobel.kernels[0], sobel.kernels[0], sobel.kernels[0]};
        d.divisor = 4;
        d.absolute = true;
        out.push_back({"multichannel_rgb_to_edges", 385, 289, 3, SampleType::U8, d, true});
        ConvolveDesc e;
        e.mode = ConvolveMode::MultiChannel;
        e.outputs = 2;
        for (int i = 0; i < 8; ++i) e.kernels.push_back(randomKernel(5, 3, 40 + i, false));
        e.bias = 100;
        out.push_back({"multichannel_rgba_to_2", 97, 61, 4, SampleType::U16, e, false});
    }
    for (const PresetInfo& info : presetTable())
        out.push_back({std::string("preset_") + info.name, 385, 289, 1, SampleType::U8, presetDesc(info.preset), false});
    for (auto& c : out)
        for (char& ch : c.name)
            if (ch == '-') ch = '_';
    return out;
}

class CpuVsReference : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(CpuVsReference, Matches) {
    const Case& c = GetParam();
    HostImage src(c.width, c.height, c.channels, c.type);
    src.fillRandom(c.width + c.height * 3 + c.channels);
    // Exactness is direct summation's (integer taps sum exactly in float); the DFT path has its own suite.
    ConvolveDesc desc = c.desc;
    if (c.exact) desc.algorithm = ConvolveAlgorithm::Direct;
    const ConvolvePlan plan = ConvolvePlan::make(desc, c.type, c.channels);
    HostImage expected = runReference(plan, src);
    HostImage actual = runBackend(Backend::Cpu, plan, src);
    EXPECT_TRUE(actual.paddingIntact());
    EXPECT_TRUE(src.paddingIntact());
    const Difference d = compareImages(actual, expected);
    EXPECT_LE(d.maxAbs, c.exact ? 0 : 1) << describe(d);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CpuVsReference, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(CpuBackend, InPlaceMatchesOutOfPlace) {
    HostImage src(64, 40, 4, SampleType::U8);
    src.fillRandom(8);
    ConvolveDesc d = presetDesc(Preset::Box, 5);
    d.channelMask = 0x7;
    const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 4);
    HostImage expected = runReference(plan, src);
    makeConvolver(plan, Backend::Cpu)->process(src.view(), src.view());
    const Difference diff = compareImages(src, expected);
    EXPECT_LE(diff.maxAbs, 1) << describe(diff);
}

TEST(CpuBackend, IdentityCopiesExactly) {
    HostImage src(33, 17, 3, SampleType::U16);
    src.fillRandom(2);
    HostImage out = runBackend(Backend::Cpu, ConvolvePlan::make(presetDesc(Preset::Identity), SampleType::U16, 3), src);
    EXPECT_EQ(compareImages(out, src).maxAbs, 0);
}

TEST(CpuBackend, ConstantBorderUsesValue) {
    HostImage src(5, 5, 1, SampleType::U8);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x) src.setSample(x, y, 0, 0);
    ConvolveDesc d = presetDesc(Preset::Box, 3);
    d.border = Border::Constant;
    d.borderValue = 90;
    HostImage out = runBackend(Backend::Cpu, ConvolvePlan::make(d, SampleType::U8, 1), src);
    EXPECT_EQ(out.sample(0, 0, 0), 50);  // 5 of 9 taps see 90
    EXPECT_EQ(out.sample(2, 0, 0), 30);
    EXPECT_EQ(out.sample(2, 2, 0), 0);
}

namespace {

// Convolver::retune on the host backends: values swapped in place, shapes refused.
class HostRetune : public ::testing::TestWithParam<reference::Impl> {};

ConvolveDesc retuneDesc(Kernel2D k, double divisor, double bias, bool absolute, double borderValue) {
    ConvolveDesc d = kernelDesc(std::move(k), Border::Constant, divisor, bias);
    d.absolute = absolute;
    d.borderValue = borderValue;
    return d;
}

void expectSamePlanValues(const ConvolvePlan& actual, const ConvolvePlan& expected) {
    ASSERT_EQ(actual.kernels.size(), expected.kernels.size());
    for (std::size_t i = 0; i < expected.kernels.size(); ++i) EXPECT_EQ(actual.kernels[i].taps, expected.kernels[i].taps);
    EXPECT_EQ(actual.row, expected.row);
    EXPECT_EQ(actual.column, expected.column);
    EXPECT_EQ(actual.bias, expected.bias);
    EXPECT_EQ(actual.absolute, expected.absolute);
    EXPECT_EQ(actual.borderValue, expected.borderValue);
}

}  // namespace

// New taps, divisor, bias, |x| and border value of the same shape: taken, and the output is the one of a convolver
// made with the new plan.
TEST_P(HostRetune, ValuesOnlyGiveTheFreshResult) {
    HostImage src(97, 61, 1, SampleType::U8);
    src.fillRandom(31);
    const ConvolvePlan a = ConvolvePlan::make(retuneDesc(randomKernel(5, 5, 1, true), 8, 0, false, 10), SampleType::U8, 1);
    const ConvolvePlan b = ConvolvePlan::make(retuneDesc(randomKernel(5, 5, 2, true), 4, 90, true, 200), SampleType::U8, 1);
    auto conv = reference::makeConvolver(a, GetParam());
    HostImage before = outputFor(a, src.width(), src.height());
    conv->process(src.view(), before.view());
    ASSERT_TRUE(conv->retune(b));
    expectSamePlanValues(conv->plan(), b);
    HostImage after = outputFor(b, src.width(), src.height());
    conv->process(src.view(), after.view());
    const Difference d = compareImages(after, runBackend(GetParam(), b, src));
    EXPECT_EQ(d.differing, 0) << describe(d);
    EXPECT_GT(compareImages(before, after).differing, 0) << "the new values changed nothing: a weak test";
}

// A separable kernel stays separable: a Gaussian of another sigma.
TEST_P(HostRetune, SeparableTapsOfTheSameSize) {
    HostImage src(130, 70, 3, SampleType::U16);
    src.fillRandom(7);
    const ConvolvePlan a = ConvolvePlan::make(presetDesc(Preset::Gaussian, 9, 1.0), SampleType::U16, 3);
    ConvolveDesc wide = presetDesc(Preset::Gaussian, 9, 3.0);
    wide.bias = 500;
    const ConvolvePlan b = ConvolvePlan::make(wide, SampleType::U16, 3);
    ASSERT_TRUE(a.separable && b.separable);
    auto conv = reference::makeConvolver(a, GetParam());
    ASSERT_TRUE(conv->retune(b));
    expectSamePlanValues(conv->plan(), b);
    HostImage out = outputFor(b, src.width(), src.height());
    conv->process(src.view(), out.view());
    const Difference d = compareImages(out, runBackend(GetParam(), b, src));
    EXPECT_EQ(d.differing, 0) << describe(d);
}

// Another kernel size, border rule, channel mask, combine or separability: refused, and the convolver keeps its plan
// and its output.
TEST_P(HostRetune, OtherShapesAreRefusedAndChangeNothing) {
    HostImage src(64, 48, 4, SampleType::U8);
    src.fillRandom(3);
    ConvolveDesc base = kernelDesc(randomKernel(5, 5, 11, true), Border::Reflect101, 8, 3);
    base.kernels.push_back(randomKernel(5, 5, 12, true));
    base.combine = Combine::Magnitude;
    const ConvolvePlan a = ConvolvePlan::make(base, SampleType::U8, 4);
    auto conv = reference::makeConvolver(a, GetParam());
    HostImage expected = runBackend(GetParam(), a, src);

    std::vector<std::pair<std::string, ConvolvePlan>> others;
    ConvolveDesc d = base;
    d.kernels = {randomKernel(7, 7, 11, true), randomKernel(7, 7, 12, true)};
    others.emplace_back("kernel size", ConvolvePlan::make(d, SampleType::U8, 4));
    d = base;
    d.kernels.pop_back();
    others.emplace_back("kernel count", ConvolvePlan::make(d, SampleType::U8, 4));
    d = base;
    d.border = Border::Replicate;
    others.emplace_back("border", ConvolvePlan::make(d, SampleType::U8, 4));
    d = base;
    d.channelMask = 0x7;
    others.emplace_back("channel mask", ConvolvePlan::make(d, SampleType::U8, 4));
    d = base;
    d.combine = Combine::MaxAbs;
    others.emplace_back("combine", ConvolvePlan::make(d, SampleType::U8, 4));
    others.emplace_back("channels", ConvolvePlan::make(base, SampleType::U8, 3));
    others.emplace_back("sample type", ConvolvePlan::make(base, SampleType::U16, 4));
    for (const auto& [what, plan] : others) {
        EXPECT_FALSE(conv->retune(plan)) << what;
        expectSamePlanValues(conv->plan(), a);
        HostImage out = outputFor(a, src.width(), src.height());
        conv->process(src.view(), out.view());
        const Difference diff = compareImages(out, expected);
        EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
    }

    const ConvolvePlan gauss = ConvolvePlan::make(presetDesc(Preset::Gaussian, 5), SampleType::U8, 1);
    ConvolvePlan dense = gauss;
    dense.separable = false;  // the same taps, not factorised
    auto single = reference::makeConvolver(gauss, GetParam());
    EXPECT_FALSE(single->retune(dense));
    EXPECT_TRUE(single->plan().separable);
}

INSTANTIATE_TEST_SUITE_P(Backends, HostRetune, ::testing::Values(reference::Impl::Cpu, reference::Impl::Reference),
                         [](const auto& info) { return std::string(reference::implName(info.param)); });

namespace {
class CopyMaskCpu : public ::testing::TestWithParam<CopyMaskCase> {};
}  // namespace

// Channels outside channelMask and copyMask are left as they are in dst (the second pass over packed 4:2:2).
TEST_P(CopyMaskCpu, ReferenceAndCpuLeaveTheOtherChannels) {
    const CopyMaskCase& c = GetParam();
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 3}, {193, 97}}) {
        HostImage src(w, h, c.channels, SampleType::U8);
        src.fillRandom(std::uint32_t(w + 7 * h));
        const ConvolvePlan plan = ConvolvePlan::make(c.desc, SampleType::U8, c.channels);
        for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu})
            expectCopyMask(c, src, runBackend(b, plan, src), 0x5A,
                           std::string(reference::implName(b)) + " " + std::to_string(w) + "x" + std::to_string(h));
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, CopyMaskCpu, ::testing::ValuesIn(copyMaskCases()),
                         [](const auto& info) { return info.param.name; });

TEST(CopyMask, PlansLeavingChannelsAreNotIdentities) {
    ConvolveDesc desc;
    desc.kernels = {{1, 1, {1.0f}}};
    desc.channelMask = 0xA;
    EXPECT_TRUE(ConvolvePlan::make(desc, SampleType::U8, 4).isIdentity());
    desc.copyMask = 0;
    const ConvolvePlan leaving = ConvolvePlan::make(desc, SampleType::U8, 4);
    EXPECT_FALSE(leaving.isIdentity());  // a plain copy of the frame would overwrite the channels left alone
    EXPECT_EQ(leaving.copyMask, 0u);
    desc.copyMask = 0xF;
    EXPECT_EQ(ConvolvePlan::make(desc, SampleType::U8, 4).copyMask, 0x5u);  // restricted to unfiltered channels
    EXPECT_FALSE(leaving.sameShape(ConvolvePlan::make(desc, SampleType::U8, 4)));
}
