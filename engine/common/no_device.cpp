// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine built without the CUDA toolkit.
#include <cudafilters/device.hpp>

namespace cudafilters {

bool cudaBuilt() { return false; }
int cudaDeviceCount() { return 0; }
std::string cudaDeviceDescription(int) { return "built without CUDA"; }

}  // namespace cudafilters
