// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel sizes without compiled CUDA kernels, padded with zero taps to the next compiled size (padded_plan.hpp): the
// padded plans themselves (no device needed), then on the device the same bytes as the generic kernel gives the
// unpadded plan (direct: the same sums in the same order), separable plans against the reference, and retune.
#include "cuda_test_images.hpp"

#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

const Border kBorders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};

std::string shapeName(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

ConvolveDesc fullRank(int w, int h, std::uint32_t seed, Border border, bool integer = false) {
    ConvolveDesc d;
    d.kernels = {randomKernel(w, h, seed, integer)};
    d.border = border;
    d.borderValue = 77;
    d.bias = integer ? 0 : 20;
    d.divisor = integer ? 16 : 0;
    d.algorithm = ConvolveAlgorithm::Direct;
    return d;
}

// Binomial taps (integer, sum a power of two): separable plans whose sums are exact in float.
std::vector<float> binomial(int n) {
    std::vector<float> taps{1.f};
    for (int i = 1; i < n; ++i) {
        std::vector<float> next(taps.size() + 1, 0.f);
        for (std::size_t j = 0; j < taps.size(); ++j) next[j] += taps[j], next[j + 1] += taps[j];
        taps = std::move(next);
    }
    return taps;
}

}  // namespace

#ifdef CUDAFILTERS_HAVE_CUDA
using cuda_detail::compiledSizeFor;
using cuda_detail::paddedToCompiledSize;

namespace {

// The plan's output on `src` (source and destination at an odd pitch or not) against the generic kernel's on the plan
// unpadded and unsplit (runGenericKernel).
Difference againstGenericKernel(const ConvolvePlan& plan, HostImage& src, bool oddPitch) {
    return compareImages(runCuda(plan, src, oddPitch), runGenericKernel(plan, src));
}

}  // namespace

TEST(PaddedPlan, CompiledSizes) {
    EXPECT_EQ(compiledSizeFor(1, 1), 3);
    EXPECT_EQ(compiledSizeFor(3, 3), 3);
    EXPECT_EQ(compiledSizeFor(4, 2), 5);
    EXPECT_EQ(compiledSizeFor(2, 6), 7);
    EXPECT_EQ(compiledSizeFor(10, 10), 15);
    EXPECT_EQ(compiledSizeFor(16, 1), 31);
    EXPECT_EQ(compiledSizeFor(31, 31), 31);
    EXPECT_EQ(compiledSizeFor(32, 1), 0);
    EXPECT_EQ(compiledSizeFor(1, 255), 0);
}

// Every tap lands where the anchor (size / 2) lands on the padded anchor; the rest are zeros.
TEST(PaddedPlan, TapsKeepTheirPlaceAroundTheAnchor) {
    for (auto [w, h] : {std::pair{2, 2}, {4, 4}, {4, 2}, {3, 8}, {6, 6}, {11, 11}, {13, 12}, {16, 16}, {21, 21},
                        {30, 31}}) {
        ConvolveDesc d = fullRank(w, h, 3, Border::Reflect101);
        d.kernels.push_back(randomKernel(w, h, 4, false));  // a bank of two: both padded
        const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
        const std::optional<ConvolvePlan> padded = paddedToCompiledSize(plan);
        ASSERT_TRUE(padded) << shapeName(w, h);
        const int s = compiledSizeFor(w, h);
        EXPECT_EQ(padded->kernelWidth, s);
        EXPECT_EQ(padded->kernelHeight, s);
        EXPECT_FALSE(padded->separable);
        ASSERT_EQ(padded->kernels.size(), 2u);
        for (std::size_t n = 0; n < 2; ++n) {
            const Kernel2D& k = padded->kernels[n];
            ASSERT_EQ(k.width, s);
            ASSERT_EQ(k.height, s);
            const int left = s / 2 - w / 2, top = s / 2 - h / 2;
            for (int y = 0; y < s; ++y)
                for (int x = 0; x < s; ++x) {
                    const bool inside = x >= left && x < left + w && y >= top && y < top + h;
                    EXPECT_EQ(k.at(x, y), inside ? plan.kernels[n].at(x - left, y - top) : 0.f)
                        << shapeName(w, h) << " tap " << x << "," << y;
                }
        }
        // Nothing else of the plan changes.
        EXPECT_TRUE(padded->bias == plan.bias && padded->border == plan.border && padded->combine == plan.combine &&
                    padded->borderValue == plan.borderValue && padded->channelMask == plan.channelMask);
    }
}

TEST(PaddedPlan, SeparableFactorsArePadded) {
    for (int size : {2, 4, 11, 13, 21, 29}) {
        const ConvolvePlan plan = ConvolvePlan::make(presetDesc(Preset::Box, size), SampleType::U8, 3);
        ASSERT_TRUE(plan.separable);
        const std::optional<ConvolvePlan> padded = paddedToCompiledSize(plan);
        ASSERT_TRUE(padded) << size;
        const int s = compiledSizeFor(size, size), left = s / 2 - size / 2;
        ASSERT_TRUE(padded->separable);
        ASSERT_EQ(int(padded->row.size()), s);
        ASSERT_EQ(int(padded->column.size()), s);
        for (int i = 0; i < s; ++i) {
            const bool inside = i >= left && i < left + size;
            EXPECT_EQ(padded->row[i], inside ? plan.row[i - left] : 0.f) << size << " row " << i;
            EXPECT_EQ(padded->column[i], inside ? plan.column[i - left] : 0.f) << size << " column " << i;
        }
        EXPECT_EQ(padded->kernels[0].at(s / 2, s / 2), plan.kernels[0].at(size / 2, size / 2));
    }
    // Non-square: a 1 × 13 row of taps runs as 15 × 15 passes, its column a single tap in the middle.
    ConvolveDesc row;
    row.row = binomial(13);
    row.column = {1.f};
    const std::optional<ConvolvePlan> padded = paddedToCompiledSize(ConvolvePlan::make(row, SampleType::U16, 1));
    ASSERT_TRUE(padded && padded->separable);
    EXPECT_EQ(padded->column, (std::vector<float>{0, 0, 0, 0, 0, 0, 0, padded->column[7], 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_NE(padded->column[7], 0.f);
}

TEST(PaddedPlan, WhereItDoesNotApply) {
    auto padded = [](const ConvolveDesc& d, int channels = 1) {
        return paddedToCompiledSize(ConvolvePlan::make(d, SampleType::U8, channels)).has_value();
    };
    EXPECT_FALSE(padded(fullRank(3, 3, 1, Border::Replicate)));    // compiled
    EXPECT_FALSE(padded(fullRank(31, 31, 1, Border::Replicate)));  // compiled
    EXPECT_FALSE(padded(fullRank(33, 3, 1, Border::Replicate)));   // no compiled size holds it
    EXPECT_FALSE(padded(fullRank(2, 31, 1, Border::Replicate)));   // 961 taps for 62: the generic kernel
    EXPECT_TRUE(padded(fullRank(4, 31, 1, Border::Replicate)));    // 961 for 124
    ConvolveDesc bank3 = fullRank(6, 6, 1, Border::Replicate);
    bank3.kernels.push_back(randomKernel(6, 6, 2, false));
    bank3.kernels.push_back(randomKernel(6, 6, 3, false));
    EXPECT_FALSE(padded(bank3));  // three 7 × 7 kernels combined into one sample: the generic kernel anyway
    bank3.combine = Combine::Channels;  // ... but written to three channels: launches of at most two (splitBanks)
    EXPECT_TRUE(padded(bank3));
    bank3.kernels.push_back(randomKernel(6, 6, 4, false));
    EXPECT_TRUE(padded(bank3));  // four (combine=channels takes no more)
    ConvolveDesc bank8 = fullRank(4, 4, 1, Border::Replicate);  // 5 × 5 banks of up to 8 in one direct launch
    for (int n = 2; n <= 8; ++n) bank8.kernels.push_back(randomKernel(4, 4, std::uint32_t(n), false));
    EXPECT_TRUE(padded(bank8));
    bank8.kernels.push_back(randomKernel(4, 4, 9, false));
    EXPECT_FALSE(padded(bank8));
    ConvolveDesc multi;
    multi.mode = ConvolveMode::MultiChannel;
    multi.outputs = 1;
    multi.kernels = {randomKernel(4, 4, 1, false), randomKernel(4, 4, 2, false)};
    EXPECT_FALSE(padded(multi, 2));
    // A constant border value past float's range meets zero taps as an infinity (0 · ∞ is NaN).
    ConvolveDesc huge = fullRank(4, 4, 1, Border::Constant);
    huge.borderValue = 1e39;
    EXPECT_FALSE(padded(huge));
}

// A separable plan whose row sums might overflow float (met by the column's zero taps) is padded as the full-rank
// plan it also is; its intermediate rows never exist then.
TEST(PaddedPlan, RowSumsThatMightOverflowArePaddedAsFullRank) {
    ConvolveDesc d;
    // Row sums reach 13 · 1e35 · 255 (past half of float's largest), the full-rank taps 1e35 · 924 stay floats.
    d.row = std::vector<float>(13, 1e35f);
    d.column = binomial(13);
    d.divisor = 1;
    const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, 1);
    ASSERT_TRUE(plan.separable);
    const std::optional<ConvolvePlan> padded = paddedToCompiledSize(plan);
    ASSERT_TRUE(padded);
    EXPECT_FALSE(padded->separable);
    EXPECT_EQ(padded->kernelWidth, 15);
    // A constant border value near float's largest does the same to an ordinary Gaussian.
    ConvolveDesc g = presetDesc(Preset::Gaussian, 13);
    g.border = Border::Constant;
    g.borderValue = 3e38;
    const std::optional<ConvolvePlan> far = paddedToCompiledSize(ConvolvePlan::make(g, SampleType::U8, 1));
    ASSERT_TRUE(far);
    EXPECT_FALSE(far->separable);
    g.borderValue = 1e30;
    const std::optional<ConvolvePlan> near = paddedToCompiledSize(ConvolvePlan::make(g, SampleType::U8, 1));
    ASSERT_TRUE(near);
    EXPECT_TRUE(near->separable);
}
#endif

// Full-rank plans padded to a compiled direct kernel: byte for byte what the generic kernel gives the plan unpadded
// (both sum the taps row by row in fused multiply-adds; the zeros change nothing), on random frames of odd sizes, every
// border, u8 of 1, 3 and 4 channels and u16, banks of two.
TEST(PaddedSizes, DirectSameBytesAsTheGenericKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    int seed = 1;
    for (auto [w, h] : {std::pair{2, 2}, {4, 4}, {4, 2}, {3, 8}, {6, 6}, {8, 8}, {10, 10}, {11, 11}, {12, 12},
                        {13, 13}, {14, 14}, {13, 12}, {17, 17}, {21, 21}, {25, 25}, {29, 29}, {30, 31}}) {
        for (Border border : kBorders) {
            ++seed;
            struct Frame {
                int width, height, channels;
                SampleType type;
            };
            for (const Frame& f : {Frame{97, 61, 1, SampleType::U8}, Frame{7, 3, 1, SampleType::U8},
                                   Frame{131, 37, 3, SampleType::U8}, Frame{64, 45, 4, SampleType::U8},
                                   Frame{53, 29, 1, SampleType::U16}}) {
                ConvolveDesc d = fullRank(w, h, seed, border, seed % 3 == 0);
                if (f.type == SampleType::U16) d.borderValue = 40000;
                if (seed % 4 == 1) d.kernels.push_back(randomKernel(w, h, seed + 100, false));  // magnitude of two
                const ConvolvePlan plan = ConvolvePlan::make(d, f.type, f.channels);
                const std::string what = shapeName(w, h) + " " + std::to_string(int(border)) + " " +
                                         shapeName(f.width, f.height) + "x" + std::to_string(f.channels) + " " +
                                         sampleTypeName(f.type) + " bank " + std::to_string(d.kernels.size());
                ASSERT_EQ(cudaPath(plan), "direct") << what;
                HostImage src(f.width, f.height, f.channels, f.type);
                src.fillRandom(std::uint32_t(seed));
                const Difference diff = againstGenericKernel(plan, src, seed % 2 == 0);
                EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
            }
        }
    }
#endif
}

// Separable plans padded to compiled passes, against the reference: within 1 with real taps, exact with binomial
// taps (integer, a power-of-two divisor) whose sums fit float's 24 bits; odd frames of 1 to 4 channels, every border,
// u16. Then frames the u8 streaming kernel takes (K = 15 and 31, 1 and 4 channels, 1080p and 4K: its edge strips and
// segments) against the CPU backend (two float passes; the reference's K² taps a sample in double would take minutes
// there).
TEST(PaddedSizes, SeparableAgainstTheReference) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Frame {
        int width, height, channels;
        SampleType type;
    };
    const Frame frames[] = {{197, 93, 1, SampleType::U8}, {7, 3, 1, SampleType::U8},  {203, 97, 2, SampleType::U8},
                            {131, 67, 3, SampleType::U8}, {160, 90, 4, SampleType::U8}, {97, 61, 1, SampleType::U16}};
    std::vector<std::pair<std::string, ConvolveDesc>> plans;
    for (int size : {11, 13, 17, 21, 25, 29})
        plans.push_back({"gaussian" + std::to_string(size), presetDesc(Preset::Gaussian, size)});
    for (int size : {2, 4, 6, 8, 10, 12, 16, 20})
        plans.push_back({"box" + std::to_string(size), presetDesc(Preset::Box, size)});
    for (auto [w, h] : {std::pair{1, 13}, {13, 1}, {4, 11}, {6, 2}, {12, 12}, {19, 23}}) {
        ConvolveDesc d;
        d.row = binomial(w);
        d.column = binomial(h);
        plans.push_back({"binomial" + shapeName(w, h), d});
    }
    int seed = 0;
    for (auto& [name, desc] : plans)
        for (Border border : kBorders) {
            ++seed;
            for (const Frame& f : frames) {
                ConvolveDesc d = desc;
                d.border = border;
                d.borderValue = f.type == SampleType::U16 ? 40000 : 77;
                const ConvolvePlan plan = ConvolvePlan::make(d, f.type, f.channels);
                const std::string what = name + " " + std::to_string(int(border)) + " " + shapeName(f.width, f.height) +
                                         "x" + std::to_string(f.channels) + " " + sampleTypeName(f.type);
                ASSERT_EQ(cudaPath(plan, f.width, f.height), "separable") << what;
                HostImage src(f.width, f.height, f.channels, f.type);
                src.fillRandom(std::uint32_t(seed));
                const Difference diff =
                    compareImages(runCuda(plan, src, seed % 2 == 1), runReference(plan, src));
                // Binomial taps sum exactly while every sum fits float's 24 bits: the largest sample times
                // 2^(w − 1) · 2^(h − 1) (the taps' sums; the divisor, a power of two, scales exactly).
                const int bits = f.type == SampleType::U8 ? 8 : 16;
                const bool exact =
                    name.rfind("binomial", 0) == 0 && bits + plan.kernelWidth + plan.kernelHeight - 2 <= 24;
                EXPECT_LE(diff.maxAbs, exact ? 0 : 1) << what << ": " << describe(diff);
            }
        }
    for (auto [w, h, channels] : {std::tuple{1921, 1081, 1}, {1920, 1080, 4}, {3840, 2160, 1}, {3840, 2160, 4}})
        for (int size : {4, 13, 21}) {
            ConvolveDesc d = presetDesc(size % 2 ? Preset::Gaussian : Preset::Box, size);
            d.border = size == 13 ? Border::Constant : Border::Reflect101;
            d.borderValue = 200;
            const ConvolvePlan plan = ConvolvePlan::make(d, SampleType::U8, channels);
            const std::string what = std::to_string(size) + " " + shapeName(w, h) + "x" + std::to_string(channels);
            ASSERT_EQ(cudaPath(plan, w, h), "separable") << what;
            HostImage src(w, h, channels, SampleType::U8);
            src.fillRandom(std::uint32_t(size * channels + w));
            const Difference diff = compareImages(runCuda(plan, src), runBackend(Backend::Cpu, plan, src));
            EXPECT_LE(diff.maxAbs, 1) << what << ": " << describe(diff);
        }
#endif
}

// Banks of three and four kernels written to their own output channels (output=channels), compiled sizes and padded
// ones, run as direct launches of at most two kernels: byte for byte the generic kernel's (padding and splitting off),
// u8 and u16, odd frames, every border.
TEST(PaddedSizes, ChannelBanksSameBytesAsTheGenericKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    std::uint32_t seed = 500;
    for (int bank : {3, 4})
        for (int size : {3, 4, 5, 9, 13, 31})
            for (Border border : kBorders)
                for (SampleType type : {SampleType::U8, SampleType::U16}) {
                    ++seed;
                    ConvolveDesc d = fullRank(size, size, seed, border, seed % 2 == 0);
                    for (int n = 1; n < bank; ++n) d.kernels.push_back(randomKernel(size, size, seed + 10 * n, false));
                    d.combine = Combine::Channels;
                    d.bias = 64;
                    const ConvolvePlan plan = ConvolvePlan::make(d, type, 1);
                    const std::string what = std::to_string(bank) + " kernels " + shapeName(size, size) + " " +
                                             std::to_string(int(border)) + " " + sampleTypeName(type);
                    ASSERT_EQ(plan.outputChannels, bank) << what;
                    ASSERT_EQ(cudaPath(plan), "direct") << what;
                    HostImage src(size == 31 ? 67 : 131, 43, 1, type);
                    src.fillRandom(seed);
                    const Difference diff = againstGenericKernel(plan, src, seed % 3 == 0);
                    EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                }
#endif
}

// Banks of 3 to 8 kernels at K = 3 and 5 (and 4 × 4, padded), each combine, in one direct launch: byte for byte the
// generic kernel's (the same sums, combined in the same order), u8 of 1 and 3 channels and u16, every border.
TEST(PaddedSizes, DirectBanksSameBytesAsTheGenericKernel) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    std::uint32_t seed = 900;
    for (int bank = 3; bank <= 8; ++bank)
        for (int size : {3, 4, 5})
            for (Combine combine : {Combine::Magnitude, Combine::Sum, Combine::MaxAbs})
                for (SampleType type : {SampleType::U8, SampleType::U16}) {
                    ++seed;
                    const Border border = kBorders[seed % 5];
                    const int channels = type == SampleType::U8 && seed % 2 ? 3 : 1;
                    ConvolveDesc d = fullRank(size, size, seed, border, seed % 3 == 0);
                    for (int n = 1; n < bank; ++n) d.kernels.push_back(randomKernel(size, size, seed + 10 * n, false));
                    d.combine = combine;
                    d.bias = combine == Combine::Sum ? 128 : 0;
                    const ConvolvePlan plan = ConvolvePlan::make(d, type, channels);
                    const std::string what = std::to_string(bank) + " kernels " + shapeName(size, size) + " combine " +
                                             std::to_string(int(combine)) + " border " + std::to_string(int(border)) +
                                             " x" + std::to_string(channels) + " " + sampleTypeName(type);
                    ASSERT_EQ(cudaPath(plan), "direct") << what;
                    HostImage src(seed % 4 == 0 ? 7 : 203, seed % 4 == 0 ? 3 : 77, channels, type);
                    src.fillRandom(seed);
                    const Difference diff = againstGenericKernel(plan, src, seed % 3 == 1);
                    EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                }
#endif
}

// New values for a padded plan (same size): taken in place, the output as a new convolver's; another size is refused.
TEST(PaddedSizes, RetuneKeepsThePadding) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(211, 97, 1, SampleType::U8);
    src.fillRandom(5);
    for (bool separable : {true, false}) {
        auto desc = [&](std::uint32_t seed) {
            if (separable) return presetDesc(Preset::Gaussian, 13, 1.0 + seed);
            return fullRank(13, 13, seed, Border::Reflect101);
        };
        const ConvolvePlan a = ConvolvePlan::make(desc(1), SampleType::U8, 1);
        const ConvolvePlan b = ConvolvePlan::make(desc(2), SampleType::U8, 1);
        ASSERT_EQ(cudaPath(a), separable ? "separable" : "direct");
        auto conv = makeCudaConvolver(a);
        const HostImage before = runCuda(*conv, src);
        ASSERT_TRUE(conv->retune(b)) << separable;
        const HostImage after = runCuda(*conv, src);
        EXPECT_EQ(compareImages(after, runCuda(b, src)).differing, 0) << separable;
        EXPECT_GT(compareImages(before, after).differing, 0) << separable << ": the new taps changed nothing";
        const ConvolvePlan other = ConvolvePlan::make(separable ? presetDesc(Preset::Gaussian, 11)
                                                                : fullRank(11, 11, 3, Border::Reflect101),
                                                      SampleType::U8, 1);
        EXPECT_FALSE(conv->retune(other)) << separable;
    }
#endif
}
