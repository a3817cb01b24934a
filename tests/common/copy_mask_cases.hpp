// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Filter-mode plans that leave channels to another pass (ConvolveDesc::copyMask): packed 4:2:2 as Y/chroma pairs
// (Y filtered, chroma copied) and as macropixels (U and V filtered, Y left as it is in dst), on each kernel path.
// Shared by the CPU and GPU suites.
#include "convolve_cases.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudafilters::test {

struct CopyMaskCase {
    std::string name;
    int channels;
    unsigned filtered;  // channelMask
    unsigned copied;    // copyMask
    ConvolveDesc desc;
    bool exact;         // integer taps, power-of-two divisor
};

inline std::vector<CopyMaskCase> copyMaskCases() {
    struct Layout {
        const char* name;
        int channels;
        unsigned filtered, copied;
    };
    const Layout layouts[] = {{"yuy2_luma", 2, 0x1, 0x2}, {"uyvy_luma", 2, 0x2, 0x1},
                              {"yuy2_chroma", 4, 0xA, 0x0}, {"uyvy_chroma", 4, 0x5, 0x0}};
    std::vector<CopyMaskCase> out;
    for (const Layout& l : layouts) {
        ConvolveDesc direct;
        direct.kernels = {randomKernel(3, 3, 3, true)};
        direct.divisor = 8;
        direct.bias = 20;
        ConvolveDesc separable;
        separable.row = {1, 4, 6, 4, 1};
        separable.column = {1, 2, 1};
        separable.border = Border::Reflect;
        ConvolveDesc padded;  // no compiled 4 × 2 kernels: the CUDA backend pads it to 5 × 5
        padded.kernels = {randomKernel(4, 2, 11, true)};
        padded.divisor = 4;
        padded.absolute = true;
        padded.border = Border::Constant;
        padded.borderValue = 99;
        ConvolveDesc generic = padded;  // too wide for any compiled kernel
        generic.kernels = {randomKernel(33, 2, 11, true)};
        generic.algorithm = ConvolveAlgorithm::Direct;  // auto would take the FFT at 1080p
        ConvolveDesc fft;
        fft.kernels = {randomKernel(15, 15, 21, false)};
        fft.algorithm = ConvolveAlgorithm::Fft;
        const std::pair<const char*, ConvolveDesc> paths[] = {
            {"direct3", direct}, {"separable5x3", separable}, {"padded4x2", padded}, {"generic33x2", generic},
            {"fft15", fft}};
        for (const auto& [path, desc] : paths) {
            ConvolveDesc d = desc;
            d.channelMask = l.filtered;
            d.copyMask = l.copied;
            out.push_back({std::string(l.name) + "_" + path, l.channels, l.filtered, l.copied, d,
                           std::string(path) != "fft15"});
        }
    }
    return out;
}

// `out` of the case's plan on `src`, into rows that held `poison` bytes: filtered channels as the reference filters
// them, copied channels equal to src, the others still poison.
inline void expectCopyMask(const CopyMaskCase& c, HostImage& src, const HostImage& out, std::uint8_t poison,
                           const std::string& what) {
    ConvolveDesc copyAll = c.desc;
    copyAll.copyMask = 0xF;
    const HostImage filtered =
        runReference(ConvolvePlan::make(copyAll, src.type(), c.channels), src);
    const double poisonValue = src.type() == SampleType::U8 ? poison : poison * 257.0;
    long wrong = 0;
    for (int y = 0; y < src.height(); ++y)
        for (int x = 0; x < src.width(); ++x)
            for (int ch = 0; ch < c.channels; ++ch) {
                const double got = out.sample(x, y, ch);
                double want = poisonValue, tolerance = 0;
                if (c.filtered >> ch & 1u) want = filtered.sample(x, y, ch), tolerance = c.exact ? 0 : 1;
                else if (c.copied >> ch & 1u) want = src.sample(x, y, ch);
                if (std::abs(got - want) > tolerance && wrong++ < 5)
                    ADD_FAILURE() << what << " " << c.name << " at " << x << "," << y << " channel " << ch << ": "
                                  << got << ", expected " << want;
            }
    EXPECT_EQ(wrong, 0) << what << " " << c.name;
}

}  // namespace cudafilters::test
