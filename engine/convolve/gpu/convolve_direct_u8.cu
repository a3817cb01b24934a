// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convolve_direct.cuh"

namespace cudafilters::cuda_detail {

bool launchDirectU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream,
                    const KernelVariants& variants) {
    if (launchDirectRegistersU8(k, bank, frame, taps, stream, variants.registerWindow)) return true;
    if (launchInterleavedU8(k, bank, frame, taps, stream, variants.interleaved)) return true;
    if (launchGrayTileU8(k, bank, frame, taps, stream, variants.grayTile)) return true;
    if (launchSmallDirectU8(k, bank, frame, taps, stream, variants.smallDirect)) return true;
    return launchDirectTyped<std::uint8_t>(k, bank, frame, taps, stream);
}

}  // namespace cudafilters::cuda_detail
