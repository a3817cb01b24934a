// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend against the reference, over every feature of the engine. Device images are pitched with
// poisoned padding (checked untouched on the device), outputs are poisoned before each run, and the result is
// downloaded into a poisoned host image. Without a CUDA device every test is skipped.
#include "cuda_test_images.hpp"
#include "copy_mask_cases.hpp"
#include "sample_bits_cases.hpp"
#ifdef CUDAFILTERS_HAVE_CUDA
#include "edge_first_grid.cuh"
#include "graph_kernels.hpp"
#endif

#include <cudafilters/device.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

struct Case {
    std::string name;
    int width, height, channels;
    SampleType type;
    ConvolveDesc desc;
    bool exact;             // integer taps, power-of-two divisor, sums within float's 24 bits: no difference
    bool oddPitch = false;
    bool forceDirect = false;  // run a rank-1 kernel through the direct path
};

const char* borderName(Border b) {
    static const char* names[] = {"replicate", "reflect", "reflect101", "constant", "wrap"};
    return names[int(b)];
}

ConvolveDesc kernelDesc(Kernel2D k, Border border, double divisor = 0, double bias = 0, double borderValue = 77) {
    ConvolveDesc d;
    d.kernels = {std::move(k)};
    d.border = border;
    d.divisor = divisor;
    d.bias = bias;
    d.borderValue = borderValue;
    return d;
}

std::vector<Case> cases() {
    std::vector<Case> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    // Every size, border and kernel size, integer (exact) and real taps.
    for (auto [w, h] : {std::pair{1, 1}, {7, 3}, {385, 289}})
        for (int k : {1, 2, 3, 4, 5, 7, 9, 15, 31})
            for (Border b : borders) {
                const std::string name =
                    std::to_string(w) + "x" + std::to_string(h) + "_k" + std::to_string(k) + "_" + borderName(b);
                out.push_back({name + "_int", w, h, 1, SampleType::U8,
                               kernelDesc(randomKernel(k, k, k, true), b, 8), true, (k % 2) == 1});
                out.push_back({name + "_real", w, h, 1, SampleType::U8,
                               kernelDesc(randomKernel(k, k, k + 100, false), b, 0, 20), false});
            }
    // Non-square kernels.
    for (auto [kw, kh] : {std::pair{3, 7}, {1, 5}, {6, 2}, {31, 3}, {5, 1}})
        for (Border b : {Border::Reflect101, Border::Constant}) {
            out.push_back({"nonsquare_" + std::to_string(kw) + "x" + std::to_string(kh) + "_" + borderName(b), 385, 289,
                           1, SampleType::U8, kernelDesc(randomKernel(kw, kh, kw * kh, true), b, 4), true, true});
        }
    // u16: every templated size and border; integer taps with small sums are exact.
    for (int k : {3, 5, 7, 9, 15, 31})
        for (Border b : borders) {
            out.push_back({std::string("u16_k") + std::to_string(k) + "_" + borderName(b), 385, 289, 1,
                           SampleType::U16, kernelDesc(randomKernel(k, k, k, false), b, 0, 1000, 40000), false,
                           k == 9});
        }
    out.push_back({"u16_k5_int", 385, 289, 1, SampleType::U16,
                   kernelDesc(randomKernel(5, 5, 9, true), Border::Reflect101, 64), true});
    out.push_back({"u16_k4_padded", 97, 61, 1, SampleType::U16,
                   kernelDesc(randomKernel(4, 4, 9, false), Border::Reflect, 0, 7), false});
    ConvolveDesc k33 = kernelDesc(randomKernel(33, 33, 9, false), Border::Reflect, 0, 7);
    k33.algorithm = ConvolveAlgorithm::Direct;  // the generic kernel (no compiled size holds it), not the FFT
    out.push_back({"u16_k33_generic", 97, 61, 1, SampleType::U16, k33, false});
    // Large frames.
    out.push_back({"big_1921x1081_k3", 1921, 1081, 1, SampleType::U8,
                   kernelDesc(randomKernel(3, 3, 1, true), Border::Replicate, 16), true, true});
    out.push_back({"big_1921x1081_k9_real", 1921, 1081, 1, SampleType::U8,
                   kernelDesc(randomKernel(9, 9, 2, false), Border::Reflect101, 0, 30), false});
    out.push_back({"big_1921x1081_k15_separable", 1921, 1081, 1, SampleType::U8,
                   presetDesc(Preset::Gaussian, 15, 0), false});
    out.push_back({"big_1921x1081_k31_separable", 1921, 1081, 1, SampleType::U8, presetDesc(Preset::Box, 31), false});
    out.push_back({"big_3840x2160_k5", 3840, 2160, 1, SampleType::U8,
                   kernelDesc(randomKernel(5, 5, 2, false), Border::Reflect101), false});
    out.push_back({"big_3840x2160_k7_int", 3840, 2160, 1, SampleType::U8,
                   kernelDesc(randomKernel(7, 7, 3, true), Border::Replicate, 32), true});
    out.push_back({"big_3840x2160_k9_separable_u16", 3840, 2160, 1, SampleType::U16, presetDesc(Preset::Gaussian, 9),
                   false});
    out.push_back({"big_3840x2160_rgb_k3", 3840, 2160, 3, SampleType::U8, presetDesc(Preset::Sharpen), true});
    // Channels: colour filtered, alpha (bit 3) copied; every path.
    for (int c : {3, 4}) {
        ConvolveDesc d = kernelDesc(randomKernel(5, 5, 3, true), Border::Reflect, 32);
        d.channelMask = 0x7;
        out.push_back({"channels" + std::to_string(c) + "_mask7_direct", 385, 289, c, SampleType::U8, d, true});
        ConvolveDesc g = presetDesc(Preset::Gaussian, 7);
        g.channelMask = 0x5;
        out.push_back({"channels" + std::to_string(c) + "_mask5_separable", 385, 289, c, SampleType::U8, g, false});
        ConvolveDesc e = kernelDesc(randomKernel(4, 3, 5, true), Border::Constant, 16);
        e.channelMask = 0x6;
        out.push_back({"channels" + std::to_string(c) + "_mask6_padded", 385, 289, c, SampleType::U8, e, true, true});
        ConvolveDesc g33 = kernelDesc(randomKernel(33, 3, 5, true), Border::Constant, 16);
        g33.channelMask = 0x6;
        out.push_back({"channels" + std::to_string(c) + "_mask6_generic", 385, 289, c, SampleType::U8, g33, true, true});
        out.push_back({"channels" + std::to_string(c) + "_u16", 97, 31, c, SampleType::U16,
                       kernelDesc(randomKernel(3, 3, 4, false), Border::Wrap), false});
        ConvolveDesc m = kernelDesc(randomKernel(9, 9, 6, false), Border::Replicate);
        m.channelMask = 0x2;
        out.push_back({"channels" + std::to_string(c) + "_mask2_k9_u16", 200, 120, c, SampleType::U16, m, false});
    }
    // Separable given as row and column, detected, and rank-1 forced through the direct path.
    {
        ConvolveDesc d;
        d.row = {1, 2, 3, 2, 1};
        d.column = {1, 0, -1};
        d.absolute = true;
        out.push_back({"separable_given_5x3", 385, 289, 1, SampleType::U8, d, true});
        ConvolveDesc s;
        s.row = {1, 4, 6, 4, 1, 0, 0};
        s.column = {1, 2, 3, 4, 3, 2, 1};
        s.divisor = 256;
        s.border = Border::Wrap;
        out.push_back({"separable_given_7x7", 385, 289, 1, SampleType::U8, s, true});
        out.push_back({"separable_box9_rgb", 385, 289, 3, SampleType::U8, presetDesc(Preset::Box, 9), false});
        for (int k : {3, 5, 7, 9, 15, 31}) {
            ConvolveDesc g = presetDesc(Preset::Gaussian, k);
            g.border = Border::Constant;
            g.borderValue = 200;
            out.push_back({"separable_gaussian" + std::to_string(k), 385, 289, 1, SampleType::U8, g, false});
            ConvolveDesc r = presetDesc(Preset::Gaussian, k);
            r.border = Border::Replicate;
            Case forced{"separable_gaussian" + std::to_string(k) + "_forced_direct", 385, 289, 1, SampleType::U8, r,
                        false};
            forced.forceDirect = true;
            out.push_back(forced);
            out.push_back({"separable_gaussian" + std::to_string(k) + "_u16", 385, 289, 1, SampleType::U16, r, false,
                           k % 3 == 0});
        }
    }
    // Banks 1:N:N: two kernels (compiled), three (compiled at K = 3 and 5, else generic), each combine.
    for (Combine c : {Combine::Magnitude, Combine::Sum, Combine::MaxAbs, Combine::Channels}) {
        const std::string cn = std::to_string(int(c));
        for (int k : {3, 5, 7}) {
            ConvolveDesc d = presetDesc(Preset::SobelMagnitude, k);
            d.combine = c;
            d.border = Border::Replicate;
            d.bias = c == Combine::Sum || c == Combine::Channels ? 128 : 0;
            out.push_back({"bank_sobel" + std::to_string(k) + "_combine" + cn, 385, 289, 1, SampleType::U8, d,
                           c != Combine::Magnitude && k == 3});
        }
        ConvolveDesc b9 = kernelDesc(randomKernel(9, 9, 11, false), Border::Reflect);
        b9.kernels.push_back(randomKernel(9, 9, 12, false));
        b9.combine = c;
        b9.bias = 100;
        out.push_back({"bank2_k9_u16_combine" + cn, 200, 150, 1, SampleType::U16, b9, false});
        ConvolveDesc b31 = kernelDesc(randomKernel(31, 31, 13, true), Border::Wrap, 1024);
        b31.kernels.push_back(randomKernel(31, 31, 14, true));
        b31.combine = c;
        out.push_back({"bank2_k31_combine" + cn, 200, 150, 1, SampleType::U8, b31, c != Combine::Magnitude});
        ConvolveDesc three;
        three.kernels = {randomKernel(3, 3, 5, false), randomKernel(3, 3, 6, false), randomKernel(3, 3, 7, false)};
        three.combine = c;
        three.bias = c == Combine::Sum || c == Combine::Channels ? 128 : 0;
        if (c != Combine::Channels) {
            out.push_back({"bank3_rgba_combine" + cn, 97, 61, 4, SampleType::U8, three, false});
            ConvolveDesc masked = three;
            masked.channelMask = 0x7;
            out.push_back({"bank3_rgba_mask7_combine" + cn, 97, 61, 4, SampleType::U8, masked, false});
        } else {
            out.push_back({"bank3_to_channels", 97, 61, 1, SampleType::U8, three, false});
            three.kernels.push_back(randomKernel(3, 3, 8, false));
            out.push_back({"bank4_to_channels_u16", 97, 61, 1, SampleType::U16, three, false});
        }
    }
    // Multi-channel N:M:M.
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
        out.push_back({"multichannel_rgba_to_2_u16", 97, 61, 4, SampleType::U16, e, false});
        ConvolveDesc f;
        f.mode = ConvolveMode::MultiChannel;
        f.outputs = 3;
        for (int i = 0; i < 6; ++i) f.kernels.push_back(randomKernel(3, 3, 60 + i, true));
        f.divisor = 16;
        f.bias = 128;
        f.border = Border::Constant;
        out.push_back({"multichannel_2_to_3", 7, 3, 2, SampleType::U8, f, true});
    }
    // Every preset at its default and, where it has them, other sizes.
    for (const PresetInfo& info : presetTable()) {
        out.push_back({std::string("preset_") + info.name, 385, 289, 1, SampleType::U8, presetDesc(info.preset),
                       false});
        out.push_back({std::string("preset_") + info.name + "_rgba", 97, 61, 4, SampleType::U8,
                       presetDesc(info.preset), false});
    }
    for (int k : {5, 7}) {
        out.push_back({"preset_sobel_magnitude" + std::to_string(k), 385, 289, 1, SampleType::U8,
                       presetDesc(Preset::SobelMagnitude, k), false});
        out.push_back({"preset_sobel_x" + std::to_string(k), 385, 289, 1, SampleType::U8,
                       presetDesc(Preset::SobelX, k), false});
    }
    out.push_back({"preset_laplacian5", 385, 289, 1, SampleType::U8, presetDesc(Preset::Laplacian, 5), false});
    out.push_back({"preset_box4", 385, 289, 1, SampleType::U8, presetDesc(Preset::Box, 4), false});
    out.push_back({"preset_gaussian11_sigma3", 385, 289, 1, SampleType::U8, presetDesc(Preset::Gaussian, 11, 3.0),
                   false});
    for (auto& c : out)
        for (char& ch : c.name)
            if (ch == '-') ch = '_';
    return out;
}

class CudaVsReference : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(CudaVsReference, Matches) {
    SKIP_WITHOUT_DEVICE();
    const Case& c = GetParam();
    HostImage src(c.width, c.height, c.channels, c.type);
    src.fillRandom(c.width + c.height * 3 + c.channels);
    // Exactness is direct summation's (integer taps sum exactly in float); the FFT path has its own suite.
    ConvolveDesc desc = c.desc;
    if (c.exact) desc.algorithm = ConvolveAlgorithm::Direct;
    ConvolvePlan plan = ConvolvePlan::make(desc, c.type, c.channels);
    if (c.forceDirect) {
        ASSERT_TRUE(plan.separable);
        plan.separable = false;
        plan.algorithm = ConvolveAlgorithm::Direct;  // the compiled direct kernel, not the FFT the crossover may pick
        EXPECT_EQ(cudaPath(plan), "direct");
    }
    HostImage expected = runReference(plan, src);
    HostImage actual = runCuda(plan, src, c.oddPitch);
    EXPECT_TRUE(src.paddingIntact());
    const Difference d = compareImages(actual, expected);
    EXPECT_LE(d.maxAbs, c.exact ? 0 : 1) << describe(d) << " (path " << cudaPath(plan) << ")";
}

INSTANTIATE_TEST_SUITE_P(Sweep, CudaVsReference, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

namespace {
class CudaSampleBits : public ::testing::TestWithParam<BitsCase> {};
}  // namespace

// 10-bit samples in 16-bit containers (I420_10LE, P010_10LE) on every kernel path: results rounded and saturated on
// levels, stored in the container's bits, as the reference does.
TEST_P(CudaSampleBits, MatchesReference) {
    SKIP_WITHOUT_DEVICE();
    const BitsCase& c = GetParam();
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 3}, {385, 289}}) {
        HostImage src(w, h, 1, SampleType::U16);
        src.fillRandom(std::uint32_t(w * 31 + h));
        keepBits(src, c.bits);
        const ConvolvePlan plan = ConvolvePlan::make(c.desc, SampleType::U16, 1, c.bits);
        const HostImage expected = runReference(plan, src);
        const HostImage got = runCuda(plan, src);
        const Difference d = compareImages(got, expected);
        EXPECT_LE(d.maxAbs, c.exact ? 0 : double(1 << c.bits.shift))
            << c.name << " " << w << "x" << h << " (path " << cudaPath(plan, w, h) << "): " << describe(d);
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaSampleBits, ::testing::ValuesIn(bitsCases()),
                         [](const auto& info) { return info.param.name; });

namespace {
class CudaCopyMask : public ::testing::TestWithParam<CopyMaskCase> {};
}  // namespace

// Packed 4:2:2 passes on every kernel path: channels outside channelMask and copyMask keep what dst held (the device
// output rows are poisoned with kOutputPoison before the run), copied ones equal the source.
TEST_P(CudaCopyMask, LeavesTheOtherChannels) {
    SKIP_WITHOUT_DEVICE();
    const CopyMaskCase& c = GetParam();
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 3}, {193, 97}, {1920, 1080}})
        for (bool oddPitch : {false, true}) {
            HostImage src(w, h, c.channels, SampleType::U8);
            src.fillRandom(std::uint32_t(w + 7 * h));
            const ConvolvePlan plan = ConvolvePlan::make(c.desc, SampleType::U8, c.channels);
            expectCopyMask(c, src, runCuda(plan, src, oddPitch), kOutputPoison,
                           std::string("cuda (") + cudaPath(plan, w, h) + ") " + std::to_string(w) + "x" +
                               std::to_string(h) + (oddPitch ? " odd pitch" : ""));
        }
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaCopyMask, ::testing::ValuesIn(copyMaskCases()),
                         [](const auto& info) { return info.param.name; });

#ifdef CUDAFILTERS_HAVE_CUDA
// The fast paths must actually be the ones taken (a silent fall-back to the generic kernel would pass the sweep).
TEST(CudaConvolver, ChoosesTheExpectedPath) {
    SKIP_WITHOUT_DEVICE();
    auto path = [](const ConvolveDesc& d, int channels = 1) {
        return cudaPath(ConvolvePlan::make(d, SampleType::U8, channels));
    };
    for (int k : {3, 5, 7, 9, 15, 31}) {
        ConvolveDesc fullRank = kernelDesc(randomKernel(k, k, 1, false), Border::Replicate);
        fullRank.algorithm = ConvolveAlgorithm::Direct;  // where the crossover would not already pick the FFT
        EXPECT_EQ(path(fullRank), "direct") << k;
        EXPECT_EQ(path(presetDesc(Preset::Gaussian, k)), "separable") << k;
        EXPECT_EQ(path(presetDesc(Preset::Box, k), 3), "separable") << k;
    }
    EXPECT_EQ(path(presetDesc(Preset::SobelMagnitude, 3)), "direct");
    EXPECT_EQ(path(presetDesc(Preset::Identity)), "copy");
    // Sizes without compiled kernels take those of the next size up (padded_plan.hpp), where that pays.
    EXPECT_EQ(path(kernelDesc(randomKernel(4, 4, 1, false), Border::Replicate)), "direct");
    EXPECT_EQ(path(kernelDesc(randomKernel(3, 5, 1, false), Border::Replicate)), "direct");
    EXPECT_EQ(path(kernelDesc(randomKernel(11, 11, 1, false), Border::Replicate)), "direct");
    EXPECT_EQ(path(kernelDesc(randomKernel(2, 31, 1, false), Border::Replicate)), "generic");  // 961 taps for 62
    ConvolveDesc wide = kernelDesc(randomKernel(33, 33, 1, false), Border::Replicate);
    wide.algorithm = ConvolveAlgorithm::Direct;  // auto would take the FFT
    EXPECT_EQ(path(wide), "generic");
    for (int k : {2, 4, 11, 13, 21, 29}) {
        EXPECT_EQ(path(presetDesc(Preset::Gaussian, k | 1)), "separable") << k;
        EXPECT_EQ(path(presetDesc(Preset::Box, k), 3), "separable") << k;
    }
    // Banks of 3 to 8 kernels: direct at K = 3 and 5 (padded 4 × 4 included), else generic unless written to their own
    // channels (direct launches of at most two kernels).
    ConvolveDesc bank3 = kernelDesc(randomKernel(4, 4, 1, false), Border::Replicate);
    bank3.kernels.push_back(randomKernel(4, 4, 2, false));
    bank3.kernels.push_back(randomKernel(4, 4, 3, false));
    EXPECT_EQ(path(bank3), "direct");
    ConvolveDesc bank3k7 = kernelDesc(randomKernel(7, 7, 1, false), Border::Replicate);
    bank3k7.kernels.push_back(randomKernel(7, 7, 2, false));
    bank3k7.kernels.push_back(randomKernel(7, 7, 3, false));
    EXPECT_EQ(path(bank3k7), "generic");
    bank3k7.combine = Combine::Channels;
    EXPECT_EQ(path(bank3k7), "direct");
    ConvolveDesc bank9 = kernelDesc(randomKernel(3, 3, 1, false), Border::Replicate);
    for (int n = 2; n <= 9; ++n) bank9.kernels.push_back(randomKernel(3, 3, std::uint32_t(n), false));
    EXPECT_EQ(path(bank9), "generic");
    bank9.kernels.pop_back();
    EXPECT_EQ(path(bank9), "direct");
}
#endif

namespace {

// The direct and separable kernels launched explicitly (not through a plan's path choice), over shapes the sweep
// above does not reach: both borders of tiny frames, banks in u16 with odd pitches, 4-channel separable.
struct DirectCase {
    std::string name;
    int k, bank, width, height;
    SampleType type;
    Border border;
    bool integer, oddPitch;
};

std::vector<DirectCase> directCases() {
    std::vector<DirectCase> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    for (int k : {3, 5, 7, 9}) {
        const std::string v = "k" + std::to_string(k);
        for (int bi = 0; bi < 5; ++bi) {
            const Border b = borders[bi];
            out.push_back({v + "_7x3_" + borderName(b), k, 1, 7, 3, SampleType::U8, b, true, bi % 2 == 1});
            out.push_back({v + "_1x1_" + borderName(b), k, 1, 1, 1, SampleType::U8, b, true, false});
            out.push_back({v + "_385x289_" + borderName(b), k, 1, 385, 289, SampleType::U8, b, false, bi % 2 == 0});
            out.push_back({v + "_64x40_" + borderName(b), k, 1, 64, 40, SampleType::U8, b, true, false});
        }
        out.push_back({v + "_u16_replicate", k, 1, 385, 289, SampleType::U16, Border::Replicate, false, false});
        out.push_back({v + "_u16_constant_odd", k, 1, 97, 61, SampleType::U16, Border::Constant, false, true});
        out.push_back({v + "_bank2_reflect101", k, 2, 385, 289, SampleType::U8, Border::Reflect101, true, false});
        out.push_back({v + "_bank2_u16_wrap_odd", k, 2, 97, 61, SampleType::U16, Border::Wrap, false, true});
    }
    return out;
}

class DirectKernel : public ::testing::TestWithParam<DirectCase> {};

}  // namespace

TEST_P(DirectKernel, MatchesReference) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    const DirectCase& c = GetParam();
    ConvolveDesc d = kernelDesc(randomKernel(c.k, c.k, 50 + c.k, c.integer), c.border, c.integer ? 16 : 0, 9,
                                c.type == SampleType::U8 ? 77 : 30000);
    if (c.bank == 2) {
        d.kernels.push_back(randomKernel(c.k, c.k, 60 + c.k, c.integer));
        d.combine = c.k == 5 ? Combine::Channels : Combine::Magnitude;
    }
    const ConvolvePlan plan = ConvolvePlan::make(d, c.type, 1);
    HostImage input(c.width, c.height, 1, c.type);
    input.fillRandom(c.k * 31 + c.width);
    DevicePlane src(c.width, c.height, 1, c.type, c.oddPitch);
    DevicePlane dst(c.width, c.height, plan.outputChannels, c.type, c.oddPitch);
    src.upload(input);
    dst.poisonRows();
    std::vector<float> taps;
    for (const Kernel2D& k : plan.kernels) taps.insert(taps.end(), k.taps.begin(), k.taps.end());
    cuda_detail::launchDirect(c.type, c.k, c.bank, cuda_detail::makeFrame(plan, src.view, dst.view), taps.data(),
                              nullptr);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(src.paddingIntact());
    EXPECT_TRUE(dst.paddingIntact());
    HostImage out = dst.download();
    const Difference diff = compareImages(out, runReference(plan, input));
    const bool exact = c.integer && c.bank == 1;
    EXPECT_LE(diff.maxAbs, exact ? 0 : 1) << describe(diff);
#endif
}

INSTANTIATE_TEST_SUITE_P(Sweep, DirectKernel, ::testing::ValuesIn(directCases()),
                         [](const auto& info) { return info.param.name; });

namespace {

// The interleaved-pixel kernel (2 to 4 channels, K = 3, 5, 7, 9; its one-channel instance, K = 3 and 5) through its
// launchers (launchInterleavedU8, launchGrayTileU8), on frames the routing table may give other kernels: frames smaller than
// one 128 × 16 tile, one tile plus a column and a row, many tiles; every border; channel masks that copy some
// channels; source rows 16-byte aligned (RGBA: 16-byte loads), only 4-byte aligned (word loads) and odd (every load
// sample by sample through borderIndex); destinations aligned and odd (narrow stores); integer taps (exact, with
// saturation at both ends) and real ones.
struct InterleavedCase {
    std::string name;
    int k, channels, width, height;
    Border border;
    unsigned mask;
    int rowAlign;  // of the source rows: 16, 4 or 1
    bool oddDst, integer;
    bool keep;  // copyMask 0: the channels outside the mask keep what dst holds
};

std::vector<InterleavedCase> interleavedCases() {
    std::vector<InterleavedCase> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    const std::pair<int, int> shapes[] = {{1, 1}, {7, 3}, {5, 17}, {129, 17}, {385, 289}};
    int n = 0;
    for (int k : {3, 5, 7, 9})
        for (int ch : {1, 2, 3, 4})
            for (auto [w, h] : shapes)
                for (int bi = 0; bi < 5; ++bi, ++n) {
                    if (ch == 1 && k > 5) continue;
                    const int align = n % 3 == 0 ? 16 : n % 3 == 1 ? 4 : 1;
                    const bool keep = ch > 1 && n % 6 == 5;  // channels outside the mask left as dst holds them
                    const unsigned mask = ch == 1 ? (n % 7 == 0 ? 0x0 : 0x1) : ch == 2 ? (n % 3 == 0 ? 0x3 : n % 3 == 1 ? 0x1 : 0x2) : ch == 4 ? (n % 4 == 0 ? 0xF : n % 4 == 1 ? 0x7 : n % 4 == 2 ? 0xA : 0x5)
                                                  : (n % 4 == 0 ? 0x7 : n % 4 == 1 ? 0x5 : n % 4 == 2 ? 0x7 : 0x2);
                    out.push_back({"k" + std::to_string(k) + "_c" + std::to_string(ch) + "_" + std::to_string(w) + "x" +
                                       std::to_string(h) + "_" + borderName(borders[bi]) + "_mask" +
                                       std::to_string(mask) + "_align" + std::to_string(align) +
                                       (n % 2 ? "_odddst" : "") + (n % 5 < 3 ? "_int" : "_real") + (keep ? "_keep" : ""),
                                   k, ch, w, h, borders[bi], mask, align, n % 2 == 1, n % 5 < 3, keep});
                }
    return out;
}

class InterleavedKernel : public ::testing::TestWithParam<InterleavedCase> {};

}  // namespace

TEST_P(InterleavedKernel, MatchesReference) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    const InterleavedCase& c = GetParam();
    ConvolveDesc d = kernelDesc(randomKernel(c.k, c.k, 90 + c.k + c.width, c.integer), c.border, c.integer ? 16 : 0,
                                c.integer ? 9 : 20.5, 77.25);
    d.channelMask = c.mask;
    if (c.keep) d.copyMask = 0;
    const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.channels);
    ASSERT_FALSE(plan.separable);
    HostImage input(c.width, c.height, c.channels, SampleType::U8);
    input.fillRandom(c.k * 13 + c.width + c.channels);
    // The source: a view 0 or 4 bytes into a plane with an aligned pitch (rows 16- or 4-byte aligned), or 1 byte
    // into a plane with an odd pitch (rows at every alignment).
    DevicePlane srcPlane(c.width + 8, c.height, c.channels, SampleType::U8, c.rowAlign == 1);
    ImageView src = srcPlane.view;
    src.width = c.width;
    src.data = static_cast<std::uint8_t*>(src.data) + (c.rowAlign == 4 ? 4 : c.rowAlign == 1 ? 1 : 0);
    CUDAFILTERS_CHECK(cudaMemcpy2D(src.data, src.pitch, input.bytes(), input.pitch(), input.rowBytes(), c.height,
                                   cudaMemcpyHostToDevice));
    DevicePlane dst(c.width, c.height, c.channels, SampleType::U8, c.oddDst);
    dst.poisonRows();
    const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src, dst.view);
    EXPECT_EQ(frame.rowAlign, c.rowAlign);
    const bool gray = c.channels == 1;
    EXPECT_EQ(cuda_detail::interleavedApplies(c.k, 1, frame), !gray);
    EXPECT_FALSE(cuda_detail::interleavedApplies(c.k, 2, frame));
    EXPECT_EQ(cuda_detail::grayTileApplies(c.k, 1, frame), gray);
    EXPECT_FALSE(cuda_detail::grayTileApplies(c.k, 2, frame));
    const float* taps = plan.kernels[0].taps.data();
    EXPECT_TRUE(gray ? cuda_detail::launchGrayTileU8(c.k, 1, frame, taps, nullptr)
                     : cuda_detail::launchInterleavedU8(c.k, 1, frame, taps, nullptr));
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(dst.paddingIntact());
    const HostImage out = dst.download();
    EXPECT_TRUE(out.paddingIntact());
    if (!c.keep) {  // (kept channels hold the poison here, the reference's own output elsewhere)
        const Difference diff = compareImages(out, runReference(plan, input));
        EXPECT_LE(diff.maxAbs, c.integer ? 0 : 1) << describe(diff);
    }
    // The per-channel tiled kernel sums the same taps in the same order, and leaves the kept channels alone: the same
    // bytes, real taps and the poison of kept channels included.
    dst.poisonRows();
    EXPECT_TRUE(cuda_detail::launchDirectTiledU8(c.k, 1, frame, taps, nullptr));
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    const Difference perChannel = compareImages(out, dst.download());
    EXPECT_EQ(perChannel.differing, 0) << "against the per-channel kernel: " << describe(perChannel);
#endif
}

INSTANTIATE_TEST_SUITE_P(Sweep, InterleavedKernel, ::testing::ValuesIn(interleavedCases()),
                         [](const auto& info) { return info.param.name; });

// Saturation at both ends and round half to even through the interleaved kernel: a 3 × 3 box with divisor 2
// (every response a multiple of 0.5, most far above 255) and a negative centre tap with bias 0 (clamped to 0).
TEST(InterleavedKernel, SaturatesAndRoundsHalfToEven) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    for (int ch : {3, 4})
        for (float centre : {1.f, -9.f}) {
            Kernel2D k{3, 3, std::vector<float>(9, 0.125f)};
            k.taps[4] = centre;
            ConvolveDesc d = kernelDesc(k, Border::Reflect101, centre > 0 ? 0.5 : 1, 0);
            d.channelMask = 0x7;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, ch);
            HostImage input(203, 37, ch, SampleType::U8);
            input.fillRandom(ch + 5);
            const HostImage out = runCuda(plan, input);
            const HostImage ref = runReference(plan, input);
            const Difference diff = compareImages(out, ref);
            EXPECT_EQ(diff.maxAbs, 0) << ch << " channels, centre " << centre << ": " << describe(diff);
            int low = 0, high = 0;
            for (int y = 0; y < ref.height(); ++y)
                for (int x = 0; x < ref.width() * ch; ++x) {
                    if (x % ch == 3) continue;
                    const std::uint8_t v = ref.bytes()[std::size_t(y) * ref.pitch() + x];
                    low += v == 0;
                    high += v == 255;
                }
            EXPECT_GT(centre > 0 ? high : low, 100) << "the case does not saturate";
        }
#endif
}

// Separable plans on interleaved pixels (2 to 4 channels; RGBA with alpha copied, RGB, odd pitches, frames below one
// tile) match the reference: K ≤ 5 through the interleaved direct kernel on the full taps or the register-window
// kernel, K = 7 and 9 through the u8 streaming kernel where the rows are 16-byte aligned, else the interleaved
// separable kernel (the routing table's rows, asserted).
TEST(InterleavedKernel, SeparablePlansMatchReference) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    for (int k : {3, 5, 7, 9})
        for (auto [w, h, ch, b, odd] : {std::tuple{385, 289, 4, Border::Replicate, false},
                                        {130, 19, 3, Border::Constant, true}, {7, 3, 4, Border::Wrap, true},
                                        {200, 150, 3, Border::Reflect, false}, {98, 45, 2, Border::Reflect, true}}) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, k, 0.3 * k);
            d.border = b;
            d.borderValue = 200;
            d.bias = 3;
            d.channelMask = 0x7;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, ch);
            ASSERT_TRUE(plan.separable);
            cuda_detail::ConvFrame shape;
            shape.inChannels = shape.outChannels = ch;
            shape.mask = plan.channelMask;
            shape.copy = plan.copyMask;
            EXPECT_TRUE(cuda_detail::interleavedApplies(k, 1, shape));
            cuda_detail::ConvFrame leaveOne = shape;  // a channel neither filtered nor copied: merged into dst
            leaveOne.mask = 0x5;
            leaveOne.copy = 0;
            EXPECT_TRUE(cuda_detail::interleavedApplies(k, 1, leaveOne));
            HostImage input(w, h, ch, SampleType::U8);
            input.fillRandom(k + w);
            const std::string what = "k" + std::to_string(k) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                     "x" + std::to_string(ch);
            // Odd pitches leave the u8 streaming kernel out: K = 7 and 9 take the interleaved separable kernel.
            if (odd && k >= 7 && h > k / 2) {
                DevicePlane src(w, h, ch, SampleType::U8, true), dst(w, h, ch, SampleType::U8, true);
                EXPECT_STREQ(cuda_detail::routeName(plan, src.view, dst.view), "separable-interleaved-u8") << what;
            }
            const HostImage out = runCuda(plan, input, odd);
            const Difference diff = compareImages(out, runReference(plan, input));
            EXPECT_LE(diff.maxAbs, 1) << what << ": " << describe(diff);
        }
#endif
}

// The streaming separable kernel, its row segments sized for one wave (frames below 4 Mpixel) and for two (from
// 4 Mpixel), sums as the tile kernel does: the same bytes on
// every shape, channel count and mask it is compiled for, and within 1 of the reference. Frames of one chunk or less,
// odd pitches (sample by sample loads), strips narrower than a word at the right edge, a channel neither filtered nor
// copied (kept as dst holds it), 4-channel rows aligned to 4 bytes but not 16 (4-byte words), and a frame tall
// enough for several segments per strip.
TEST(SeparableStream, SameBytesAsTheTileKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        SampleType type;
        Border border;
        unsigned mask, copy;
        bool odd;
        std::size_t pitch = 0;  // given: rows aligned to 4 bytes but not 16
    };
    const Shape shapes[] = {
        {385, 289, 1, SampleType::U8, Border::Replicate, 1, 0, false},
        {1921, 1081, 1, SampleType::U8, Border::Reflect101, 1, 0, false},
        {200, 150, 1, SampleType::U8, Border::Reflect, 1, 0, true},
        {7, 3, 1, SampleType::U8, Border::Constant, 1, 0, false},
        {1, 1, 1, SampleType::U8, Border::Wrap, 1, 0, false},
        {66, 700, 1, SampleType::U8, Border::Wrap, 1, 0, false},
        {97, 61, 1, SampleType::U16, Border::Constant, 1, 0, true},
        {517, 263, 1, SampleType::U16, Border::Reflect101, 1, 0, false},
        {193, 97, 2, SampleType::U8, Border::Replicate, 3, 0, false},
        {131, 77, 2, SampleType::U16, Border::Reflect, 3, 0, true},
        {259, 130, 3, SampleType::U8, Border::Reflect101, 7, 0, true},
        {385, 289, 4, SampleType::U8, Border::Replicate, 7, 8, false},
        {130, 70, 4, SampleType::U8, Border::Wrap, 0xB, 4, false},
        {98, 45, 4, SampleType::U8, Border::Constant, 0x5, 0x2, true},
        {61, 33, 3, SampleType::U8, Border::Reflect, 0x2, 0, false},
        {97, 53, 4, SampleType::U8, Border::Reflect101, 7, 8, false, 97 * 4 + 4},
        {301, 40, 4, SampleType::U8, Border::Replicate, 0xF, 0, false, 301 * 4 + 8},
    };
    for (int k : {7, 9, 15, 31})
        for (const Shape& c : shapes) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, k, 0.3 * k);
            d.border = c.border;
            d.borderValue = c.type == SampleType::U8 ? 200 : 50000;
            d.bias = 3;
            d.channelMask = c.mask;
            d.copyMask = c.copy;
            const ConvolvePlan plan = ConvolvePlan::make(d, c.type, c.ch);
            ASSERT_TRUE(plan.separable);
            HostImage input(c.w, c.h, c.ch, c.type);
            input.fillRandom(k * 13 + c.w + c.ch);
            DevicePlane src(c.w, c.h, c.ch, c.type, c.odd, c.pitch);
            src.upload(input);
            std::vector<HostImage> outs;
            constexpr int kWaves[] = {0, 1, 2};  // 0: the tile kernel
            for (int waves : kWaves) {
                DevicePlane dst(c.w, c.h, c.ch, c.type, c.odd, c.pitch);
                dst.poisonRows();
                const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
                if (waves == 0)
                    cuda_detail::launchSeparableTile(c.type, k, frame, plan.row.data(), plan.column.data(), nullptr);
                else
                    EXPECT_TRUE(cuda_detail::launchSeparableStream(c.type, k, frame, plan.row.data(),
                                                                   plan.column.data(), nullptr, waves));
                CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                EXPECT_TRUE(dst.paddingIntact());
                outs.push_back(dst.download());
            }
            const std::string what = "k" + std::to_string(k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                     "x" + std::to_string(c.ch) + " mask " + std::to_string(c.mask) + " copy " +
                                     std::to_string(c.copy);
            for (std::size_t i = 1; i < outs.size(); ++i) {
                const Difference same = compareImages(outs[i], outs[0]);
                EXPECT_EQ(same.differing, 0) << what << " waves " << kWaves[i] << ": " << describe(same);
            }
            if (c.copy == (((1u << c.ch) - 1u) & ~c.mask)) {
                const Difference diff = compareImages(outs[1], runReference(plan, input));
                EXPECT_LE(diff.maxAbs, 1) << what << ": " << describe(diff);
            }
        }
    // Where no streaming kernel is compiled (K = 3, 5; u16 of 3 or 4 channels) the tile kernel runs.
    cuda_detail::ConvFrame shape;
    shape.width = shape.height = 8;
    shape.inChannels = shape.outChannels = 4;
    const std::vector<float> taps(31, 1.f / 31);
    EXPECT_FALSE(cuda_detail::launchSeparableStream(SampleType::U8, 5, shape, taps.data(), taps.data(), nullptr, 1));
    EXPECT_FALSE(cuda_detail::launchSeparableStream(SampleType::U16, 31, shape, taps.data(), taps.data(), nullptr, 1));
#endif
}

#ifdef CUDAFILTERS_HAVE_CUDA
namespace {
// The kernels `launch` enqueues on a stream, captured into a graph (and not run).
template <typename Launch> std::vector<KernelLaunch> launchesBy(Launch&& launch) {
    cudaStream_t stream = nullptr;
    CUDAFILTERS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDAFILTERS_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    launch(stream);
    cudaGraph_t graph = nullptr;
    CUDAFILTERS_CHECK(cudaStreamEndCapture(stream, &graph));
    std::vector<KernelLaunch> launches = kernelLaunchesOf(graph);
    CUDAFILTERS_CHECK(cudaGraphDestroy(graph));
    CUDAFILTERS_CHECK(cudaStreamDestroy(stream));
    return launches;
}
// The u8 streaming kernel's launch and how many of its blocks an SM holds (perSm 0: not one launch).
struct BytesLaunch {
    KernelLaunch launch;
    int perSm = 0;
};
BytesLaunch bytesLaunch(int k, const ConvolvePlan& plan, const cuda_detail::ConvFrame& frame) {
    const std::vector<KernelLaunch> launches = launchesBy([&](cudaStream_t stream) {
        EXPECT_TRUE(cuda_detail::launchSeparableStagedU8(SampleType::U8, k, frame, plan.row.data(), plan.column.data(),
                                                         stream));
    });
    BytesLaunch b;
    if (launches.size() != 1) return b;
    b.launch = launches[0];
    const dim3 block = b.launch.block;
    CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b.perSm, b.launch.func,
                                                                    int(block.x * block.y * block.z),
                                                                    b.launch.sharedBytes));
    return b;
}
// Their names, each followed by a space.
template <typename Launch> std::string kernelsLaunchedBy(Launch&& launch) {
    std::string names;
    for (const KernelLaunch& l : launchesBy(launch)) names += l.name + " ";
    return names;
}
// Whether `names` (kernel names joined) hold an instance, by its mangled or its demangled name (the driver gives
// either).
bool holdsInstance(const std::string& names, const std::string& mangled, const std::string& demangled) {
    return names.find(mangled) != std::string::npos || names.find(demangled) != std::string::npos;
}
// Whether `names` holds separableStagedU8Kernel<k, channels, adjust, blocks, skip, overlap> (mangled or demangled).
bool holdsBytesInstance(const std::string& names, int k, int channels, bool adjust, int blocks, int skip,
                        bool overlap) {
    const auto mangledInt = [](int v) {
        return v < 0 ? "Lin" + std::to_string(-v) + "E" : "Li" + std::to_string(v) + "E";
    };
    const auto mangledBool = [](bool v) { return std::string(v ? "Lb1E" : "Lb0E"); };
    const std::string mangled = "separableStagedU8KernelI" + mangledInt(k) + mangledInt(channels) + mangledBool(adjust) +
                                mangledInt(blocks) + mangledInt(skip) + mangledBool(overlap) + "E";
    const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
    const std::string demangled = "separableStagedU8Kernel<" + std::to_string(k) + ", " + std::to_string(channels) + ", " +
                                  b(adjust) + ", " + std::to_string(blocks) + ", " + std::to_string(skip) + ", " +
                                  b(overlap) + ">";
    return holdsInstance(names, mangled, demangled);
}
}  // namespace
#endif

// The streaming kernel's row segments (host arithmetic, no device): one wave's segments fitted to the row pass's
// 32-row chunks, on 132 SMs.
TEST(SeparableBytes, SegmentsFitTheChunks) {
#ifdef CUDAFILTERS_HAVE_CUDA
    using cuda_detail::bytesSegments;
    // 1080p GRAY8 K = 31 (15 strips, 4 blocks per SM): 17 segments of 64 rows, 2 blocks per SM of 3 chunks, instead
    // of the full wave's 35 of 31 rows, 4 blocks per SM of 2 chunks.
    EXPECT_EQ(bytesSegments(15, 1080, 31, 32, 4, 1, false, 132), 35);
    EXPECT_EQ(bytesSegments(15, 1080, 31, 32, 4, 1, true, 132), 17);
    // 720p K = 31 (10 strips): 26 of 28 rows (2 per SM, 2 chunks) instead of 52 of 14 (4 per SM, 2 chunks).
    EXPECT_EQ(bytesSegments(10, 720, 31, 32, 4, 1, true, 132), 26);
    // 4K: the full wave's (17 at 4 blocks per SM: 5 chunks each; 13 at 3).
    EXPECT_EQ(bytesSegments(30, 2160, 31, 32, 4, 1, true, 132), 17);
    EXPECT_EQ(bytesSegments(30, 2160, 15, 32, 3, 1, true, 132), 13);
    // Two waves are not fitted.
    EXPECT_EQ(bytesSegments(120, 2160, 15, 32, 3, 2, true, 132), 6);
    // One strip: every row its own segment while the chunks stay one.
    EXPECT_EQ(bytesSegments(1, 40, 31, 32, 4, 1, true, 132), 40);
    // Any shape: between 1 and the frame's rows, never more blocks than one wave holds (or one segment a strip).
    for (int strips : {1, 2, 7, 15, 30, 61, 120, 529, 2000})
        for (int height : {1, 2, 17, 31, 480, 1080, 2160, 4320})
            for (int k : {15, 31})
                for (int slots : {1, 2, 3, 4}) {
                    const int n = bytesSegments(strips, height, k, 32, slots, 1, true, 132);
                    EXPECT_GE(n, 1);
                    EXPECT_LE(n, height);
                    EXPECT_TRUE(n == 1 || std::int64_t(strips) * n <= 132 * slots)
                        << strips << " strips, " << height << " rows, " << slots << " per SM: " << n;
                }
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}

// The edge strips' shorter segments (host arithmetic, no device): in one wave an edge block (its words outside the row
// built byte by byte: here a chunk costing 1.2 inner ones) runs no more than an inner block's chunks where the wave
// has room, without adding to the busiest SM's blocks; in two waves edge blocks cost as much as the others.
TEST(SeparableBytes, EdgeStripsTakeShorterSegments) {
#ifdef CUDAFILTERS_HAVE_CUDA
    using cuda_detail::bytesPieces;
    using cuda_detail::BytesPieces;
    const auto chunks = [](int height, int segments, int k) {
        return ((height + segments - 1) / segments + k - 1 + 31) / 32;
    };
    // 4K K = 31, 4 blocks per SM: inner 17 segments (5 chunks), edge 23 (4 chunks: 4.8 inner ones); 522 blocks.
    BytesPieces p = bytesPieces(30, 2, 2160, 31, 32, 4, 1, true, 132, 1.2);
    EXPECT_EQ(p.segments, 17);
    EXPECT_EQ(p.edgeSegments, 23);
    EXPECT_EQ(chunks(2160, 23, 31), 4);
    // 4K K = 15, 3 per SM: inner 13 (6 chunks); 4 edge chunks would need 19 segments, 402 blocks, more than 396 slots:
    // 15 of 5 chunks (6.0 inner ones, from 7.2).
    p = bytesPieces(30, 2, 2160, 15, 32, 3, 1, true, 132, 1.2);
    EXPECT_EQ(p.segments, 13);
    EXPECT_EQ(p.edgeSegments, 15);
    EXPECT_EQ(chunks(2160, 15, 15), 5);
    // 1080p K = 31: 17 segments of 3 chunks, 2 blocks per SM; 2 edge chunks would need 32 segments and a third block
    // on some SMs: unchanged.
    p = bytesPieces(15, 2, 1080, 31, 32, 4, 1, true, 132, 1.2);
    EXPECT_EQ(p.segments, 17);
    EXPECT_EQ(p.edgeSegments, 17);
    // One wave not fitted (17 segments fill 510 of 528 slots): the same 23 where the wave has room for them.
    p = bytesPieces(30, 2, 2160, 31, 32, 4, 1, false, 132, 1.2);
    EXPECT_EQ(p.segments, 17);
    EXPECT_EQ(p.edgeSegments, 23);
    // Two waves (blocks taken as slots free up): edge blocks as long as the others, 6 segments × 1.4 (two channels).
    p = bytesPieces(120, 2, 2160, 15, 32, 3, 2, true, 132, 1.4);
    EXPECT_EQ(p.segments, 6);
    EXPECT_EQ(p.edgeSegments, 9);
    // No inner strips, or no extra cost: as the inner.
    for (const BytesPieces q : {bytesPieces(2, 2, 2160, 31, 32, 4, 1, true, 132, 1.2),
                                bytesPieces(30, 2, 2160, 31, 32, 4, 1, true, 132, 1.0),
                                bytesPieces(120, 2, 2160, 15, 32, 3, 2, true, 132, 1.0)})
        EXPECT_EQ(q.edgeSegments, q.segments);
    // Any shape: edge segments between the inner ones and the frame's rows, an edge block never more chunks than an
    // inner one's, never more blocks on the busiest SM nor more than one wave.
    for (int strips : {2, 3, 7, 15, 30, 61, 120, 529})
        for (int edges : {1, 2})
            for (int height : {1, 2, 17, 31, 480, 1080, 2160, 4320})
                for (int k : {15, 31})
                    for (int slots : {1, 2, 3, 4}) {
                        if (edges >= strips) continue;
                        const BytesPieces two = bytesPieces(strips, edges, height, k, 32, slots, 2, true, 132, 1.8);
                        EXPECT_GE(two.edgeSegments, two.segments);
                        EXPECT_LE(two.edgeSegments, height);
                        const BytesPieces q = bytesPieces(strips, edges, height, k, 32, slots, 1, true, 132, 1.2);
                        const std::int64_t before = std::int64_t(strips) * q.segments;
                        const std::int64_t after = std::int64_t(strips - edges) * q.segments +
                                                   std::int64_t(edges) * q.edgeSegments;
                        EXPECT_GE(q.edgeSegments, q.segments);
                        EXPECT_LE(q.edgeSegments, height);
                        EXPECT_LE(chunks(height, q.edgeSegments, k), chunks(height, q.segments, k));
                        if (q.edgeSegments > q.segments) {
                            EXPECT_LE((after + 131) / 132, (before + 131) / 132);
                            EXPECT_LE(after, 132 * slots);
                        }
                    }
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}

// The u8 separable kernel's 1-D grid (host arithmetic, no device): every (strip, segment) of the frame is one block's,
// the edge strips' (strip 0 and those whose span reaches past the row's end) first, each strip class with its own
// segments.
TEST(EdgeFirstGrid, EveryStripSegmentOnceEdgesFirst) {
#ifdef CUDAFILTERS_HAVE_CUDA
    using namespace cuda_detail;
    int checked = 0;
    for (int width : {1, 15, 16, 17, 100, 128, 129, 143, 144, 145, 1920, 3840})
        for (int height : {1, 7, 1080})
            for (int stripWidth : {32, 64, 128})
                for (int lead : {4, 16})
                    for (auto [segment, edgeSegment] : {std::pair{1, 1}, {64, 48}, {300, 300}, {2000, 7}}) {
                        const EdgeFirstGrid g = edgeFirstGrid(width, height, stripWidth, lead, segment, edgeSegment);
                        const int strips = (width + stripWidth - 1) / stripWidth;
                        const std::string what = std::to_string(width) + "x" + std::to_string(height) + " strip " +
                                                 std::to_string(stripWidth) + " lead " + std::to_string(lead);
                        auto isEdge = [&](int strip) {
                            return strip == 0 || strip * stripWidth + stripWidth + lead > width;
                        };
                        std::vector<int> rowsCovered(std::size_t(strips) * height, 0);
                        bool edgesFirst = true, seenInner = false;
                        for (int b = 0; b < g.blocks; ++b) {
                            const GridPlace at = placeBlock(g, b);
                            ASSERT_GE(at.strip, 0) << what;
                            ASSERT_LT(at.strip, strips) << what;
                            ASSERT_LT(at.y0, height) << what;
                            EXPECT_EQ(at.segment, isEdge(at.strip) ? edgeSegment : segment) << what;
                            if (!isEdge(at.strip)) seenInner = true;
                            else if (seenInner) edgesFirst = false;
                            for (int y = at.y0; y < std::min(height, at.y0 + at.segment); ++y)
                                ++rowsCovered[std::size_t(at.strip) * height + y];
                        }
                        EXPECT_TRUE(edgesFirst) << what;
                        EXPECT_TRUE(std::all_of(rowsCovered.begin(), rowsCovered.end(), [](int n) { return n == 1; }))
                            << what;
                        ++checked;
                    }
    EXPECT_EQ(checked, 12 * 3 * 3 * 2 * 4);
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}

// The streaming kernel takes its row offsets as 32-bit products: a source or destination pitch of 4 GiB or more leaves
// the frame to the other kernels (host arithmetic, no device).
TEST(SeparableBytes, PitchesFrom4GiBTakeOtherKernels) {
#ifdef CUDAFILTERS_HAVE_CUDA
    alignas(16) static unsigned char bytes[64];
    cuda_detail::ConvFrame frame;
    frame.src = bytes;
    frame.dst = bytes;
    frame.srcPitch = frame.dstPitch = 4096;
    frame.width = 3840;
    frame.height = 2160;
    frame.rowAlign = 16;
    constexpr std::size_t k4GiB = std::size_t(1) << 32;
    for (int k : {15, 31}) {
        EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, frame));
        frame.srcPitch = k4GiB - 16;
        frame.dstPitch = k4GiB - 4;
        EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, frame));
        frame.srcPitch = k4GiB;
        EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, frame));
        frame.srcPitch = 4096;
        frame.dstPitch = k4GiB;
        EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, frame));
        frame.dstPitch = 4096;
    }
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}

// The u8 streaming kernel of 1 to 4 channels sums as the tile kernel does: the same bytes on every border, with bias and |.|, RGBA with the alpha copied (and a channel other than the
// last copied), packed RGB (a channel copied too), frames narrower than a strip, widths not a multiple of 4, frames of
// K rows or fewer, many strips and segments (chunks cut short by the segment's end), destination rows aligned to 4
// bytes only; and within 1 of the reference. The default launches it (its name in the captured launch). Source rows
// not 16-byte aligned, destinations not 4-byte aligned, sizes other than 7, 9, 15 and 31, 16-bit samples, a channel
// neither filtered nor copied and a Border::Constant value that is not a byte are not taken.
TEST(SeparableBytes, SameBytesAsTheTileKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        Border border;
        bool absolute;
        unsigned mask = 0xF, copy = 0;
        std::size_t dstPitch = 0;  // given: rows aligned to 4 bytes but not 16
    };
    const Shape shapes[] = {
        {3840, 300, 1, Border::Reflect101, false},
        {1921, 1081, 1, Border::Replicate, false},
        {1283, 1080, 1, Border::Reflect, true},
        {129, 77, 1, Border::Reflect, false},
        {200, 150, 1, Border::Constant, false},
        {7, 3, 1, Border::Constant, true},
        {1, 1, 1, Border::Wrap, false},
        {66, 700, 1, Border::Wrap, false},
        {385, 31, 1, Border::Reflect101, false},
        {4096, 16, 1, Border::Replicate, true},
        {517, 263, 1, Border::Reflect101, false, 0xF, 0, 524},
        {960, 540, 2, Border::Reflect101, false},
        {333, 97, 2, Border::Constant, true},
        {1, 40, 2, Border::Replicate, false},
        {901, 203, 4, Border::Replicate, false, 0x7, 0x8},
        {1920, 260, 4, Border::Reflect101, false, 0xF, 0},
        {97, 53, 4, Border::Constant, true, 0x7, 0x8, 97 * 4 + 4},
        {130, 70, 4, Border::Wrap, false, 0xB, 0x4},
        {31, 33, 4, Border::Reflect, false, 0xE, 0x1},
        {1920, 260, 3, Border::Reflect101, false, 0x7, 0},
        {333, 97, 3, Border::Constant, true, 0x7, 0},
        {130, 70, 3, Border::Wrap, false, 0x5, 0x2},
        {1, 40, 3, Border::Replicate, false, 0x7, 0},
        {771, 45, 3, Border::Reflect, false, 0x7, 0, 771 * 3 + 3},
        // Tall enough that a block's rows run past the end of the one-barrier ring (which has no mirrored rows), the
        // copied channels' own rows included.
        {3840, 1200, 1, Border::Reflect101, false},
        // 4K: the edge strips' segments shorter than the others' (bytesPieces), at both K.
        {3840, 2160, 1, Border::Wrap, false},
        {1920, 1100, 4, Border::Wrap, false, 0xB, 0x4},
        {1280, 1500, 3, Border::Replicate, false, 0x5, 0x2},
    };
    for (int k : {7, 9, 15, 31})
        for (const Shape& c : shapes) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, k, 0.3 * k);
            d.border = c.border;
            d.borderValue = 200;
            d.bias = c.absolute ? -90 : 0;
            d.absolute = c.absolute;
            d.channelMask = c.mask;
            d.copyMask = c.copy;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.ch);
            ASSERT_TRUE(plan.separable);
            HostImage input(c.w, c.h, c.ch, SampleType::U8);
            input.fillRandom(k * 7 + c.w + c.h + c.ch);
            DevicePlane src(c.w, c.h, c.ch, SampleType::U8, false);
            src.upload(input);
            std::vector<HostImage> outs;
            const std::string what = "k" + std::to_string(k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                     "x" + std::to_string(c.ch) + " mask " + std::to_string(c.mask);
            for (bool staged : {false, true}) {
                DevicePlane dst(c.w, c.h, c.ch, SampleType::U8, false, c.dstPitch);
                dst.poisonRows();
                const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
                EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, frame)) << what;
                if (staged) {
                    EXPECT_STREQ(cuda_detail::routeName(plan, src.view, dst.view), "separable-staged-u8") << what;
                    EXPECT_TRUE(cuda_detail::launchSeparableStagedU8(SampleType::U8, k, frame, plan.row.data(),
                                                                     plan.column.data(), nullptr))
                        << what;
                } else {
                    cuda_detail::launchSeparableTile(SampleType::U8, k, frame, plan.row.data(), plan.column.data(),
                                                     nullptr);
                }
                CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                EXPECT_TRUE(dst.paddingIntact()) << what << (staged ? " staged" : " tile");
                outs.push_back(dst.download());
            }
            const Difference same = compareImages(outs[1], outs[0]);
            EXPECT_EQ(same.differing, 0) << what << ": " << describe(same);
            const Difference diff = compareImages(outs[1], runReference(plan, input));
            EXPECT_LE(diff.maxAbs, 1) << what << ": " << describe(diff);
        }

    ConvolveDesc d = presetDesc(Preset::Gaussian, 15, 4.5);
    const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
    DevicePlane aligned(300, 40, 1, SampleType::U8, false), odd(300, 40, 1, SampleType::U8, true);
    DevicePlane dstAligned(300, 40, 1, SampleType::U8, false);
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15,
                                                    cuda_detail::makeFrame(plan, odd.view, dstAligned.view)));
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15,
                                                    cuda_detail::makeFrame(plan, aligned.view, odd.view)));
    const cuda_detail::ConvFrame good = cuda_detail::makeFrame(plan, aligned.view, dstAligned.view);
    EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, good));
    auto kernels = [&](const DevicePlane& from) {
        auto conv = makeCudaConvolver(plan);
        return kernelsLaunchedBy([&](cudaStream_t stream) { conv->process(from.view, dstAligned.view, stream); });
    };
    EXPECT_STREQ(cuda_detail::routeName(plan, aligned.view, dstAligned.view), "separable-staged-u8");
    EXPECT_NE(kernels(aligned).find("separableStagedU8Kernel"), std::string::npos) << kernels(aligned);
    EXPECT_STRNE(cuda_detail::routeName(plan, odd.view, dstAligned.view), "separable-staged-u8");
    const std::string oddKernels = kernels(odd);
    EXPECT_EQ(oddKernels.find("separableStagedU8Kernel"), std::string::npos) << oddKernels;
    EXPECT_FALSE(oddKernels.empty());
    for (int k : {3, 5, 13}) EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, k, good)) << k;
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U16, 15, good));
    cuda_detail::ConvFrame constant = good;
    constant.border = Border::Constant;
    constant.borderValue = 12.5f;
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, constant));
    constant.borderValue = 12.f;
    EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, constant));
    cuda_detail::ConvFrame rgba = good;
    rgba.inChannels = rgba.outChannels = 4;
    rgba.mask = 0x7;
    rgba.copy = 0x8;
    EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, rgba));
    rgba.copy = 0;  // alpha left as dst holds it
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, rgba));
    cuda_detail::ConvFrame rgb = good;
    rgb.inChannels = rgb.outChannels = 3;
    rgb.mask = 0x7;
    EXPECT_TRUE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, rgb));
    rgb.mask = 0x3;  // blue left as dst holds it
    EXPECT_FALSE(cuda_detail::separableStagedU8Applies(SampleType::U8, 15, rgb));
#endif
}

// Which instance RGBA-family frames take (the bytes are SameBytesAsTheTileKernel's): with the last or first of 4
// channels copied and no bias or |.|, one that leaves that channel out of the column pass (template argument SKIP 3
// or 0); with a bias, or another channel copied, the one that sums every channel (SKIP -1); at K = 15 one barrier a
// chunk (OVERLAP). The names are matched mangled or demangled.
TEST(SeparableBytes, CopiedAlphaLeftOutOfTheColumnPass) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Case {
        unsigned mask, copy;
        float bias;
        int skip;  // the instance's SKIP
    };
    for (const Case& c : {Case{0x7, 0x8, 0.f, 3}, Case{0xE, 0x1, 0.f, 0}, Case{0x7, 0x8, 3.f, -1},
                          Case{0xB, 0x4, 0.f, -1}}) {
        ConvolveDesc d = presetDesc(Preset::Gaussian, 15, 4.5);
        d.channelMask = c.mask;
        d.copyMask = c.copy;
        d.bias = c.bias;
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 4);
        DevicePlane src(300, 40, 4, SampleType::U8, false), dst(300, 40, 4, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        const std::string all = kernelsLaunchedBy([&](cudaStream_t stream) {
            EXPECT_TRUE(cuda_detail::launchSeparableStagedU8(SampleType::U8, 15, frame, plan.row.data(),
                                                             plan.column.data(), stream));
        });
        const bool found = holdsBytesInstance(all, 15, 4, c.bias != 0.f, 3, c.skip, true);
        EXPECT_TRUE(found) << "mask " << c.mask << " copy " << c.copy << " bias " << c.bias << ": " << all;
    }
#endif
}

// Two to four channels: the u8 streaming kernel takes one barrier a chunk (OVERLAP) where it measured faster
// (oneBarrierBest: everywhere but packed RGB at K = 7 and 15 from 1.5 to 4 Mpixel, at K = 9 from 1.5 Mpixel and at
// K = 31 from 4 Mpixel), two there; the instance is read back from a captured launch.
TEST(SeparableBytes, ColourOneBarrierWhereMeasuredFaster) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Case {
        int k, channels, w, h;
        bool overlap;
        int blocks;  // MIN_BLOCKS: 3, 4 for packed RGB with two barriers
    };
    for (const Case& c : {Case{15, 2, 1920, 1080, true, 3}, Case{31, 2, 1280, 720, true, 3},
                          Case{31, 2, 3840, 2160, true, 3}, Case{15, 3, 1280, 720, true, 3},
                          Case{15, 3, 1920, 1080, false, 4}, Case{15, 3, 3840, 2160, true, 3},
                          Case{31, 3, 1280, 720, true, 3}, Case{31, 3, 1920, 1080, true, 3},
                          Case{31, 3, 3840, 2160, false, 4}, Case{15, 4, 1920, 1080, true, 3},
                          Case{31, 4, 1920, 1080, true, 3}, Case{9, 2, 1920, 1080, true, 3},
                          Case{9, 3, 1280, 720, true, 3}, Case{9, 3, 1920, 1080, false, 4},
                          Case{9, 3, 3840, 2160, false, 4}, Case{9, 4, 3840, 2160, true, 3},
                          Case{7, 3, 3840, 2160, true, 3}, Case{7, 3, 1920, 1080, false, 4},
                          Case{7, 4, 1920, 1080, true, 3}}) {
        const ConvolvePlan plan =
            ConvolvePlan::make(presetDesc(Preset::Gaussian, c.k, 0.3 * c.k), SampleType::U8, c.channels);
        DevicePlane src(c.w, c.h, c.channels, SampleType::U8, false), dst(c.w, c.h, c.channels, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        const std::string all = kernelsLaunchedBy([&](cudaStream_t stream) {
            EXPECT_TRUE(cuda_detail::launchSeparableStagedU8(SampleType::U8, c.k, frame, plan.row.data(),
                                                             plan.column.data(), stream));
        });
        EXPECT_TRUE(holdsBytesInstance(all, c.k, c.channels, false, c.blocks, -1, c.overlap))
            << "k" << c.k << " " << c.channels << " channels " << c.w << "x" << c.h << ": " << all;
    }
#endif
}

// Two to four channels: the u8 streaming kernel sizes the segments for one wave of resident blocks (every block
// resident at once), but packed RGB at K = 15 and 2 to 4 channels at K = 7 and 9 from 4 Mpixel for two. The grid is
// read back from a captured launch.
TEST(SeparableBytes, ColourSegmentsForOneWave) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Case {
        int k, channels, w, h;
        bool twoWaves;
    };
    for (const Case& c : {Case{31, 4, 3840, 2160, false}, Case{15, 4, 1920, 1080, false},
                          Case{31, 2, 3840, 2160, false}, Case{15, 2, 3840, 2160, false},
                          Case{31, 3, 3840, 2160, false}, Case{15, 3, 1920, 1080, false},
                          Case{15, 3, 3840, 2160, true}, Case{9, 2, 3840, 2160, true}, Case{9, 3, 3840, 2160, true},
                          Case{9, 4, 3840, 2160, true}, Case{9, 4, 1920, 1080, false}, Case{7, 3, 3840, 2160, true}}) {
        const ConvolvePlan plan =
            ConvolvePlan::make(presetDesc(Preset::Gaussian, c.k, 0.3 * c.k), SampleType::U8, c.channels);
        DevicePlane src(c.w, c.h, c.channels, SampleType::U8, false), dst(c.w, c.h, c.channels, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        const std::string what = "k" + std::to_string(c.k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                 "x" + std::to_string(c.channels);
        const BytesLaunch b = bytesLaunch(c.k, plan, frame);
        ASSERT_GT(b.perSm, 0) << what;
        const KernelLaunch& l = b.launch;
        const std::int64_t wave = std::int64_t(b.perSm) * currentDeviceMultiprocessors();
        if (c.twoWaves) EXPECT_GT(std::int64_t(l.grid.x), wave) << what;
        else EXPECT_LE(std::int64_t(l.grid.x), wave) << what;
    }
#endif
}

// One channel (the instance's MIN_BLOCKS and OVERLAP, read back from a captured launch): the u8 streaming kernel takes
// one barrier a chunk (OVERLAP, 3 blocks per SM) at K = 15 from 1.5 Mpixel, at K = 7 and 9 from 4 Mpixel and at K = 31
// below 4 Mpixel, else two barriers with 4 blocks per SM (3 at K = 15 from 1.5 Mpixel).
TEST(SeparableBytes, OneChannelBlocksPerSm) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Case {
        int k, w, h;
        bool overlap;
        int twoBarrierBlocks;  // blocks per SM under two barriers
    };
    for (const Case& c : {Case{15, 1280, 720, false, 4}, Case{15, 1224, 1224, false, 4}, Case{15, 1225, 1225, true, 3},
                          Case{15, 1920, 1080, true, 3}, Case{31, 1280, 720, true, 4}, Case{31, 1920, 1080, true, 4},
                          Case{31, 2000, 2000, false, 4}, Case{9, 1920, 1080, false, 4}, Case{9, 3840, 2160, true, 4},
                          Case{7, 3840, 2160, true, 4}}) {
        const ConvolvePlan plan = ConvolvePlan::make(presetDesc(Preset::Gaussian, c.k, 0.3 * c.k), SampleType::U8, 1);
        DevicePlane src(c.w, c.h, 1, SampleType::U8, false), dst(c.w, c.h, 1, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        const int blocks = c.overlap ? 3 : c.twoBarrierBlocks;
        const std::string all = kernelsLaunchedBy([&](cudaStream_t stream) {
            EXPECT_TRUE(cuda_detail::launchSeparableStagedU8(SampleType::U8, c.k, frame, plan.row.data(),
                                                             plan.column.data(), stream));
        });
        const bool found = holdsBytesInstance(all, c.k, 1, false, blocks, -1, c.overlap);
        EXPECT_TRUE(found) << "k" << c.k << " " << c.w << "x" << c.h << ": " << all;
    }
#endif
}

// Gaussians 7 × 7 and 9 × 9 on u8 frames of 1 to 4 channels with 16-byte aligned rows: the convolver takes the u8
// streaming kernel, ahead of the register-window and interleaved kernels, within 1 of the reference.
TEST(SeparableBytes, TakesSevenAndNineAheadOfTheOtherKernels) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    for (int k : {7, 9})
        for (int channels : {1, 2, 3, 4}) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, k, 0.23 * k);
            if (channels == 4) d.channelMask = 0x7;  // alpha copied
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, channels);
            HostImage input(643, 211, channels, SampleType::U8);
            input.fillRandom(channels + 90);
            DevicePlane src(643, 211, channels, SampleType::U8, false);
            src.upload(input);
            auto conv = makeCudaConvolver(plan);
            DevicePlane dst(643, 211, channels, SampleType::U8, false);
            dst.poisonRows();
            EXPECT_STREQ(cuda_detail::routeName(plan, src.view, dst.view), "separable-staged-u8")
                << "k" << k << " " << channels << " channels";
            const std::string all =
                kernelsLaunchedBy([&](cudaStream_t stream) { conv->process(src.view, dst.view, stream); });
            EXPECT_NE(all.find("separableStagedU8Kernel"), std::string::npos)
                << "k" << k << " " << channels << " channels: " << all;
            conv->process(src.view, dst.view, nullptr);  // (the captured launch above ran nothing)
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            EXPECT_TRUE(dst.paddingIntact());
            const Difference diff = compareImages(dst.download(), runReference(plan, input));
            EXPECT_LE(diff.maxAbs, 1) << "k" << k << " " << channels << " channels: " << describe(diff);
        }
#endif
}

// One channel: the launch's grid, read back from a captured launch, is bytesPieces' (the edge strips' segments, then
// the inner strips'): at 4K the edge strips take shorter segments than the others, and never more blocks than one
// wave.
TEST(SeparableBytes, EdgeStripsLaunchShorterSegments) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Case {
        int k, w, h;
    };
    int shorter = 0;
    for (const Case& c : {Case{31, 3840, 2160}, Case{15, 3840, 2160}, Case{31, 1920, 1080}, Case{15, 1283, 1080}}) {
        const ConvolvePlan plan = ConvolvePlan::make(presetDesc(Preset::Gaussian, c.k, 0.3 * c.k), SampleType::U8, 1);
        DevicePlane src(c.w, c.h, 1, SampleType::U8, false), dst(c.w, c.h, 1, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        {
            const std::string what = "k" + std::to_string(c.k) + " " + std::to_string(c.w) + "x" +
                                     std::to_string(c.h);
            const BytesLaunch b = bytesLaunch(c.k, plan, frame);
            ASSERT_GT(b.perSm, 0) << what;
            const KernelLaunch& l = b.launch;
            const int perSm = b.perSm;
            constexpr int kStripWidth = 128, kLead = 16;
            const int strips = (c.w + kStripWidth - 1) / kStripWidth;
            const int edgeStrips = 1 + strips - std::clamp((c.w - kLead) / kStripWidth, 1, strips);
            const int sms = currentDeviceMultiprocessors();
            const cuda_detail::BytesPieces pieces = cuda_detail::bytesPieces(
                strips, edgeStrips, c.h, c.k, 32, perSm, 1, true, sms, cuda_detail::bytesEdgeChunkCost(1));
            const auto blocks = [&](int segments) {
                const int segment = (c.h + segments - 1) / segments;
                return (c.h + segment - 1) / segment;
            };
            EXPECT_EQ(l.grid.x, unsigned(edgeStrips * blocks(pieces.edgeSegments) +
                                         (strips - edgeStrips) * blocks(pieces.segments)))
                << what;
            EXPECT_EQ(l.grid.y * l.grid.z, 1u) << what;
            EXPECT_LE(std::int64_t(l.grid.x), std::int64_t(perSm) * sms) << what;
            shorter += pieces.edgeSegments > pieces.segments;
        }
    }
    // 4K at both K on a GPU of 132 SMs.
    if (currentDeviceMultiprocessors() == 132) {
        EXPECT_EQ(shorter, 2);
    }
#endif
}

// The engine's device-to-device plane copy (the convolver's copy path, the executor's plane copies): 16-byte, 4-byte
// and byte words, odd pitches, planes of one pixel; the padding around the rows untouched; mismatched views refused.
TEST(DeviceCopy, CopiesPlanesOfEveryAlignment) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        SampleType type;
        bool odd;
        std::size_t pitch = 0;
    };
    const Shape shapes[] = {
        {3840, 21, 4, SampleType::U8, false},    {1920, 17, 1, SampleType::U8, false},
        {385, 289, 1, SampleType::U8, false},    {385, 40, 3, SampleType::U8, true},
        {97, 53, 4, SampleType::U8, false, 97 * 4 + 4}, {131, 7, 2, SampleType::U16, true},
        {1, 1, 1, SampleType::U8, false},        {1, 1, 1, SampleType::U8, true},
    };
    for (const Shape& c : shapes) {
        HostImage input(c.w, c.h, c.ch, c.type);
        input.fillRandom(c.w * 7 + c.h);
        DevicePlane src(c.w, c.h, c.ch, c.type, c.odd, c.pitch);
        src.upload(input);
        DevicePlane dst(c.w, c.h, c.ch, c.type, !c.odd, 0);
        dst.poisonRows();
        copyDevicePlane(src.view, dst.view, nullptr);
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.ch);
        EXPECT_TRUE(dst.paddingIntact()) << what;
        EXPECT_EQ(compareImages(dst.download(), input).differing, 0) << what;
    }
    DevicePlane a(64, 8, 1, SampleType::U8, false), b(64, 9, 1, SampleType::U8, false);
    EXPECT_THROW(copyDevicePlane(a.view, b.view, nullptr), InvalidArgument);
#endif
}

// The register-window kernel (K = 3, 5; 7 for one channel) against the tile kernel, byte for byte, and within 1 of the
// reference: every segment length and the default, 1 to 4 channels, RGBA with alpha copied, 4-channel rows aligned
// to 4 bytes but not 16, every border (the edge blocks, the rows outside the frame), frames narrower than a strip and
// of a few rows, several strips and segments; odd pitches, masks with no kernel compiled and frames of R rows or
// fewer are not taken.
TEST(SeparableRegisters, SameBytesAsTheTileKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        Border border;
        unsigned mask, copy;
        bool odd;
        std::size_t pitch = 0;  // given: rows aligned to 4 bytes but not 16
    };
    const Shape shapes[] = {
        {385, 289, 1, Border::Replicate, 1, 0, false},
        {1921, 71, 1, Border::Reflect101, 1, 0, false},
        {200, 150, 1, Border::Reflect, 1, 0, true},
        {7, 3, 1, Border::Constant, 1, 0, false},
        {1, 1, 1, Border::Wrap, 1, 0, false},
        {66, 700, 1, Border::Wrap, 1, 0, false},
        {193, 97, 2, Border::Replicate, 3, 0, false},
        {131, 77, 2, Border::Constant, 3, 0, true},
        {259, 130, 3, Border::Reflect101, 7, 0, true},
        {485, 37, 3, Border::Constant, 7, 0, false},
        {385, 289, 4, Border::Replicate, 7, 8, false},
        {130, 70, 4, Border::Wrap, 0xF, 0, false},
        {98, 45, 4, Border::Constant, 0x7, 0x8, true},
        {2, 5, 4, Border::Reflect, 0xF, 0, false},
        {97, 53, 4, Border::Reflect101, 7, 8, false, 97 * 4 + 4},
        {301, 40, 4, Border::Replicate, 0xF, 0, false, 301 * 4 + 8},
        {1283, 1080, 1, Border::Reflect101, 1, 0, false},  // many segments of many rows (full steps)
        {771, 611, 4, Border::Constant, 0x7, 0x8, false},
        {130, 70, 4, Border::Wrap, 0xB, 4, false},  // a mask with no kernel compiled: not taken
        {61, 33, 3, Border::Reflect, 0x2, 0, false},  // a channel left as dst holds it: not taken
        // Packed 4:2:2: Y/chroma pairs (Y filtered, chroma copied), macropixels (U and V filtered, Y left as dst
        // holds it: the poison of both runs).
        {193, 97, 2, Border::Replicate, 1, 2, false},
        {131, 77, 2, Border::Constant, 2, 1, true},
        {385, 289, 4, Border::Reflect101, 0xA, 0, false},
        {98, 45, 4, Border::Constant, 0x5, 0, true},
        {301, 40, 4, Border::Reflect, 0xA, 0, false, 301 * 4 + 8},
        // One channel from 4 Mpixel (K = 3), 2 Mpixel (K = 5) and 5 Mpixel (K = 7), rows 4-byte but not 16-byte
        // aligned (no u8 streaming kernel at K = 7): the routes of the register-window kernel for GRAY8.
        {3840, 2160, 1, Border::Reflect101, 1, 0, false, 3844},
    };
    int taken = 0;
    for (int k : {3, 5, 7})
        for (const Shape& c : shapes) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, k, 0.4 * k);
            d.border = c.border;
            d.borderValue = 200;
            d.bias = 3;
            d.channelMask = c.mask;
            d.copyMask = c.copy;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.ch);
            ASSERT_TRUE(plan.separable);
            HostImage input(c.w, c.h, c.ch, SampleType::U8);
            input.fillRandom(k * 17 + c.w + c.ch);
            DevicePlane src(c.w, c.h, c.ch, SampleType::U8, c.odd, c.pitch);
            src.upload(input);
            const std::string what = "k" + std::to_string(k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                     "x" + std::to_string(c.ch) + " mask " + std::to_string(c.mask) + " copy " +
                                     std::to_string(c.copy);
            const bool compiled = (c.ch <= 2 || c.mask == 0xF || (c.ch == 3 && c.mask == 7) ||
                                   (c.ch == 4 && c.mask == 7 && c.copy == 8) ||
                                   (c.ch == 4 && (c.mask == 0xA || c.mask == 0x5) && c.copy == 0)) &&
                                  (k <= 5 || c.ch == 1);
            DevicePlane tileDst(c.w, c.h, c.ch, SampleType::U8, c.odd, c.pitch);
            tileDst.poisonRows();
            cuda_detail::launchSeparableTile(SampleType::U8, k, cuda_detail::makeFrame(plan, src.view, tileDst.view),
                                             plan.row.data(), plan.column.data(), nullptr);
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            const HostImage expected = tileDst.download();
            DevicePlane dst(c.w, c.h, c.ch, SampleType::U8, c.odd, c.pitch);
            dst.poisonRows();
            const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
            // Rows read in aligned words, on the frame sizes where it measured faster.
            const bool applies = cuda_detail::registerWindowApplies(SampleType::U8, k, 1, true, frame);
            EXPECT_TRUE(!applies || (compiled && frame.rowAlign >= 4 && c.h > k / 2)) << what;
            const bool launched = cuda_detail::launchSeparableRegistersU8(k, frame, plan.row.data(),
                                                                          plan.column.data(), nullptr);
            EXPECT_EQ(launched, applies) << what;
            if (!launched) continue;
            ++taken;
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            EXPECT_TRUE(dst.paddingIntact()) << what;
            const HostImage out = dst.download();
            const Difference same = compareImages(out, expected);
            EXPECT_EQ(same.differing, 0) << what << ": " << describe(same);
            const Difference diff = compareImages(out, runReference(plan, input));
            EXPECT_LE(diff.maxAbs, 1) << what << ": " << describe(diff);
        }
    // K = 3 colour and packed 4:2:2 at every size, one channel only from the sizes where it measures faster (the 4K
    // frame of rows 4-byte aligned: K = 3, 5 and 7).
    EXPECT_GE(taken, 3);
#endif
}

// The direct register-window kernel (K = 3, one kernel; K = 5 for one channel from 4 Mpixel) against the tiled kernel
// (launchDirectTiledU8), byte for byte, and the tiled kernel within 1 of the reference, on the same shapes.
TEST(DirectRegisters, SameBytesAsTheTileKernels) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        Border border;
        unsigned mask, copy;
        std::size_t pitch = 0;  // given: rows aligned to 4 bytes but not 16
    };
    const Shape shapes[] = {
        {385, 289, 1, Border::Replicate, 1, 0},      {1921, 71, 1, Border::Reflect101, 1, 0},
        {7, 3, 1, Border::Constant, 1, 0},           {66, 300, 1, Border::Wrap, 1, 0},
        {193, 97, 2, Border::Replicate, 3, 0},       {485, 37, 3, Border::Constant, 7, 0},
        {259, 130, 3, Border::Reflect, 7, 0},        {385, 289, 4, Border::Replicate, 7, 8},
        {130, 70, 4, Border::Wrap, 0xF, 0},          {2, 5, 4, Border::Reflect, 0xF, 0},
        {97, 53, 4, Border::Reflect101, 7, 8, 97 * 4 + 4},
        {1283, 1080, 1, Border::Reflect101, 1, 0},  // many segments of many rows (full steps)
        {771, 611, 4, Border::Constant, 7, 8},
        {644, 333, 3, Border::Replicate, 7, 0, 644 * 3 + 8},
        {1283, 300, 1, Border::Wrap, 1, 0, 1292},  // rows aligned to 4 bytes, every other one to 8
        {3840, 2160, 1, Border::Reflect101, 1, 0},  // from 4 Mpixel: K = 5 too
    };
    int taken = 0;
    for (int k : {3, 5})
        for (const Shape& c : shapes) {
            ConvolveDesc d;
            d.kernels = {randomKernel(k, k, 40u + unsigned(k) + unsigned(c.w), false)};
            d.border = c.border;
            d.borderValue = 200;
            d.bias = 3;
            d.absolute = c.ch == 3;
            d.channelMask = c.mask;
            d.copyMask = c.copy;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.ch);
            ASSERT_FALSE(plan.separable);
            HostImage input(c.w, c.h, c.ch, SampleType::U8);
            input.fillRandom(k * 29 + c.w + c.ch);
            DevicePlane src(c.w, c.h, c.ch, SampleType::U8, false, c.pitch);
            src.upload(input);
            const std::string what = "k" + std::to_string(k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                     "x" + std::to_string(c.ch) + " mask " + std::to_string(c.mask);
            std::vector<float> taps(plan.kernels[0].taps.begin(), plan.kernels[0].taps.end());
            DevicePlane beforeDst(c.w, c.h, c.ch, SampleType::U8, false, c.pitch);
            beforeDst.poisonRows();
            EXPECT_TRUE(cuda_detail::launchDirectTiledU8(
                k, 1, cuda_detail::makeFrame(plan, src.view, beforeDst.view), taps.data(), nullptr));
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            const HostImage expected = beforeDst.download();
            const Difference ref = compareImages(expected, runReference(plan, input));
            EXPECT_LE(ref.maxAbs, 1) << what << ": " << describe(ref);
            DevicePlane dst(c.w, c.h, c.ch, SampleType::U8, false, c.pitch);
            dst.poisonRows();
            const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
            const bool launched = cuda_detail::launchDirectRegistersU8(k, 1, frame, taps.data(), nullptr);
            // Compiled at K = 3, and at K = 5 for one channel; taken at K = 3, at K = 5 from 4 Mpixel (the 4K frame).
            const bool large = std::int64_t(c.w) * c.h >= 4000000;
            EXPECT_EQ(launched, k == 3 || (c.ch == 1 && large)) << what;
            if (launched) {
                ++taken;
                CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                EXPECT_TRUE(dst.paddingIntact()) << what;
                const Difference same = compareImages(dst.download(), expected);
                EXPECT_EQ(same.differing, 0) << what << ": " << describe(same);
            }
            EXPECT_FALSE(cuda_detail::launchDirectRegistersU8(k, 2, frame, taps.data(), nullptr));  // a bank
        }
    // K = 3: every shape; K = 5: the 4K one-channel frame.
    EXPECT_EQ(taken, int(std::size(shapes)) + 1);
    // Under Border::Constant the kernel reads rows outside the frame as words of borderValue's byte: a borderValue
    // that is no byte leaves the frame to the other kernels.
    for (float borderValue : {127.f, 127.5f, -1.f, 256.f}) {
        ConvolveDesc d;
        d.kernels = {randomKernel(3, 3, 7u, false)};
        d.border = Border::Constant;
        d.borderValue = borderValue;
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
        DevicePlane src(64, 16, 1, SampleType::U8, false), dst(64, 16, 1, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        EXPECT_EQ(cuda_detail::registerWindowApplies(SampleType::U8, 3, 1, false, frame), borderValue == 127.f)
            << borderValue;
    }
#endif
}

// At K = 3 a register-window grid under one wave of resident blocks gets segments just long enough to fill one
// (at least 4 rows): its grid, read back from a captured launch, is registerWindowGrid's (the edge blocks, then the
// strips' blocks), the strips' blocks fit one wave, and one row less a segment would not.
TEST(DirectRegisters, SegmentsFillOneWave) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int w, h, ch;
        unsigned mask, copy;
    };
    int checked = 0;
    for (const Shape& c : {Shape{2560, 1440, 1, 1, 0}, Shape{1920, 1080, 1, 1, 0}, Shape{1280, 720, 4, 7, 8},
                           Shape{1920, 1080, 3, 7, 0}, Shape{1920, 1080, 2, 3, 0}}) {
        ConvolveDesc d;
        d.kernels = {randomKernel(3, 3, 11u, false)};
        d.channelMask = c.mask;
        d.copyMask = c.copy;
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.ch);
        DevicePlane src(c.w, c.h, c.ch, SampleType::U8, false), dst(c.w, c.h, c.ch, SampleType::U8, false);
        const cuda_detail::ConvFrame frame = cuda_detail::makeFrame(plan, src.view, dst.view);
        const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.ch);
        const std::vector<KernelLaunch> launches = launchesBy([&](cudaStream_t stream) {
            EXPECT_TRUE(cuda_detail::launchDirectRegistersU8(3, 1, frame, plan.kernels[0].taps.data(), stream))
                << what;
        });
        ASSERT_EQ(launches.size(), 1u) << what;
        const KernelLaunch& l = launches[0];
        int perSm = 0;
        const int threads = int(l.block.x * l.block.y * l.block.z);
        CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, l.func, threads, 0));
        const cuda_detail::RegisterWindowGrid g = cuda_detail::registerWindowGrid(3, false, c.ch, c.w, c.h, perSm);
        // The launch is the grid registerWindowGrid describes: the edge blocks, then the strips' blocks.
        EXPECT_EQ(l.grid.x, unsigned(g.perRow * g.segments + g.edgeBlocks)) << what;
        EXPECT_EQ(l.grid.y * l.grid.z, 1u) << what;
        EXPECT_EQ(g.segments, (c.h + g.segment - 1) / g.segment) << what;
        // Just enough edge blocks for a thread per edge pixel.
        const int edgePixels = (g.begin + c.w - g.end) * c.h;
        EXPECT_GE(g.edgeBlocks * threads, edgePixels) << what;
        EXPECT_LT((g.edgeBlocks - 1) * threads, std::max(edgePixels, 1)) << what;
        const std::int64_t wave = std::int64_t(perSm) * currentDeviceMultiprocessors();
        const std::int64_t columns = g.perRow;
        if ((c.h + 7) / 8 * columns >= wave) continue;  // segments of 8 rows already fill a wave (a smaller GPU)
        ++checked;
        EXPECT_LE(columns * g.segments, wave) << what << ": segments of " << g.segment << " rows";
        if (g.segment > 4) {
            const std::int64_t shorter = (c.h + g.segment - 2) / (g.segment - 1);
            EXPECT_GT(columns * shorter, wave) << what << ": segments of " << g.segment << " rows";
        }
    }
    if (checked == 0) GTEST_SKIP() << "every frame fills a wave of this GPU's resident blocks at 8 rows a segment";
#endif
}

// One-channel separable plans at K = 3 below 4 Mpixel run the direct register-window kernel on the full taps; rows it
// cannot read in words
// (odd pitches) still take the tile kernel, and 4 Mpixel frames the separable instance. At K = 5 frames of 2 Mpixel
// and more take the separable instance, smaller ones the tile kernels; at K = 7 the u8 streaming separable kernel
// takes every frame whose rows it reads (none of the register-window instances).
// Every output within 1 of the reference.
TEST(SeparableRegisters, OneChannelRoutes) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    enum class Taken { Direct, Separable, Neither };
    struct Shape {
        int k, w, h;
        Border border;
        bool odd;
        Taken taken;  // the register-window instance the convolver launches
    };
    const Shape shapes[] = {
        {3, 1920, 1080, Border::Reflect101, false, Taken::Direct}, {3, 1283, 721, Border::Replicate, false, Taken::Direct},
        {3, 97, 5, Border::Constant, false, Taken::Direct},        {3, 2, 2, Border::Wrap, false, Taken::Direct},
        {3, 333, 97, Border::Reflect, true, Taken::Neither},       {3, 2560, 1600, Border::Reflect101, false, Taken::Separable},
        {5, 1920, 1080, Border::Replicate, false, Taken::Separable}, {5, 2001, 1001, Border::Constant, false, Taken::Separable},
        {5, 1280, 720, Border::Reflect101, false, Taken::Neither},   {5, 1999, 1000, Border::Wrap, false, Taken::Neither},
        {7, 1280, 720, Border::Replicate, false, Taken::Neither},    {7, 2560, 1440, Border::Reflect, false, Taken::Neither},
        {7, 2499, 2000, Border::Wrap, false, Taken::Neither},        {7, 2500, 2000, Border::Constant, false, Taken::Neither},
        {7, 3840, 2160, Border::Replicate, false, Taken::Neither},
    };
    for (const Shape& c : shapes)
        for (const double sigma : {0.8, 2.0}) {
            ConvolveDesc d = presetDesc(Preset::Gaussian, c.k, sigma);
            d.border = c.border;
            d.borderValue = 37;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
            ASSERT_TRUE(plan.separable);
            HostImage input(c.w, c.h, 1, SampleType::U8);
            input.fillRandom(c.w + c.h + c.k);
            const std::string what = "k" + std::to_string(c.k) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                                     " sigma " + std::to_string(sigma);
            auto fast = makeCudaConvolver(plan);
            const HostImage out = runCuda(*fast, input, c.odd);
            EXPECT_LE(compareImages(out, runReference(plan, input)).maxAbs, 1) << what;

            DevicePlane src(c.w, c.h, 1, SampleType::U8, c.odd), dst(c.w, c.h, 1, SampleType::U8, c.odd);
            const std::string all =
                kernelsLaunchedBy([&](cudaStream_t stream) { fast->process(src.view, dst.view, stream); });
            // K, C, FMASK, SEP: mangled or not.
            const std::string k = std::to_string(c.k);
            auto launched = [&](bool sep) {
                return holdsInstance(all, "registerWindowKernelILi" + k + "ELi1ELj1ELb" + (sep ? "1E" : "0E"),
                                     "registerWindowKernel<" + k + ", 1, 1u, " + (sep ? "true" : "false"));
            };
            EXPECT_EQ(launched(false), c.taken == Taken::Direct) << what << ": " << all;
            EXPECT_EQ(launched(true), c.taken == Taken::Separable) << what << ": " << all;
            EXPECT_FALSE(all.empty()) << what;
        }
#endif
}

// Colour frames at K = 5: the separable register-window kernel from 1.6 Mpixel for RGBA-like frames (alpha copied, or
// all four filtered), from 1.4 Mpixel for packed RGB and from 2.5 Mpixel for two channels both filtered; below, the
// interleaved direct kernel on the full taps (read back from a captured launch). Packed 4:2:2 chroma
// (U and V filtered, Y left as dst holds it) keeps the register window at every size.
TEST(SeparableRegisters, ColourAtFiveRoutes) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Shape {
        int channels, w, h;
        unsigned mask, copy;
        bool registers;  // whether the convolver takes the register-window kernel
    };
    for (const Shape& c : {Shape{4, 1280, 720, 7, 8, false}, Shape{4, 1280, 1024, 0xF, 0, false},
                           Shape{4, 1601, 999, 7, 8, false}, Shape{4, 1600, 1000, 7, 8, true},
                           Shape{4, 1921, 1081, 0xF, 0, true}, Shape{4, 640, 480, 0xA, 0, true},
                           Shape{3, 1280, 1024, 7, 0, false}, Shape{3, 1399, 1000, 7, 0, false},
                           Shape{3, 1400, 1000, 7, 0, true}, Shape{3, 1921, 1081, 7, 0, true},
                           Shape{2, 1920, 1080, 3, 0, false}, Shape{2, 2000, 1249, 3, 0, false},
                           Shape{2, 2000, 1250, 3, 0, true}}) {
        ConvolveDesc d = presetDesc(Preset::Gaussian, 5, 1.1);
        d.channelMask = c.mask;
        d.copyMask = c.copy;
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, c.channels);
        ASSERT_TRUE(plan.separable);
        HostImage input(c.w, c.h, c.channels, SampleType::U8);
        input.fillRandom(c.w + c.h);
        const std::string what = std::to_string(c.channels) + " channels " + std::to_string(c.w) + "x" +
                                 std::to_string(c.h) + " mask " + std::to_string(c.mask);
        auto fast = makeCudaConvolver(plan);
        const HostImage out = runCuda(*fast, input);
        if (c.mask != 0xA) {  // (4:2:2 chroma leaves Y as dst holds it: the poison)
            EXPECT_LE(compareImages(out, runReference(plan, input)).maxAbs, 1) << what;
        }
        DevicePlane src(c.w, c.h, c.channels, SampleType::U8, false), dst(c.w, c.h, c.channels, SampleType::U8, false);
        const std::string all =
            kernelsLaunchedBy([&](cudaStream_t stream) { fast->process(src.view, dst.view, stream); });
        const std::string channels = std::to_string(c.channels);
        const bool registers = holdsInstance(all, "registerWindowKernelILi5ELi" + channels + "E",
                                            "registerWindowKernel<5, " + channels + ",");
        EXPECT_EQ(registers, c.registers) << what << ": " << all;
        EXPECT_FALSE(all.empty()) << what;
    }
#endif
}

namespace {

struct SeparableCase {
    std::string name;
    int k, width, height, channels;
    SampleType type;
    Border border;
    bool oddPitch;
};

std::vector<SeparableCase> separableCases() {
    std::vector<SeparableCase> out;
    for (int k : {3, 5, 7, 9, 15, 31}) {
        const std::string v = "k" + std::to_string(k);
        out.push_back({v + "_385x289_replicate", k, 385, 289, 1, SampleType::U8, Border::Replicate, false});
        out.push_back({v + "_200x150_reflect_odd", k, 200, 150, 1, SampleType::U8, Border::Reflect, true});
        out.push_back({v + "_7x3_reflect101", k, 7, 3, 1, SampleType::U8, Border::Reflect101, false});
        out.push_back({v + "_1x1_wrap", k, 1, 1, 1, SampleType::U8, Border::Wrap, false});
        out.push_back({v + "_u16_constant_odd", k, 97, 61, 1, SampleType::U16, Border::Constant, true});
        out.push_back({v + "_rgba_wrap", k, 130, 70, 4, SampleType::U8, Border::Wrap, false});
    }
    return out;
}

class SeparableKernel : public ::testing::TestWithParam<SeparableCase> {};

}  // namespace

TEST_P(SeparableKernel, MatchesReference) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    const SeparableCase& c = GetParam();
    ConvolveDesc d = presetDesc(Preset::Gaussian, c.k, 0.3 * c.k);
    d.border = c.border;
    d.borderValue = c.type == SampleType::U8 ? 200 : 50000;
    d.bias = 3;
    d.channelMask = 0xB;  // with 4 channels, channel 2 is copied
    const ConvolvePlan plan = ConvolvePlan::make(d, c.type, c.channels);
    ASSERT_TRUE(plan.separable);
    HostImage input(c.width, c.height, c.channels, c.type);
    input.fillRandom(c.k * 7 + c.width);
    DevicePlane src(c.width, c.height, c.channels, c.type, c.oddPitch);
    DevicePlane dst(c.width, c.height, c.channels, c.type, c.oddPitch);
    src.upload(input);
    dst.poisonRows();
    cuda_detail::launchSeparableTile(c.type, c.k, cuda_detail::makeFrame(plan, src.view, dst.view), plan.row.data(),
                                     plan.column.data(), nullptr);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(src.paddingIntact());
    EXPECT_TRUE(dst.paddingIntact());
    const Difference diff = compareImages(dst.download(), runReference(plan, input));
    EXPECT_LE(diff.maxAbs, 1) << describe(diff);
#endif
}

INSTANTIATE_TEST_SUITE_P(Sweep, SeparableKernel, ::testing::ValuesIn(separableCases()),
                         [](const auto& info) { return info.param.name; });

// Two convolvers with different taps, used alternately on one stream, each give their own result.
TEST(CudaConvolver, InstancesShareNoState) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(385, 289, 1, SampleType::U8);
    src.fillRandom(5);
    const Border b = Border::Reflect101;
    const ConvolvePlan planA = ConvolvePlan::make(kernelDesc(randomKernel(5, 5, 21, true), b, 8), SampleType::U8, 1);
    const ConvolvePlan planB = ConvolvePlan::make(kernelDesc(randomKernel(5, 5, 22, true), b, 8), SampleType::U8, 1);
    const ConvolvePlan planC = ConvolvePlan::make(presetDesc(Preset::Gaussian, 9), SampleType::U8, 1);
    const ConvolvePlan planD = ConvolvePlan::make(presetDesc(Preset::Gaussian, 9, 4.0), SampleType::U8, 1);
    const ConvolvePlan* plans[] = {&planA, &planB, &planC, &planD};
    std::vector<std::unique_ptr<Convolver>> convolvers;
    for (const ConvolvePlan* p : plans) convolvers.push_back(makeCudaConvolver(*p));
    Stream stream = Stream::create();
    DevicePlane in(src.width(), src.height(), 1, SampleType::U8, false);
    in.upload(src);
    std::vector<std::unique_ptr<DevicePlane>> outs;
    for (int i = 0; i < 8; ++i) {
        outs.push_back(std::make_unique<DevicePlane>(src.width(), src.height(), 1, SampleType::U8, false));
        outs.back()->poisonRows();
    }
    for (int i = 0; i < 8; ++i) convolvers[i % 4]->process(in.view, outs[i]->view, stream.get());
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    for (int i = 0; i < 8; ++i) {
        HostImage expected = runReference(*plans[i % 4], src);
        const Difference d = compareImages(outs[i]->download(), expected);
        EXPECT_LE(d.maxAbs, i % 4 < 2 ? 0 : 1) << "run " << i << ": " << describe(d);
    }
#endif
}

// The same convolver over frames of different sizes, then back: results stay right.
TEST(CudaConvolver, FramesOfChangingSize) {
    SKIP_WITHOUT_DEVICE();
    const ConvolvePlan plan = ConvolvePlan::make(presetDesc(Preset::SobelMagnitude, 3), SampleType::U8, 1);
    const std::unique_ptr<Convolver> convolver = makeCudaConvolver(plan);
    for (auto [w, h] : {std::pair{64, 48}, {385, 289}, {7, 3}, {64, 48}}) {
        HostImage src(w, h, 1, SampleType::U8);
        src.fillRandom(w * h);
        const Difference d = compareImages(runCuda(*convolver, src), runReference(plan, src));
        EXPECT_LE(d.maxAbs, 1) << w << "x" << h << ": " << describe(d);
    }
}

TEST(CudaConvolver, RejectsMismatchedImages) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    auto conv = makeCudaConvolver(ConvolvePlan::make(presetDesc(Preset::Box, 3), SampleType::U8, 1));
    DevicePlane a(64, 48, 1, SampleType::U8, false), b(64, 47, 1, SampleType::U8, false),
        c(64, 48, 3, SampleType::U8, false);
    EXPECT_THROW(conv->process(a.view, b.view), InvalidArgument);
    EXPECT_THROW(conv->process(c.view, c.view), InvalidArgument);
#endif
}

// Source and destination that share bytes are refused (every kernel reads neighbours other blocks may have
// written); images that merely sit next to each other in one allocation are fine.
TEST(CudaConvolver, RejectsOverlappingImages) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    for (const ConvolveDesc& desc : {presetDesc(Preset::Box, 3), presetDesc(Preset::Gaussian, 9),
                                     kernelDesc(randomKernel(5, 5, 3, true), Border::Replicate, 16),
                                     presetDesc(Preset::Identity)}) {
        const ConvolvePlan plan = ConvolvePlan::make(desc, SampleType::U8, 1);
        auto conv = makeCudaConvolver(plan);
        DevicePlane a(64, 49, 1, SampleType::U8, false);
        ImageView top = a.view, below = a.view, upper = a.view, lower = a.view;
        top.height = below.height = 48;
        below.data = static_cast<std::uint8_t*>(a.view.data) + a.view.pitch;  // one row down: overlaps
        try {
            conv->process(top, top);
            ADD_FAILURE() << "in place accepted (path " << cudaPath(plan) << ")";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("cannot filter in place"), std::string::npos) << e.what();
        }
        EXPECT_THROW(conv->process(top, below), InvalidArgument);
        EXPECT_THROW(conv->process(below, top), InvalidArgument);
        // Rows 0..23 and 24..47: disjoint, must work.
        upper.height = lower.height = 24;
        lower.data = static_cast<std::uint8_t*>(a.view.data) + 24 * a.view.pitch;
        HostImage input(64, 24, 1, SampleType::U8);
        input.fillRandom(9);
        CUDAFILTERS_CHECK(cudaMemcpy2D(upper.data, upper.pitch, input.bytes(), input.pitch(), input.rowBytes(), 24,
                                       cudaMemcpyHostToDevice));
        EXPECT_NO_THROW(conv->process(upper, lower));
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        HostImage out(64, 24, 1, SampleType::U8);
        CUDAFILTERS_CHECK(cudaMemcpy2D(out.bytes(), out.pitch(), lower.data, lower.pitch, out.rowBytes(), 24,
                                       cudaMemcpyDeviceToHost));
        const Difference d = compareImages(out, runReference(plan, input));
        EXPECT_LE(d.maxAbs, 1) << describe(d);
    }
#endif
}

namespace {

#ifdef CUDAFILTERS_HAVE_CUDA
void expectSamePlanValues(const ConvolvePlan& actual, const ConvolvePlan& expected) {
    ASSERT_EQ(actual.kernels.size(), expected.kernels.size());
    for (std::size_t i = 0; i < expected.kernels.size(); ++i) EXPECT_EQ(actual.kernels[i].taps, expected.kernels[i].taps);
    EXPECT_EQ(actual.row, expected.row);
    EXPECT_EQ(actual.column, expected.column);
    EXPECT_EQ(actual.bias, expected.bias);
    EXPECT_EQ(actual.absolute, expected.absolute);
    EXPECT_EQ(actual.borderValue, expected.borderValue);
}

ConvolveDesc valuesDesc(std::vector<Kernel2D> kernels, double divisor, double bias, bool absolute, double borderValue) {
    ConvolveDesc d;
    d.kernels = std::move(kernels);
    d.border = Border::Constant;
    d.divisor = divisor;
    d.bias = bias;
    d.absolute = absolute;
    d.borderValue = borderValue;
    d.combine = Combine::Magnitude;
    d.algorithm = ConvolveAlgorithm::Direct;  // the paths under test, whatever the FFT crossover
    return d;
}
#endif

}  // namespace

// Values of the same shape on the direct and separable paths: taken, and the output is bit-identical to a CUDA
// convolver made with the new plan (and within 1 of the reference).
TEST(CudaConvolverRetune, DirectAndSeparableTakeNewValues) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(385, 289, 1, SampleType::U8);
    src.fillRandom(12);
    const std::pair<ConvolvePlan, ConvolvePlan> pairs[] = {
        {ConvolvePlan::make(valuesDesc({randomKernel(5, 5, 1, true), randomKernel(5, 5, 2, true)}, 8, 0, false, 10),
                            SampleType::U8, 1),
         ConvolvePlan::make(valuesDesc({randomKernel(5, 5, 3, false), randomKernel(5, 5, 4, true)}, 0, 40, true, 250),
                            SampleType::U8, 1)},
        {ConvolvePlan::make(presetDesc(Preset::Gaussian, 15, 2.0), SampleType::U8, 1),
         ConvolvePlan::make(presetDesc(Preset::Gaussian, 15, 5.0), SampleType::U8, 1)},
    };
    for (const auto& [a, b] : pairs) {
        ASSERT_EQ(cudaPath(a), cudaPath(b));
        auto conv = makeCudaConvolver(a);
        const HostImage before = runCuda(*conv, src);
        ASSERT_TRUE(conv->retune(b)) << cudaPath(a);
        expectSamePlanValues(conv->plan(), b);
        const HostImage after = runCuda(*conv, src);
        const Difference fresh = compareImages(after, runCuda(b, src));
        EXPECT_EQ(fresh.differing, 0) << cudaPath(a) << ": " << describe(fresh);
        const Difference ref = compareImages(after, runReference(b, src));
        EXPECT_LE(ref.maxAbs, 1) << cudaPath(a) << ": " << describe(ref);
        EXPECT_GT(compareImages(before, after).differing, 0) << cudaPath(a) << ": the new values changed nothing";
    }
#endif
}

// The generic path reads its taps from device memory: new taps are refused (nothing changes), new bias, |x| and
// border value with the same taps are taken.
TEST(CudaConvolverRetune, GenericPathTakesValuesButNotTaps) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(130, 70, 1, SampleType::U8);
    src.fillRandom(4);
    const Kernel2D k33 = randomKernel(33, 33, 9, true);
    const ConvolvePlan a = ConvolvePlan::make(valuesDesc({k33}, 64, 0, false, 0), SampleType::U8, 1);
    ASSERT_EQ(cudaPath(a), "generic");
    auto conv = makeCudaConvolver(a);
    const ConvolvePlan otherTaps =
        ConvolvePlan::make(valuesDesc({randomKernel(33, 33, 10, true)}, 64, 0, false, 0), SampleType::U8, 1);
    EXPECT_FALSE(conv->retune(otherTaps));
    expectSamePlanValues(conv->plan(), a);
    Difference d = compareImages(runCuda(*conv, src), runReference(a, src));
    EXPECT_EQ(d.differing, 0) << describe(d);

    const ConvolvePlan b = ConvolvePlan::make(valuesDesc({k33}, 64, 100, true, 180), SampleType::U8, 1);
    ASSERT_TRUE(conv->retune(b));
    expectSamePlanValues(conv->plan(), b);
    d = compareImages(runCuda(*conv, src), runReference(b, src));
    EXPECT_EQ(d.differing, 0) << describe(d);
#endif
}

// Another path (identity copy → direct), kernel size, border, separability: refused, plan and output unchanged.
TEST(CudaConvolverRetune, OtherShapesAreRefused) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(64, 48, 1, SampleType::U8);
    src.fillRandom(8);
    // 3 x 3 identity and box: both rank 1, so of one shape, but the identity takes the copy path.
    const ConvolvePlan identity = ConvolvePlan::make(
        kernelDesc(Kernel2D{3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0}}, Border::Reflect101, 1), SampleType::U8, 1);
    const ConvolvePlan box =
        ConvolvePlan::make(kernelDesc(Kernel2D{3, 3, std::vector<float>(9, 1.f)}, Border::Reflect101, 9),
                           SampleType::U8, 1);
    ASSERT_EQ(cudaPath(identity), "copy");
    EXPECT_TRUE(box.sameShape(identity));
    auto copy = makeCudaConvolver(identity);
    EXPECT_FALSE(copy->retune(box)) << "copy path to " << cudaPath(box);
    EXPECT_EQ(compareImages(runCuda(*copy, src), src).differing, 0);

    const ConvolvePlan a = ConvolvePlan::make(kernelDesc(randomKernel(5, 5, 1, true), Border::Reflect101, 8),
                                              SampleType::U8, 1);
    auto conv = makeCudaConvolver(a);
    const HostImage expected = runReference(a, src);
    const ConvolvePlan others[] = {
        ConvolvePlan::make(kernelDesc(randomKernel(7, 7, 1, true), Border::Reflect101, 8), SampleType::U8, 1),
        ConvolvePlan::make(kernelDesc(randomKernel(5, 5, 1, true), Border::Wrap, 8), SampleType::U8, 1),
        ConvolvePlan::make(presetDesc(Preset::Gaussian, 5), SampleType::U8, 1),
    };
    for (const ConvolvePlan& other : others) {
        EXPECT_FALSE(conv->retune(other));
        expectSamePlanValues(conv->plan(), a);
        const Difference d = compareImages(runCuda(*conv, src), expected);
        EXPECT_EQ(d.differing, 0) << describe(d);
    }
#endif
}

// Work enqueued before a retune keeps the values it was launched with: frame 1 with plan A, retune to B, frame 2,
// one synchronisation at the end.
TEST(CudaConvolverRetune, EnqueuedWorkKeepsItsValues) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(1921, 1081, 1, SampleType::U8);
    src.fillRandom(21);
    const ConvolvePlan a = ConvolvePlan::make(presetDesc(Preset::Gaussian, 31, 3.0), SampleType::U8, 1);
    ConvolveDesc wide = presetDesc(Preset::Gaussian, 31, 9.0);
    wide.bias = 20;
    const ConvolvePlan b = ConvolvePlan::make(wide, SampleType::U8, 1);
    auto conv = makeCudaConvolver(a);
    Stream stream = Stream::create();
    DevicePlane in(src.width(), src.height(), 1, SampleType::U8, false);
    DevicePlane outA(src.width(), src.height(), 1, SampleType::U8, false);
    DevicePlane outB(src.width(), src.height(), 1, SampleType::U8, false);
    in.upload(src);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 4; ++i) conv->process(in.view, outA.view, stream.get());  // a queue to be behind
    ASSERT_TRUE(conv->retune(b));
    conv->process(in.view, outB.view, stream.get());
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    Difference d = compareImages(outA.download(), runCuda(a, src));
    EXPECT_EQ(d.differing, 0) << "before the retune: " << describe(d);
    d = compareImages(outB.download(), runCuda(b, src));
    EXPECT_EQ(d.differing, 0) << "after the retune: " << describe(d);
#endif
}

// ScopedDevice: a no-op on the current device; with two devices it switches and restores, and a convolver made on
// device 1 filters device-1 images when called from a thread whose current device is 0.
TEST(ScopedDevice, KeepsTheCurrentDevice) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    const int before = currentDevice();
    {
        ScopedDevice on(before);
        EXPECT_EQ(currentDevice(), before);
    }
    EXPECT_EQ(currentDevice(), before);
    EXPECT_THROW(ScopedDevice(cudaDeviceCount() + 3), CudaError);
    EXPECT_EQ(currentDevice(), before);
#endif
}

TEST(ScopedDevice, ObjectsRunOnTheirDevice) {
    SKIP_WITHOUT_DEVICE();
    if (cudaDeviceCount() < 2) GTEST_SKIP() << "needs two CUDA devices";
#ifdef CUDAFILTERS_HAVE_CUDA
    CUDAFILTERS_CHECK(cudaSetDevice(0));
    {
        ScopedDevice on(1);
        EXPECT_EQ(currentDevice(), 1);
    }
    EXPECT_EQ(currentDevice(), 0);

    ConvolveDesc gaussian33 = presetDesc(Preset::Gaussian, 33, 2.0);
    gaussian33.algorithm = ConvolveAlgorithm::Direct;
    const ConvolvePlan plan = ConvolvePlan::make(gaussian33, SampleType::U8, 1);
    ASSERT_EQ(cudaPath(plan), "generic");  // device taps: allocated on the object's device
    HostImage src(200, 150, 1, SampleType::U8);
    src.fillRandom(6);
    CUDAFILTERS_CHECK(cudaSetDevice(1));
    auto conv = makeCudaConvolver(plan);
    auto in = std::make_unique<DevicePlane>(src.width(), src.height(), 1, SampleType::U8, false);
    auto out = std::make_unique<DevicePlane>(src.width(), src.height(), 1, SampleType::U8, false);
    in->upload(src);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    CUDAFILTERS_CHECK(cudaSetDevice(0));
    conv->process(in->view, out->view, nullptr);  // the legacy stream of device 1 (the convolver's device)
    EXPECT_EQ(currentDevice(), 0);
    CUDAFILTERS_CHECK(cudaSetDevice(1));
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    const Difference d = compareImages(out->download(), runReference(plan, src));
    EXPECT_LE(d.maxAbs, 1) << describe(d);
    in.reset();
    out.reset();
    CUDAFILTERS_CHECK(cudaSetDevice(0));
    conv.reset();  // frees its taps on device 1 from device 0
    EXPECT_EQ(currentDevice(), 0);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
#endif
}
