// SPDX-License-Identifier: LGPL-2.1-or-later
// 10-bit samples in 16-bit containers: the reference rounds and saturates on levels of the format's depth and stores
// them in the container's bits, and the CPU backend matches it.
#include "sample_bits_cases.hpp"

#include <cudafilters/error.hpp>

#include <gtest/gtest.h>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

HostImage shifted(const HostImage& image, int shift) {
    HostImage out = image;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c) {
                const unsigned v = unsigned(image.sample(x, y, c));
                out.setSample(x, y, c, double(shift >= 0 ? v << shift : v >> -shift));
            }
    return out;
}

class SampleBitsCpu : public ::testing::TestWithParam<BitsCase> {};

// P010 (10 bits at bit 6) gives exactly the bits of the same 10-bit levels filtered at bit 0, shifted left by 6:
// scaling by a power of two is exact, so rounding and saturation happen on the levels.
TEST(SampleBits, HighBitsAreTheLowBitsResultShifted) {
    for (const BitsCase& c : bitsCases()) {
        if (c.bits.shift == 0) continue;
        HostImage levels(37, 23, 1, SampleType::U16);
        levels.fillRandom(5);
        keepBits(levels, SampleBits::low(10));
        HostImage stored = shifted(levels, c.bits.shift);
        ConvolveDesc low = c.desc;
        low.bias /= double(1 << c.bits.shift);
        low.borderValue /= double(1 << c.bits.shift);
        HostImage expected =
            shifted(runReference(ConvolvePlan::make(low, SampleType::U16, 1, SampleBits::low(10)),
                               levels),
                    c.bits.shift);
        HostImage got =
            runReference(ConvolvePlan::make(c.desc, SampleType::U16, 1, c.bits), stored);
        const Difference d = compareImages(got, expected);
        EXPECT_EQ(d.maxAbs, 0) << c.name << ": " << describe(d);
    }
}

TEST(SampleBits, SaturatesAtTheTopLevelInTheContainersBits) {
    ConvolveDesc desc;
    desc.kernels = {{1, 1, {1.0f}}};
    desc.bias = 1e6;
    for (SampleBits bits : {SampleBits::low(10), SampleBits::high(10), SampleBits::full()}) {
        HostImage src(5, 3, 1, SampleType::U16);
        src.fillRandom(9);
        keepBits(src, bits);
        for (reference::Impl backend : {reference::Impl::Reference, reference::Impl::Cpu}) {
            HostImage out = runBackend(backend, ConvolvePlan::make(desc, SampleType::U16, 1, bits), src);
            const SampleBits b = resolveBits(SampleType::U16, bits);
            for (int y = 0; y < 3; ++y)
                for (int x = 0; x < 5; ++x)
                    EXPECT_EQ(out.sample(x, y, 0), double(maxLevel(b) << b.shift))
                        << b.depth << " bits at " << b.shift << ", " << reference::implName(backend);
        }
    }
}

TEST(SampleBits, LayoutsThatDoNotFitAreRejected) {
    ConvolveDesc desc;
    desc.kernels = {{1, 1, {1.0f}}};
    EXPECT_THROW(ConvolvePlan::make(desc, SampleType::U8, 1, SampleBits::low(10)), InvalidArgument);
    EXPECT_THROW(ConvolvePlan::make(desc, SampleType::U16, 1, SampleBits{12, 6}), InvalidArgument);
    const ConvolvePlan a = ConvolvePlan::make(desc, SampleType::U16, 1, SampleBits::low(10));
    const ConvolvePlan b = ConvolvePlan::make(desc, SampleType::U16, 1, SampleBits::high(10));
    EXPECT_FALSE(a.sameShape(b));  // another layout is another Convolver
}

TEST_P(SampleBitsCpu, CpuBackendMatchesReference) {
    const BitsCase& c = GetParam();
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 3}, {385, 289}}) {
        HostImage src(w, h, 1, SampleType::U16);
        src.fillRandom(std::uint32_t(w * 31 + h));
        keepBits(src, c.bits);
        const ConvolvePlan plan = ConvolvePlan::make(c.desc, SampleType::U16, 1, c.bits);
        const HostImage expected = runReference(plan, src);
        const HostImage got = runBackend(Backend::Cpu, plan, src);
        const Difference d = compareImages(got, expected);
        // Real taps: the accumulation order may move a result across a rounding boundary, by one level.
        EXPECT_LE(d.maxAbs, c.exact ? 0 : double(1 << c.bits.shift)) << c.name << " " << w << "x" << h << ": "
                                                                      << describe(d);
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, SampleBitsCpu, ::testing::ValuesIn(bitsCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
