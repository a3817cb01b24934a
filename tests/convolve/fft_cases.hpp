// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The cases the FFT paths (CPU: OpenCV's DFT, CUDA: cuFFT) are held to: algorithm=fft against the reference, at most
// 1 LSB off, on random frames, smooth real-image-like gradients and odd sizes, for every border, 8 and 16 bits, and
// every mode (bank, output channels, multi-channel, masked colour). Each test reports the share of samples equal to
// the reference.
#include "convolve_cases.hpp"

#include <cudafilters/presets.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace cudafilters::test {

enum class Content { Random, Gradient };

struct FftCase {
    std::string name;
    int width, height, channels;
    SampleType type;
    Content content;
    ConvolveDesc desc;
};

inline const char* fftBorderName(Border b) {
    static const char* names[] = {"replicate", "reflect", "reflect101", "constant", "wrap"};
    return names[int(b)];
}

// A smooth frame as camera images are: a diagonal ramp, two slow waves and a little noise, over the full range.
inline void fillGradient(HostImage& image, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> noise(-1.5, 1.5);
    const double top = image.maxValue();
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c) {
                const double u = double(x) / std::max(1, image.width() - 1), v = double(y) / std::max(1, image.height() - 1);
                double s = 0.15 + 0.5 * (0.6 * u + 0.4 * v) + 0.12 * std::sin(9.0 * u + 2.0 * c) +
                           0.1 * std::cos(7.0 * v - 3.0 * u);
                s = s * top + noise(rng) * top / 255.0;
                image.setSample(x, y, c, std::min(top, std::max(0.0, std::round(s))));
            }
}

inline void fillContent(HostImage& image, Content content, std::uint32_t seed) {
    if (content == Content::Random) image.fillRandom(seed);
    else fillGradient(image, seed);
}

// A positive blur with a sharp edge (a bokeh disk with a random rim) and a sharpening kernel (a zero-mean random
// pattern plus the identity, taps summing to 1): the kinds of large kernel the FFT path is for.
inline Kernel2D diskKernel(int k, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> rim(0.5f, 1.f);
    Kernel2D kernel{k, k, {}};
    const double r = k / 2.0;
    for (int y = 0; y < k; ++y)
        for (int x = 0; x < k; ++x) {
            const double d = std::hypot(x + 0.5 - r, y + 0.5 - r);
            kernel.taps.push_back(d <= r - 1 ? 1.f : d <= r ? rim(rng) : 0.f);
        }
    return kernel;
}

inline Kernel2D sharpenKernel(int kw, int kh, std::uint32_t seed) {
    Kernel2D k = randomKernel(kw, kh, seed, false);
    double sum = 0;
    for (float t : k.taps) sum += t;
    for (float& t : k.taps) t = float((t - sum / k.taps.size()) / 16);
    k.taps[std::size_t(kh / 2) * kw + kw / 2] += 1.f;
    return k;
}

inline ConvolveDesc fftDesc(std::vector<Kernel2D> kernels, Border border, SampleType type, double bias = 0) {
    ConvolveDesc d;
    d.kernels = std::move(kernels);
    d.border = border;
    d.borderValue = type == SampleType::U8 ? 201 : 51234;
    d.bias = bias;
    d.algorithm = ConvolveAlgorithm::Fft;
    return d;
}

inline std::vector<FftCase> fftCases() {
    std::vector<FftCase> out;
    const Border borders[] = {Border::Replicate, Border::Reflect, Border::Reflect101, Border::Constant, Border::Wrap};
    const SampleType types[] = {SampleType::U8, SampleType::U16};
    for (SampleType type : types) {
        const std::string t = type == SampleType::U8 ? "u8" : "u16";
        const double half = type == SampleType::U8 ? 128 : 32768;
        for (Border b : borders) {
            const std::string bn = fftBorderName(b);
            out.push_back({t + "_random_161x97_disk31_" + bn, 161, 97, 1, type, Content::Random,
                           fftDesc({diskKernel(31, 1)}, b, type)});
            out.push_back({t + "_gradient_97x67_disk63_" + bn, 97, 67, 1, type, Content::Gradient,
                           fftDesc({diskKernel(63, 2)}, b, type)});
            out.push_back({t + "_gradient_160x97_sharpen40x24_" + bn, 160, 97, 1, type, Content::Gradient,
                           fftDesc({sharpenKernel(40, 24, 3)}, b, type)});
            out.push_back({t + "_odd_7x3_disk15_" + bn, 7, 3, 1, type, Content::Random,
                           fftDesc({diskKernel(15, 4)}, b, type)});
            out.push_back({t + "_odd_1x1_random16_" + bn, 1, 1, 1, type, Content::Random,
                           fftDesc({randomKernel(16, 16, 5, false)}, b, type, half / 2)});
            out.push_back({t + "_odd_33x17_random9x21_" + bn, 33, 17, 1, type, Content::Random,
                           fftDesc({randomKernel(9, 21, 6, false)}, b, type, half / 2)});
        }
        // Colour: three channels filtered, alpha copied; and every channel of RGB.
        ConvolveDesc masked = fftDesc({diskKernel(25, 7)}, Border::Reflect101, type);
        masked.channelMask = 0x7;
        out.push_back({t + "_rgba_gradient_131x77_disk25_mask7", 131, 77, 4, type, Content::Gradient, masked});
        out.push_back({t + "_rgb_random_97x61_disk17", 97, 61, 3, type, Content::Random,
                       fftDesc({diskKernel(17, 8)}, Border::Wrap, type)});
        // A bank combined (magnitude and max |r|), written to output channels, and multi-channel.
        for (Combine c : {Combine::Magnitude, Combine::MaxAbs, Combine::Sum}) {
            ConvolveDesc bank = fftDesc({sharpenKernel(21, 21, 9), sharpenKernel(21, 21, 10)}, Border::Replicate, type,
                                        c == Combine::Sum ? -half : 0);
            bank.combine = c;
            out.push_back({t + "_bank2_gradient_129x65_combine" + std::to_string(int(c)), 129, 65, 1, type,
                           Content::Gradient, bank});
        }
        ConvolveDesc channels = fftDesc({diskKernel(19, 11), sharpenKernel(19, 19, 12), diskKernel(19, 13)},
                                        Border::Constant, type);
        channels.combine = Combine::Channels;
        out.push_back({t + "_to_channels_gradient_101x59", 101, 59, 1, type, Content::Gradient, channels});
        ConvolveDesc multi = fftDesc({}, Border::Reflect, type, half / 2);
        multi.mode = ConvolveMode::MultiChannel;
        multi.outputs = 2;
        for (int i = 0; i < 8; ++i) multi.kernels.push_back(sharpenKernel(13, 11, 20 + i));
        multi.kernels[3].taps.assign(multi.kernels[3].taps.size(), 0.f);  // an unused (alpha) channel
        multi.divisor = 4;
        out.push_back({t + "_multichannel_rgba_to_2_random_77x45", 77, 45, 4, type, Content::Random, multi});
        // A separable kernel forced through the FFT, with a divisor and |x|.
        ConvolveDesc sep = presetDesc(Preset::Gaussian, 45, 9.0);
        sep.algorithm = ConvolveAlgorithm::Fft;
        sep.border = Border::Reflect;
        out.push_back({t + "_gaussian45_gradient_120x90", 120, 90, 1, type, Content::Gradient, sep});
    }
    for (auto& c : out)
        for (char& ch : c.name)
            if (ch == '-') ch = '_';
    return out;
}

// Records and prints the share of samples equal to the reference, and returns the largest difference.
inline double reportAgreement(const HostImage& actual, const HostImage& expected, const std::string& name) {
    const Difference d = compareImages(actual, expected);
    const double total = double(actual.width()) * actual.height() * actual.channels();
    const double share = total > 0 ? 1.0 - double(d.differing) / total : 1.0;
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", share);
    ::testing::Test::RecordProperty("exact_share", text);
    ::testing::Test::RecordProperty("max_abs_diff", std::to_string(int(d.maxAbs)));
    std::printf("[ fft      ] %-52s equal %.4f %%, max |diff| %d\n", name.c_str(), 100.0 * share, int(d.maxAbs));
    return d.maxAbs;
}

}  // namespace cudafilters::test
