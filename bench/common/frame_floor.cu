// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_floor.hpp"

#include <cudafilters/cuda_raii.hpp>

#include <cstdint>

namespace benchcommon {
namespace {

// One 16-byte word per thread per step, grid-stride over (row, word): every load of a warp is in flight before its
// store, and the grid is sized for a few waves so the copy is bound by memory, not by launch.
__global__ void copyWords(const uint4* src, std::size_t srcPitchWords, uint4* dst, std::size_t dstPitchWords,
                          unsigned rowWords, unsigned height) {
    const std::size_t total = std::size_t(rowWords) * height;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t y = i / rowWords, x = i - y * rowWords;
        dst[y * dstPitchWords + x] = __ldcs(src + y * srcPitchWords + x);
    }
}

__global__ void copyBytes(const std::uint8_t* src, std::size_t srcPitch, std::uint8_t* dst, std::size_t dstPitch,
                          unsigned rowBytes, unsigned height) {
    const std::size_t total = std::size_t(rowBytes) * height;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t y = i / rowBytes, x = i - y * rowBytes;
        dst[y * dstPitch + x] = src[y * srcPitch + x];
    }
}

int gridFor(std::size_t items) {
    int device = 0, sms = 0;
    CUDAFILTERS_CHECK(cudaGetDevice(&device));
    CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::size_t blocks = (items + 255) / 256;
    const std::size_t cap = std::size_t(sms) * 8;  // 8 blocks of 256 threads fill an SM
    return int(blocks < cap ? blocks : cap);
}

}  // namespace

void copyFrameOnSms(const void* src, std::size_t srcPitch, void* dst, std::size_t dstPitch, std::size_t rowBytes,
                    int height, cudaStream_t stream) {
    const bool words = ((reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst) | srcPitch |
                         dstPitch | rowBytes) & 15) == 0;
    if (words) {
        const unsigned rowWords = unsigned(rowBytes / 16);
        copyWords<<<gridFor(std::size_t(rowWords) * height), 256, 0, stream>>>(
            static_cast<const uint4*>(src), srcPitch / 16, static_cast<uint4*>(dst), dstPitch / 16, rowWords,
            unsigned(height));
    } else {
        copyBytes<<<gridFor(rowBytes * height), 256, 0, stream>>>(static_cast<const std::uint8_t*>(src), srcPitch,
                                                                  static_cast<std::uint8_t*>(dst), dstPitch,
                                                                  unsigned(rowBytes), unsigned(height));
    }
    CUDAFILTERS_CHECK(cudaGetLastError());
}

}  // namespace benchcommon
