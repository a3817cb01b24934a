// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Launchers of the histogram equalization kernels (histeq_kernels.cu), driven by cuda_equalizer.cpp.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {

enum class HisteqKind : int { Plane = 0, Luma = 1, PerChannel = 2 };

// Accumulated on the GPU while the histograms are built; copied to pinned memory per frame.
struct DeviceStatistics {
    std::uint32_t histogram[256];
    unsigned long long sum;
    unsigned long long count;
    std::uint32_t min;
    std::uint32_t max;
};

struct HisteqParams {
    // frame
    const void* src = nullptr;
    std::size_t srcPitch = 0;
    void* dst = nullptr;
    std::size_t dstPitch = 0;
    int width = 0, height = 0;
    bool u16 = false;
    int bins = 256;        // u16: 1 << depth (SampleBits); levels are sample >> shift, stored as level << shift
    int shift = 0;
    int statsShift = 0;    // statistics bin = level >> statsShift (depth − 8)
    int channels = 1;
    HisteqKind kind = HisteqKind::Plane;
    int red = 0, green = 1, blue = 2;
    int lumaChannel = 0;  // 2 channels (Y/chroma pairs of packed 4:2:2): the channel equalized
    // geometry: global = one tile of the frame's size
    bool clahe = false;
    int tilesX = 1, tilesY = 1;
    int tileWidth = 0, tileHeight = 0;
    float invTileWidth = 0, invTileHeight = 0;
    int splits = 1;  // blocks per tile in the histogram pass
    // LUT formula
    int clipLimit = 0;
    float lutScale = 0;
    // temporal smoothing: 0 none, 1 histogram EMA, 2 LUT EMA
    int smoothTarget = 0;
    std::uint32_t alphaFixed = 0;
    int first = 1;
    // scratch (zeroed once; each pass leaves it zeroed for the next frame)
    std::uint32_t* hist = nullptr;           // [K][tiles][bins]
    std::uint32_t* tileCounters = nullptr;   // [tiles]
    std::uint32_t* doneCounter = nullptr;    // [1]
    void* luts = nullptr;                    // [K][tiles][bins] of the sample type
    unsigned long long* histState = nullptr; // [K][tiles][bins]
    std::uint32_t* lutState = nullptr;       // [K][tiles][bins]
    DeviceStatistics* statsAccumulator = nullptr;  // null: no statistics
    DeviceStatistics* statsOut = nullptr;
    bool vectorized = false;  // 1-channel u8 with 16-byte aligned rows
};

// Histogram pass (with tile LUTs built by each tile's last block), then the apply pass.
void launchHistogram(const HisteqParams& p, cudaStream_t stream);
void launchApply(const HisteqParams& p, cudaStream_t stream);

}  // namespace cudafilters::detail
