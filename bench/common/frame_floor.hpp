// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The floor a frame kernel is measured against: copying the frame once with SM loads and stores (16-byte words where
// the rows allow), which is what any kernel reading and writing the frame once pays. cudaMemcpy2DAsync is timed
// beside it: for pitched frames it is not the fastest copy.
#include <cuda_runtime.h>

#include <cstddef>

namespace benchcommon {

void copyFrameOnSms(const void* src, std::size_t srcPitch, void* dst, std::size_t dstPitch, std::size_t rowBytes,
                    int height, cudaStream_t stream);

}  // namespace benchcommon
