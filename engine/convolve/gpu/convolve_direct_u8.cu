// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convolve_direct.cuh"

namespace cudafilters::cuda_detail {

// The tiled direct kernel for u8 frames; which u8 direct kernel a frame takes is kernel_route.cpp's.
bool launchDirectTiledU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    return launchDirectTyped<std::uint8_t>(k, bank, frame, taps, stream);
}

}  // namespace cudafilters::cuda_detail
