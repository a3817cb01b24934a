// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU backend without OpenCV: the shared core (engine/histeq/core) does all the work.
#include "cpu_equalizer.hpp"

namespace cudafilters::detail {

bool equalizeWithLibrary(const EqualizePlan&, const ImageView&, const ImageView&) { return false; }

}  // namespace cudafilters::detail
