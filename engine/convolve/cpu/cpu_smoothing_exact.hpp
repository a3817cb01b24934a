// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// cv::GaussianBlur and cv::blur computed by the project's own code, with OpenCV's integer arithmetic
// (smoothing_arithmetic.hpp): the CPU backend's smoothing where OpenCV is absent. The CPU suite holds it to OpenCV's
// bits in every build that has OpenCV.
#include "cpu_smoothing.hpp"

namespace cudafilters::cpu {

// Filters src into dst with plan.smoothing's function (which must be set); src and dst may be the same frame.
void smoothExactly(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch);

}  // namespace cudafilters::cpu
