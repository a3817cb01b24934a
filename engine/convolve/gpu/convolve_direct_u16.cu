// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convolve_direct.cuh"

namespace cudafilters::cuda_detail {

bool launchDirectU16(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    return launchDirectTyped<std::uint16_t>(k, bank, frame, taps, stream);
}

}  // namespace cudafilters::cuda_detail
