// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// 8-bit frames filtered by one kernel whose taps are integers over a power of two (Sobel, Scharr, Laplacian,
// sharpen, emboss, and most kernels typed as text): the sums are then exact integers, and OpenCV's integer filters
// (cv::filter2D, cv::sepFilter2D into 16-bit or float sums, threaded over stripes of rows) give the very values the
// float path gives, at the speed of cv::Sobel.
#include <cudafilters/convolve.hpp>

#include <cstdint>
#include <vector>

namespace cudafilters::cpu {

struct IntegerFilterScratch {
    std::vector<std::vector<std::uint8_t>> sums;  // per band of rows, the kernel's sums of one chunk of it
    std::vector<std::uint8_t> filtered;           // the stored samples, where dst cannot take them directly (in place)
};

// Filters src into dst and returns true where the plan is such a filter and this build has OpenCV; false, touching
// nothing, otherwise.
bool filterIntegerTaps(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst,
                       IntegerFilterScratch& scratch);

}  // namespace cudafilters::cpu
