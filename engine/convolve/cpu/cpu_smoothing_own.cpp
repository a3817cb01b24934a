// SPDX-License-Identifier: LGPL-2.1-or-later
// Without OpenCV, GaussianBlur and blur are computed by the project's own code, with OpenCV's arithmetic.
#include "cpu_smoothing.hpp"
#include "cpu_smoothing_exact.hpp"

namespace cudafilters::cpu {

bool smooth(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch) {
    smoothExactly(plan, src, dst, scratch);
    return true;
}

}  // namespace cudafilters::cpu
