// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The presets that are OpenCV functions (cv::GaussianBlur, cv::blur), computed by those functions on the frame as
// OpenCV sees it, so that the CPU backend gives their bits and their threading.
#include <cudafilters/convolve.hpp>

#include <cstdint>
#include <vector>

namespace cudafilters::cpu {

// Buffers kept between frames: the filtered frame where it cannot be written to dst directly (masked channels, in
// place), and the padded frame and its filtered copy for the borders the functions lack (wrap, a constant other
// than 0); without OpenCV, a copy of a source overwritten in place and each band's sums.
struct SmoothingScratch {
    std::vector<std::uint8_t> filtered;
    std::vector<std::uint8_t> padded;
    std::vector<std::uint8_t> paddedOut;
    // Without OpenCV, each band's: its last K rows of row sums, a source row padded by the border, and column sums.
    struct Band {
        std::vector<std::uint32_t> rows, padded, columns;
        std::vector<std::uint64_t> wideColumns;
    };
    std::vector<Band> bands;
    // Without OpenCV, the integer taps of `tapsOf` for samples of `tapsType`.
    std::vector<std::uint32_t> taps;
    Smoothing tapsOf;
    SampleType tapsType = SampleType::U8;
};

// Filters src into dst with plan.smoothing's function and returns true; false, touching nothing, where this build has
// no such function (without OpenCV): the caller then correlates the plan's taps.
bool smooth(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch);

}  // namespace cudafilters::cpu
