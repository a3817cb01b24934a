// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's DFT path (OpenCV's cv::dft) against the reference, and the choice algorithm=auto makes.
#include "fft_cases.hpp"

#include <cudafilters/convolve_crossover.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <string>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

class CpuDftVsReference : public ::testing::TestWithParam<FftCase> {};

}  // namespace

TEST_P(CpuDftVsReference, WithinOneLsb) {
    const FftCase& c = GetParam();
    HostImage src(c.width, c.height, c.channels, c.type);
    fillContent(src, c.content, c.width * 7 + c.height);
    const ConvolvePlan plan = ConvolvePlan::make(c.desc, c.type, c.channels);
    ASSERT_TRUE(fftChosen(Backend::Cpu, plan, c.width, c.height));
    const HostImage actual = runBackend(Backend::Cpu, plan, src);
    EXPECT_TRUE(actual.paddingIntact());
    EXPECT_LE(reportAgreement(actual, runReference(plan, src), c.name), 1);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CpuDftVsReference, ::testing::ValuesIn(fftCases()),
                         [](const auto& info) { return info.param.name; });

#ifdef CUDAFILTERS_HAVE_OPENCV
// The DFT really runs: with taps 2 and 1 and divisor 4 a quarter of the results are exact ties (x.5), which direct
// summation in float rounds to even every time, and the DFT's last-bit errors round either way; each result stays
// within 1 of the reference.
// algorithm=fft on frames OpenCV's DFT does not take (1x1, found by the element fuzzer: cv::dft threw through the
// element and ended the process) gives the direct result instead of an exception.
TEST(CpuDft, SizesTheDftDoesNotTakeAreSummedDirectly) {
    for (int size : {1, 2, 3}) {
        SCOPED_TRACE(size);
        HostImage src(size, size, 1, SampleType::U8);
        src.fillRandom(5 + size);
        Kernel2D taps{1, 1, {2.f}};
        ConvolveDesc d = fftDesc({taps}, Border::Replicate, SampleType::U8);
        d.divisor = 3;
        const ConvolvePlan fft = ConvolvePlan::make(d, SampleType::U8, 1);
        auto conv = makeConvolver(fft, Backend::Cpu);
        conv->prepare(size, size);
        HostImage out(size, size, 1, SampleType::U8);
        conv->process(src.view(), out.view(), nullptr);
        EXPECT_LE(compareImages(out, runReference(fft, src)).maxAbs, 1);
    }
}

TEST(CpuDft, IsADifferentComputationThanDirect) {
    HostImage src(257, 131, 1, SampleType::U8);
    src.fillRandom(3);
    Kernel2D taps{33, 33, std::vector<float>(33 * 33, 0.f)};
    taps.taps[16 * 33 + 16] = 2;
    taps.taps[0] = 1;
    ConvolveDesc d = fftDesc({taps}, Border::Reflect101, SampleType::U8);
    d.divisor = 4;
    const ConvolvePlan fft = ConvolvePlan::make(d, SampleType::U8, 1);
    d.algorithm = ConvolveAlgorithm::Direct;
    const ConvolvePlan direct = ConvolvePlan::make(d, SampleType::U8, 1);
    const HostImage reference = runReference(direct, src);
    const HostImage viaDft = runBackend(Backend::Cpu, fft, src);
    const HostImage viaDirect = runBackend(Backend::Cpu, direct, src);
    EXPECT_EQ(compareImages(viaDirect, reference).differing, 0);
    EXPECT_LE(compareImages(viaDft, reference).maxAbs, 1);
    EXPECT_GT(compareImages(viaDft, viaDirect).differing, 0);
}
#endif

// New taps of the same size on the DFT path make new spectra: the result is the fresh convolver's.
TEST(CpuDft, RetuneRemakesTheSpectra) {
    HostImage src(150, 90, 1, SampleType::U8);
    fillGradient(src, 5);
    const ConvolvePlan a = ConvolvePlan::make(fftDesc({diskKernel(31, 1)}, Border::Replicate, SampleType::U8),
                                              SampleType::U8, 1);
    const ConvolvePlan b = ConvolvePlan::make(
        fftDesc({sharpenKernel(31, 31, 2)}, Border::Replicate, SampleType::U8), SampleType::U8, 1);
    auto conv = makeConvolver(a, Backend::Cpu);
    conv->prepare(src.width(), src.height());
    HostImage first = outputFor(a, src.width(), src.height());
    conv->process(src.view(), first.view());
    ASSERT_TRUE(conv->retune(b));
    HostImage second = outputFor(b, src.width(), src.height());
    conv->process(src.view(), second.view());
    EXPECT_EQ(compareImages(second, runBackend(Backend::Cpu, b, src)).differing, 0);
    EXPECT_LE(compareImages(second, runReference(b, src)).maxAbs, 1);
    EXPECT_GT(compareImages(first, second).differing, 0);
}

// algorithm=auto: the FFT from the table's kernel size on, never for separable kernels or the identity, never under
// algorithm=direct; the reference never (it has no FFT: under algorithm=fft it computes what it does under direct).
TEST(FftCrossover, AutoFollowsTheTable) {
    const int k = fftCrossoverSize(Backend::Cpu, SampleType::U8, 1920, 1080);
    ASSERT_GT(k, 1);
    auto plan = [](int size, ConvolveAlgorithm algorithm) {
        ConvolveDesc d = fftDesc({sharpenKernel(size, size, 1)}, Border::Reflect101, SampleType::U8);
        d.algorithm = algorithm;
        return ConvolvePlan::make(d, SampleType::U8, 1);
    };
    EXPECT_TRUE(fftChosen(Backend::Cpu, plan(k, ConvolveAlgorithm::Auto), 1920, 1080));
    EXPECT_FALSE(fftChosen(Backend::Cpu, plan(k - 1, ConvolveAlgorithm::Auto), 1920, 1080));
    EXPECT_TRUE(fftChosen(Backend::Cpu, plan(k - 1, ConvolveAlgorithm::Fft), 1920, 1080));
    EXPECT_FALSE(fftChosen(Backend::Cpu, plan(k, ConvolveAlgorithm::Direct), 1920, 1080));
    HostImage src(64, 48, 1, SampleType::U8);
    src.fillRandom(5);
    EXPECT_EQ(compareImages(runReference(plan(k, ConvolveAlgorithm::Fft), src),
                            runReference(plan(k, ConvolveAlgorithm::Direct), src))
                  .differing,
              0);
    ConvolveDesc gaussian = presetDesc(Preset::Gaussian, 2 * k + 1);
    EXPECT_FALSE(fftChosen(Backend::Cpu, ConvolvePlan::make(gaussian, SampleType::U8, 1), 1920, 1080));
    gaussian.algorithm = ConvolveAlgorithm::Fft;
    EXPECT_TRUE(fftChosen(Backend::Cpu, ConvolvePlan::make(gaussian, SampleType::U8, 1), 1920, 1080));
    ConvolveDesc identity = presetDesc(Preset::Identity);
    identity.algorithm = ConvolveAlgorithm::Fft;
    EXPECT_FALSE(fftChosen(Backend::Cpu, ConvolvePlan::make(identity, SampleType::U8, 1), 1920, 1080));
}

// Every backend and sample type has rows, in increasing frame sizes, the last covering any frame; the CPU's two
// crossovers are one (it has one direct path).
TEST(FftCrossover, TableCoversEverySize) {
    for (Backend backend : {Backend::Cpu, Backend::Cuda})
        for (SampleType type : {SampleType::U8, SampleType::U16}) {
            long long previous = 0;
            bool last = false;
            for (const FftCrossover& row : fftCrossoverTable()) {
                if (row.backend != backend || row.type != type) continue;
                EXPECT_GT(row.maxPixels, previous);
                for (int k : {row.kernelSize, row.genericKernelSize}) {
                    EXPECT_GE(k, 0);
                    EXPECT_LE(k, kMaxKernelSize + 1);
                }
                if (backend == Backend::Cpu) {
                    EXPECT_EQ(row.kernelSize, row.genericKernelSize);
                }
                previous = row.maxPixels;
                last = row.maxPixels == LLONG_MAX;
            }
            EXPECT_TRUE(last) << backendName(backend) << " " << sampleTypeName(type);
        }
}

// The CUDA rows mean what convolve_crossover.hpp says, checked without a device: at the smallest frame past the row
// before and at the row's largest, against the compiled direct kernels and against the generic one, kernels of at
// least the row's area (K × K, K × (K + 1)) take the FFT, a kernel one row short of it (K × (K − 1)) sums directly, and
// 0 never takes the FFT; separable kernels only where they have no compiled passes.
TEST(FftCrossover, CudaRowsPerDirectPath) {
    auto plan = [](int kw, int kh, SampleType type) {
        ConvolveDesc d = fftDesc({sharpenKernel(kw, kh, 1)}, Border::Reflect101, type);
        d.algorithm = ConvolveAlgorithm::Auto;
        return ConvolvePlan::make(d, type, 1);
    };
    for (SampleType type : {SampleType::U8, SampleType::U16}) {
        const ConvolvePlan largest = plan(kMaxKernelSize, kMaxKernelSize, type);
        long long previous = 0;
        for (const FftCrossover& row : fftCrossoverTable()) {
            if (row.backend != Backend::Cuda || row.type != type) continue;
            const long long last = row.maxPixels == LLONG_MAX ? 7680LL * 4320 : row.maxPixels;
            for (long long pixels : {previous + 1, last}) {
                const int w = int(pixels), h = 1;  // the table reads the area only
                for (bool generic : {false, true}) {
                    const int k = generic ? row.genericKernelSize : row.kernelSize;
                    const std::string where = std::string(sampleTypeName(type)) + " " + std::to_string(pixels) +
                                              " px, " + (generic ? "generic" : "compiled") + ", K = " + std::to_string(k);
                    EXPECT_EQ(fftCrossoverSize(Backend::Cuda, type, w, h, generic), k) << where;
                    if (k == 0) {
                        EXPECT_FALSE(fftChosen(Backend::Cuda, largest, w, h, generic)) << where;
                        continue;
                    }
                    EXPECT_TRUE(fftChosen(Backend::Cuda, plan(k, k, type), w, h, generic)) << where;
                    if (k < kMaxKernelSize) {
                        EXPECT_TRUE(fftChosen(Backend::Cuda, plan(k, k + 1, type), w, h, generic)) << where;
                    }
                    EXPECT_FALSE(fftChosen(Backend::Cuda, plan(k, k - 1, type), w, h, generic)) << where;
                }
            }
            previous = row.maxPixels;
        }
        // A separable kernel keeps its compiled 1-D passes; without them (63 x 63) it would sum all taps in the
        // generic kernel, and is compared as such.
        ConvolveDesc gaussian = presetDesc(Preset::Gaussian, 63);
        EXPECT_FALSE(fftChosen(Backend::Cuda, ConvolvePlan::make(gaussian, type, 1), 1920, 1080, false));
        EXPECT_TRUE(fftChosen(Backend::Cuda, ConvolvePlan::make(gaussian, type, 1), 1920, 1080, true));
        EXPECT_FALSE(fftChosen(Backend::Cpu, ConvolvePlan::make(gaussian, type, 1), 1920, 1080));
    }
    // The FFT bars' sizes (1080p GRAY8 K = 63, 127, 255; 4K RGBA K = 63) have no compiled direct kernel: they take
    // the FFT under auto.
    for (int k : {63, 127, 255})
        EXPECT_TRUE(fftChosen(Backend::Cuda, plan(k, k, SampleType::U8), 1920, 1080, true)) << k;
    EXPECT_TRUE(fftChosen(Backend::Cuda, plan(63, 63, SampleType::U8), 3840, 2160, true));
}
