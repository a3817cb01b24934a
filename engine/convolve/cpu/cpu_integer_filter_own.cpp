// SPDX-License-Identifier: LGPL-2.1-or-later
// Without OpenCV the float path computes these filters itself (cpu_responses_own.cpp), giving the same values.
#include "cpu_integer_filter.hpp"

namespace cudafilters::cpu {

bool filterIntegerTaps(const ConvolvePlan&, const ImageView&, const ImageView&, IntegerFilterScratch&) { return false; }

}  // namespace cudafilters::cpu
