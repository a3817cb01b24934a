// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/cuda_raii.hpp>
#include <cudafilters/device_copy.hpp>
#include <cudafilters/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>

namespace cudafilters {
namespace {

// Grid-stride over (row, word): a few waves of blocks, every thread's load in flight before its store.
template <typename Word>
__global__ void copyWords(const unsigned char* src, std::size_t srcPitch, unsigned char* dst, std::size_t dstPitch,
                          unsigned rowWords, unsigned height) {
    const std::size_t total = std::size_t(rowWords) * height;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t y = i / rowWords, x = i - y * rowWords;
        reinterpret_cast<Word*>(dst + y * dstPitch)[x] = __ldcs(reinterpret_cast<const Word*>(src + y * srcPitch) + x);
    }
}

template <typename Word> void launchCopy(const ImageView& src, const ImageView& dst, cudaStream_t stream) {
    const unsigned rowWords = unsigned(src.rowBytes() / sizeof(Word));
    const std::size_t items = std::size_t(rowWords) * src.height;
    const std::size_t blocks = (items + 255) / 256;
    const std::size_t cap = std::size_t(currentDeviceMultiprocessors()) * 8;  // 8 blocks of 256 fill an SM
    copyWords<Word><<<unsigned(blocks < cap ? blocks : cap), 256, 0, stream>>>(
        static_cast<const unsigned char*>(src.data), src.pitch, static_cast<unsigned char*>(dst.data), dst.pitch,
        rowWords, unsigned(src.height));
    CUDAFILTERS_CHECK_LAUNCH("copyWords");
}

}  // namespace

void copyDevicePlane(const ImageView& src, const ImageView& dst, GpuStream stream) {
    if (src.width != dst.width || src.height != dst.height || src.type != dst.type || src.channels != dst.channels)
        throw InvalidArgument("copyDevicePlane: source and destination differ in size, type or channels");
    if (src.width <= 0 || src.height <= 0) return;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(src.data) | reinterpret_cast<std::uintptr_t>(dst.data) |
                                src.pitch | dst.pitch | src.rowBytes();
    if (bits % 16 == 0) launchCopy<uint4>(src, dst, s);
    else if (bits % 4 == 0) launchCopy<unsigned>(src, dst, s);
    else launchCopy<unsigned char>(src, dst, s);
}

}  // namespace cudafilters
