// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <string>

namespace cudafilters {

// True when the engine was built with CUDA and at least one device answers.
bool cudaBuilt();
int cudaDeviceCount();  // 0 without CUDA, without a driver or without a device
// The device's name and compute capability ("<name> (sm_90)"), or why there is none.
std::string cudaDeviceDescription(int device);

}  // namespace cudafilters
