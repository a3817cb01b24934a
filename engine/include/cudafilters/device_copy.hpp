// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <cudafilters/image.hpp>

namespace cudafilters {

// Copies a plane in device memory to another of the same size, type and channels, on the SMs (16-byte words where
// both views allow), enqueued on `stream`. For pitched planes cudaMemcpy2DAsync device to device measures about
// twice as slow (the copy rows of bench-convolve). Built with CUDA only.
void copyDevicePlane(const ImageView& src, const ImageView& dst, GpuStream stream);

}  // namespace cudafilters
