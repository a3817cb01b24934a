// SPDX-License-Identifier: LGPL-2.1-or-later
// Without OpenCV there is no GaussianBlur or blur to match: the backend correlates the same taps in float, which
// differs from OpenCV's fixed-point functions by at most 1 on some samples.
#include "cpu_smoothing.hpp"

namespace cudafilters::cpu {

bool smooth(const ConvolvePlan&, const ImageView&, const ImageView&, SmoothingScratch&) { return false; }

}  // namespace cudafilters::cpu
