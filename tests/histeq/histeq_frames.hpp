// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Test frames for histogram equalization: random, uniform, two-level, low-contrast and blob content, and colour bars,
// at sizes that stress tile padding.
#include "test_images.hpp"

#include <cudafilters/histeq.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace cudafilters::test {

enum class Pattern { Random, Uniform, TwoLevel, LowContrastGradient, Blobs };

inline const char* patternName(Pattern p) {
    switch (p) {
    case Pattern::Random: return "random";
    case Pattern::Uniform: return "uniform";
    case Pattern::TwoLevel: return "two-level";
    case Pattern::LowContrastGradient: return "low-contrast-gradient";
    case Pattern::Blobs: return "blobs";
    }
    return "?";
}

inline const std::vector<Pattern>& allPatterns() {
    static const std::vector<Pattern> p{Pattern::Random, Pattern::Uniform, Pattern::TwoLevel,
                                        Pattern::LowContrastGradient, Pattern::Blobs};
    return p;
}

// Fills every channel; values scaled to the sample type's range.
inline void fillPattern(HostImage& img, Pattern p, std::uint32_t seed) {
    const int maxV = img.maxValue();
    const double s = maxV / 255.0;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(0, maxV);
    std::uniform_int_distribution<int> small(-3, 3);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            for (int c = 0; c < img.channels(); ++c) {
                double v = 0;
                switch (p) {
                case Pattern::Random: v = noise(rng); break;
                case Pattern::Uniform: v = std::round((97 + 13 * c) * s); break;
                case Pattern::TwoLevel: v = std::round(((x / 5 + y / 3 + c) % 2 ? 180 : 40) * s); break;
                case Pattern::LowContrastGradient:
                    v = std::round((100 + 24.0 * x / std::max(1, img.width() - 1) + 8.0 * y / std::max(1, img.height() - 1) +
                                    c) * s);
                    break;
                case Pattern::Blobs:
                    v = std::round((128 + 90 * std::sin(x * 0.07 + c) * std::cos(y * 0.05) + small(rng)) * s);
                    break;
                }
                img.setSample(x, y, c, std::clamp(v, 0.0, double(maxV)));
            }
}

// u8 colour bars: eight vertical bars (videotestsrc's 75 % colours, channels 0 to 2) over the top two thirds, three
// flat areas below; every further channel (alpha, padding) 255. Large flat areas of a few levels.
inline void fillColourBars(HostImage& img) {
    static const int kBars[8][3] = {{191, 191, 191}, {191, 191, 0}, {0, 191, 191}, {0, 191, 0},
                                    {191, 0, 191},   {191, 0, 0},   {0, 0, 191},   {16, 16, 16}};
    static const int kBottom[3][3] = {{0, 33, 76}, {255, 255, 255}, {50, 0, 106}};
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const int* colour = 3 * y < 2 * img.height() ? kBars[8 * x / img.width()] : kBottom[3 * x / img.width()];
            for (int c = 0; c < img.channels(); ++c) img.setSample(x, y, c, c < 3 ? colour[c] : 255);
        }
}

struct Size2 { int w, h; };

// A 16-bit pattern as 10-bit levels stored in the container's bits (I420_10LE: low, P010_10LE: high).
inline void toTenBit(HostImage& img, SampleBits bits) {
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            img.setSample(x, y, 0, double((unsigned(img.sample(x, y, 0)) >> 6) << bits.shift));
}

// Every sample shifted right by `shift` (stored → levels) or left (levels → stored) when shift is negative.
inline HostImage shiftedRight(const HostImage& img, int shift) {
    HostImage out = img;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const unsigned v = unsigned(img.sample(x, y, 0));
            out.setSample(x, y, 0, double(shift >= 0 ? v >> shift : v << -shift));
        }
    return out;
}

inline std::string sizeName(Size2 s) { return std::to_string(s.w) + "x" + std::to_string(s.h); }

}  // namespace cudafilters::test
