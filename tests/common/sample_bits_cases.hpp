// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Convolutions of 10-bit samples in 16-bit containers (I420_10LE: low bits, P010_10LE: high bits), shared by the CPU
// and GPU suites: one case per kernel path (direct, separable, generic, FFT), with bias and a constant border in
// stored units.
#include "convolve_cases.hpp"

#include <string>
#include <vector>

namespace cudafilters::test {

struct BitsCase {
    std::string name;
    SampleBits bits;
    ConvolveDesc desc;
    bool exact;  // integer taps, power-of-two divisor: every backend gives the reference's bits
};

// Samples of `image` limited to what `bits` can hold (the rest of each sample cleared).
inline void keepBits(HostImage& image, SampleBits bits) {
    const SampleBits b = resolveBits(image.type(), bits);
    const unsigned mask = unsigned(maxLevel(b)) << b.shift;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c)
                image.setSample(x, y, c, double(unsigned(image.sample(x, y, c)) & mask));
}

inline std::vector<BitsCase> bitsCases() {
    std::vector<BitsCase> out;
    const std::pair<const char*, SampleBits> layouts[] = {{"low10", SampleBits::low(10)},
                                                          {"high10", SampleBits::high(10)}};
    for (const auto& [layoutName, bits] : layouts) {
        const std::string layout = layoutName;
        const double unit = double(1 << bits.shift);  // one level in stored units
        ConvolveDesc direct;
        direct.kernels = {randomKernel(3, 3, 3, true)};
        direct.divisor = 8;
        direct.bias = 300 * unit;  // pushes many samples past the top level: saturation
        direct.border = Border::Constant;
        direct.borderValue = 700 * unit;
        out.push_back({layout + "_direct3", bits, direct, true});
        ConvolveDesc separable;
        separable.row = {1, 4, 6, 4, 1};
        separable.column = {1, 4, 6, 4, 1};
        separable.border = Border::Reflect;
        out.push_back({layout + "_separable5", bits, separable, true});
        ConvolveDesc generic;
        generic.kernels = {randomKernel(4, 2, 11, true)};  // even size: the generic kernel
        generic.divisor = 4;
        generic.absolute = true;
        generic.border = Border::Wrap;
        out.push_back({layout + "_generic4x2_abs", bits, generic, true});
        ConvolveDesc fft;
        fft.kernels = {randomKernel(15, 15, 21, false)};
        fft.bias = 512 * unit;
        fft.algorithm = ConvolveAlgorithm::Fft;
        out.push_back({layout + "_fft15", bits, fft, false});
    }
    return out;
}

}  // namespace cudafilters::test
