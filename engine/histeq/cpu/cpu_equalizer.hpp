// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The CPU backend's hook into a library: OpenCV where it computes the same thing, else nothing (the shared core runs).
#include <cudafilters/histeq.hpp>

namespace cudafilters::detail {

// Equalizes src into dst without temporal state; false when the library has no equivalent for this plan.
bool equalizeWithLibrary(const EqualizePlan& plan, const ImageView& src, const ImageView& dst);

}  // namespace cudafilters::detail
