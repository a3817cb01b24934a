// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's FFT path (cuFFT) against the reference: the cases of fft_cases.hpp (every border, 8 and 16 bits,
// random frames, gradients, odd sizes, banks, channels, multi-channel), video-sized frames checked at sampled pixels,
// what is made once per size, retune, streams, and the choice algorithm=auto makes. Skipped without a CUDA device;
// cuFFT (libcufft.so.12) must be loadable where a device is.
#include "cuda_test_images.hpp"
#include "fft_cases.hpp"

#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/convolve_crossover.hpp>
#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

class CudaFftVsReference : public ::testing::TestWithParam<FftCase> {};

#ifdef CUDAFILTERS_HAVE_CUDA
// The definition at sampled pixels (half of them within 40 samples of an edge), in double, for Filter plans: for
// frames too large for the whole reference. Returns the largest difference and counts the samples checked and equal.
double sampledDifference(const ConvolvePlan& plan, const HostImage& src, const HostImage& out, int samples,
                         long& checked, long& equal) {
    std::mt19937 rng(11);
    const int w = src.width(), h = src.height();
    double worst = 0;
    for (int i = 0; i < samples; ++i) {
        int x = std::uniform_int_distribution<int>(0, w - 1)(rng), y = std::uniform_int_distribution<int>(0, h - 1)(rng);
        if (i % 2) x = i % 4 == 1 ? x % 40 : w - 1 - x % 40;
        if (i % 3 == 0) y = i % 2 ? y % 40 : h - 1 - y % 40;
        for (int c = 0; c < plan.outputChannels; ++c) {
            int want;
            if (!(plan.channelMask & (1u << c))) {
                want = int(src.sample(x, y, c));
            } else {
                double acc = combineInit<double>(plan.combine);
                for (const Kernel2D& k : plan.kernels) {
                    double sum = 0;
                    for (int ky = 0; ky < k.height; ++ky) {
                        const int sy = borderIndex(y + ky - k.height / 2, h, plan.border);
                        for (int kx = 0; kx < k.width; ++kx) {
                            const int sx = borderIndex(x + kx - k.width / 2, w, plan.border);
                            sum += double(k.at(kx, ky)) * (sx < 0 || sy < 0 ? double(plan.borderValue) : src.sample(sx, sy, c));
                        }
                    }
                    acc = combineAdd(plan.combine, acc, sum);
                }
                want = finishSample(combineFinish(plan.combine, acc), plan.bias, plan.absolute, maxSampleValue(plan.type));
            }
            const double diff = std::abs(out.sample(x, y, c) - want);
            worst = std::max(worst, diff);
            ++checked;
            equal += diff == 0;
        }
    }
    return worst;
}

std::size_t freeDeviceMemory() {
    std::size_t free = 0, total = 0;
    CUDAFILTERS_CHECK(cudaMemGetInfo(&free, &total));
    return free;
}
#endif

}  // namespace

TEST_P(CudaFftVsReference, WithinOneLsb) {
    SKIP_WITHOUT_DEVICE();
    const FftCase& c = GetParam();
    HostImage src(c.width, c.height, c.channels, c.type);
    fillContent(src, c.content, c.width * 7 + c.height);
    const ConvolvePlan plan = ConvolvePlan::make(c.desc, c.type, c.channels);
    ASSERT_EQ(cudaPath(plan, c.width, c.height), "fft");
    const HostImage actual = runCuda(plan, src, (c.width + c.height) % 2 == 1);
    EXPECT_TRUE(src.paddingIntact());
    EXPECT_LE(reportAgreement(actual, runReference(plan, src), c.name), 1);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CudaFftVsReference, ::testing::ValuesIn(fftCases()),
                         [](const auto& info) { return info.param.name; });

// Video sizes of the bars: 1080p GRAY8 K = 127 and 255, 4K RGBA K = 63 (alpha copied), 1080p GRAY16 K = 63, checked
// at sampled pixels.
TEST(CudaFft, VideoFramesAtSampledPixels) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    struct Video { int w, h, channels, k; SampleType type; Border border; };
    for (const Video& v : {Video{1920, 1080, 1, 127, SampleType::U8, Border::Replicate},
                           Video{1920, 1080, 1, 255, SampleType::U8, Border::Reflect101},
                           Video{3840, 2160, 4, 63, SampleType::U8, Border::Reflect},
                           Video{1920, 1080, 1, 63, SampleType::U16, Border::Constant}}) {
        ConvolveDesc d = fftDesc({diskKernel(v.k, 3)}, v.border, v.type);
        d.channelMask = 0x7;
        const ConvolvePlan plan = ConvolvePlan::make(d, v.type, v.channels);
        ASSERT_EQ(cudaPath(plan, v.w, v.h), "fft");
        HostImage src(v.w, v.h, v.channels, v.type);
        fillGradient(src, 9);
        const HostImage out = runCuda(plan, src);
        long checked = 0, equal = 0;
        const double worst = sampledDifference(plan, src, out, 300, checked, equal);
        const std::string name = std::to_string(v.w) + "x" + std::to_string(v.h) + "x" + std::to_string(v.channels) +
                                 " K=" + std::to_string(v.k) + " " + sampleTypeName(v.type);
        std::printf("[ fft      ] %-40s sampled %ld, equal %.2f %%, max |diff| %d\n", name.c_str(), checked,
                    100.0 * double(equal) / double(checked), int(worst));
        EXPECT_LE(worst, 1) << name;
    }
#endif
}

// Everything is made by prepare(): the first frame allocates at most what the lazy loading of the kernels' code takes
// (far less than the planes and spectra of a 1080p frame, ~37 MB), the frames after it nothing; a frame of another
// size is prepared by process() itself and still comes out right.
TEST(CudaFft, PreparedOnceAllocatesNothingPerFrame) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    const ConvolvePlan plan =
        ConvolvePlan::make(fftDesc({diskKernel(63, 5)}, Border::Reflect101, SampleType::U8), SampleType::U8, 1);
    auto conv = makeCudaConvolver(plan);
    HostImage src(1920, 1080, 1, SampleType::U8);
    fillGradient(src, 2);
    DevicePlane in(1920, 1080, 1, SampleType::U8, false), out(1920, 1080, 1, SampleType::U8, false);
    in.upload(src);
    Stream stream = Stream::create();
    const std::size_t unprepared = freeDeviceMemory();
    conv->prepare(1920, 1080);
    const std::size_t prepared = freeDeviceMemory();
    EXPECT_GE(unprepared - prepared, std::size_t(30) << 20) << "prepare() made the planes and spectra";
    conv->process(in.view, out.view, stream.get());
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    const std::size_t first = freeDeviceMemory();
    EXPECT_LE(prepared - first, std::size_t(16) << 20) << "the first frame allocated more than code";
    for (int i = 0; i < 5; ++i) conv->process(in.view, out.view, stream.get());
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(freeDeviceMemory(), first);
    long checked = 0, equal = 0;
    EXPECT_LE(sampledDifference(plan, src, out.download(), 200, checked, equal), 1);
    for (auto [w, h] : {std::pair{97, 61}, {640, 360}}) {
        HostImage other(w, h, 1, SampleType::U8);
        other.fillRandom(w);
        const Difference d = compareImages(runCuda(*conv, other), runReference(plan, other));
        EXPECT_LE(d.maxAbs, 1) << w << "x" << h << ": " << describe(d);
    }
#endif
}

// Two FFT convolvers with different kernels, each on its own stream, frames interleaved: each gives its own result
// (plans, work areas and planes belong to one convolver).
TEST(CudaFft, ConvolversOnTwoStreams) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(800, 450, 1, SampleType::U8);
    fillGradient(src, 4);
    const ConvolvePlan a =
        ConvolvePlan::make(fftDesc({diskKernel(41, 1)}, Border::Replicate, SampleType::U8), SampleType::U8, 1);
    const ConvolvePlan b = ConvolvePlan::make(fftDesc({sharpenKernel(51, 51, 2)}, Border::Wrap, SampleType::U8),
                                              SampleType::U8, 1);
    auto ca = makeCudaConvolver(a), cb = makeCudaConvolver(b);
    Stream sa = Stream::create(), sb = Stream::create();
    DevicePlane in(800, 450, 1, SampleType::U8, false);
    in.upload(src);
    std::vector<std::unique_ptr<DevicePlane>> outs;
    for (int i = 0; i < 6; ++i) {
        outs.push_back(std::make_unique<DevicePlane>(800, 450, 1, SampleType::U8, false));
        outs.back()->poisonRows();
    }
    for (int i = 0; i < 6; ++i) (i % 2 ? cb : ca)->process(in.view, outs[i]->view, (i % 2 ? sb : sa).get());
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    const HostImage wantA = runReference(a, src), wantB = runReference(b, src);
    for (int i = 0; i < 6; ++i) {
        const Difference d = compareImages(outs[i]->download(), i % 2 ? wantB : wantA);
        EXPECT_LE(d.maxAbs, 1) << "frame " << i << ": " << describe(d);
    }
#endif
}

// Values (bias, |x|, border value) are taken in place with the same taps; new taps are refused (the spectra may still
// be read by enqueued frames) and change nothing.
TEST(CudaFft, RetuneTakesValuesNotTaps) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    HostImage src(300, 200, 1, SampleType::U8);
    fillGradient(src, 6);
    const Kernel2D k = sharpenKernel(45, 45, 3);
    const ConvolvePlan a =
        ConvolvePlan::make(fftDesc({k}, Border::Constant, SampleType::U8), SampleType::U8, 1);
    auto conv = makeCudaConvolver(a);
    conv->prepare(300, 200);
    EXPECT_FALSE(conv->retune(ConvolvePlan::make(fftDesc({sharpenKernel(45, 45, 4)}, Border::Constant, SampleType::U8),
                                                 SampleType::U8, 1)));
    EXPECT_LE(compareImages(runCuda(*conv, src), runReference(a, src)).maxAbs, 1);
    ConvolveDesc values = fftDesc({k}, Border::Constant, SampleType::U8, -40);
    values.absolute = true;
    values.borderValue = 3;
    const ConvolvePlan b = ConvolvePlan::make(values, SampleType::U8, 1);
    ASSERT_TRUE(conv->retune(b));
    const HostImage after = runCuda(*conv, src);
    EXPECT_EQ(compareImages(after, runCuda(b, src)).differing, 0);
    EXPECT_LE(compareImages(after, runReference(b, src)).maxAbs, 1);
    // Leaving the FFT path at the prepared size is a new convolver's work.
    values.algorithm = ConvolveAlgorithm::Direct;
    EXPECT_FALSE(conv->retune(ConvolvePlan::make(values, SampleType::U8, 1)));
#endif
}

// algorithm=auto follows the table at each frame size the bench measures (and 64x48) and both sample types, against
// the compiled direct kernels (square K = 3 … 31, and the shapes padded to them) and against the generic one (shapes
// run unpadded: K × (K ± 1) here, whatever K the table holds); algorithm=direct never takes the FFT, algorithm=fft
// always.
TEST(CudaFft, AutoFollowsTheTable) {
    SKIP_WITHOUT_DEVICE();
#ifdef CUDAFILTERS_HAVE_CUDA
    auto plan = [](int kw, int kh, ConvolveAlgorithm algorithm, SampleType type = SampleType::U8) {
        ConvolveDesc d = fftDesc({sharpenKernel(kw, kh, 1)}, Border::Reflect101, type);
        d.algorithm = algorithm;
        return ConvolvePlan::make(d, type, 1);
    };
    for (SampleType type : {SampleType::U8, SampleType::U16})
        for (auto [w, h] : {std::pair{64, 48}, {160, 120}, {640, 480}, {1920, 1080}, {3840, 2160}}) {
            const std::string where = std::string(sampleTypeName(type)) + " " + std::to_string(w) + "x" +
                                      std::to_string(h);
            const int compiled = fftCrossoverSize(Backend::Cuda, type, w, h, false);
            for (int k : {3, 5, 7, 9, 15, 31})
                EXPECT_EQ(cudaPath(plan(k, k, ConvolveAlgorithm::Auto, type), w, h),
                          compiled > 0 && k >= compiled ? "fft" : "direct") << where << " K = " << k;
            // Sizes without compiled kernels are padded to the next compiled size and compared as such, but for
            // those padded to 31 × 31: as the generic kernel they would run in unpadded (cuda_convolver.cpp,
            // fftPath) ...
            const int generic = fftCrossoverSize(Backend::Cuda, type, w, h, true);
            for (auto [kw, kh] : {std::pair{4, 5}, {10, 11}, {13, 12}, {17, 16}, {30, 31}}) {
                const int padded = cuda_detail::compiledSizeFor(kw, kh);
                const bool fft = padded == 31 ? generic > 0 && kw * kh >= generic * generic
                                              : compiled > 0 && padded >= compiled;
                EXPECT_EQ(cudaPath(plan(kw, kh, ConvolveAlgorithm::Auto, type), w, h), fft ? "fft" : "direct")
                    << where << " " << kw << "x" << kh;
                EXPECT_EQ(cudaPath(plan(kw, kh, ConvolveAlgorithm::Direct, type), w, h), "direct")
                    << where << " " << kw << "x" << kh;
            }
            // ... and without padding (or past 31) they run in the generic kernel, against its own crossover.
            // (fftPath of the plan as its own launch plan: the decision the plan takes where it is not padded)
            const auto unpadded = [&](const ConvolvePlan& p) {
                return cuda_detail::fftPath(p, p, w, h, true) ? "fft" : "generic";
            };
            if (generic == 0) {
                EXPECT_EQ(cudaPath(plan(255, 254, ConvolveAlgorithm::Auto, type), w, h), "generic") << where;
                continue;
            }
            EXPECT_STREQ(unpadded(plan(generic, generic + 1, ConvolveAlgorithm::Auto, type)), "fft") << where;
            EXPECT_STREQ(unpadded(plan(generic, generic - 1, ConvolveAlgorithm::Auto, type)), "generic") << where;
        }
    EXPECT_NE(cudaPath(plan(255, 255, ConvolveAlgorithm::Direct), 1920, 1080), "fft");
    EXPECT_EQ(cudaPath(plan(3, 3, ConvolveAlgorithm::Fft), 64, 48), "fft");
    const int generic = fftCrossoverSize(Backend::Cuda, SampleType::U8, 1920, 1080, true);
    ASSERT_GT(generic, 1);
    // Separable kernels keep their passes; a size without compiled passes would run in the generic kernel, so it is
    // compared with that (a 63 x 63 Gaussian takes the FFT).
    EXPECT_EQ(cudaPath(ConvolvePlan::make(presetDesc(Preset::Gaussian, 31), SampleType::U8, 1), 1920, 1080),
              "separable");
    ConvolveDesc gaussian63 = presetDesc(Preset::Gaussian, 63);
    EXPECT_EQ(cudaPath(ConvolvePlan::make(gaussian63, SampleType::U8, 1), 1920, 1080), "fft");
    gaussian63.algorithm = ConvolveAlgorithm::Direct;
    EXPECT_EQ(cudaPath(ConvolvePlan::make(gaussian63, SampleType::U8, 1), 1920, 1080), "generic");
    // Separable sizes without compiled passes take the next size's (padded_plan.hpp): never the FFT.
    for (int size : {11, 13, 21, 29})
        for (auto [w, h] : {std::pair{160, 120}, {1920, 1080}, {3840, 2160}})
            EXPECT_EQ(cudaPath(ConvolvePlan::make(presetDesc(Preset::Gaussian, size), SampleType::U8, 1), w, h),
                      "separable") << size << " at " << w << "x" << h;
    // The 1080p bars' sizes go through the FFT under auto.
    for (int size : {63, 127, 255})
        EXPECT_EQ(cudaPath(plan(size, size, ConvolveAlgorithm::Auto), 1920, 1080), "fft") << size;
#endif
}
