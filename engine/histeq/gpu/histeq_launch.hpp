// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Launchers of the histogram equalization kernels, driven by cuda_equalizer.cpp: the tile kernels' histogram pass
// (histeq_tile_histogram.cu) and apply pass (histeq_tile_apply.cu), CLAHE's band kernel (histeq_clahe_bands.cu) and
// the global block-LUT kernels (histeq_global_chunks.cu).
#include <cudafilters/histeq.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

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

// The luma chunk kernels: blocks of each kernel an SM holds (the grids are one wave of them).
struct GlobalLumaBlocks {
    int histogram = 1, apply = 1;
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
    bool vectorized = false;  // u8 of 1 or 2 channels, or one u16 channel, with 16-byte aligned rows
    bool pixelWords = false;  // 4-channel u8 with 4-byte aligned rows: applyKernel moves a pixel as one word
    bool claheLumaChunks = false;  // the CLAHE luma chunk kernels (claheLumaChunksApply)
    // the block-LUT kernels (global u8 planes): the frame's histogram is p.hist (256 bins); the histogram kernel
    // zeroes histNext, the other buffer of the pair, for the next frame.
    std::uint32_t* histNext = nullptr;
    int chunksPerRow = 0;        // 16-byte aligned chunks a row touches (an upper bound when the pitch is not 16k);
                                 // The luma chunk kernels: chunks of 4 pixels, or 16 of 3 channels (the last partial)
    GlobalLumaBlocks lumaBlocksPerSm;  // the luma chunk kernels (which also take histNext, chunksPerRow, multiprocessors)
    bool sameAlignment = false;  // src and dst rows congruent mod 16: full chunks are stored as 16 bytes
    int multiprocessors = 0;
    bool overlapped = false;     // apply kernel launched as a programmatic dependent of the histogram kernel
                                 // (the block-LUT and luma chunk kernels, the band kernel)
    // The band kernel: rows per band, and the shared memory its blocks stage the LUT pairs in (an upper bound).
    int bandRows = 0;
    int bandSharedBytes = 0;
};

// Which kernels a CudaEqualizer launches (the measured fastest, `bench-histeq` through
// scripts/gpu/build-bench-histeq.sh at 1080p and 4K, beside NPP):
// - global equalization of one-channel u8 frames without temporal smoothing: the block-LUT kernels (launchGlobalGray8:
//   a histogram kernel of a few blocks per SM, 16-byte loads at any alignment, one shared histogram per warp, then an
//   apply kernel whose every block builds the LUT from the 256 bins into shared memory), the apply kernel launched as a
//   programmatic dependent where the device runs it (overlapSupported());
// - global equalization of 4- and 3-channel u8 frames in luma mode with 16-byte aligned rows: the luma chunk kernels
//   (launchGlobalLuma8: blocks of 256 threads looping over the frame in 16-byte chunks of 4 pixels, 3 channels 48-byte
//   chunks of 16 pixels, one shared histogram per warp with lanes of equal flat chunks counted together; the apply
//   blocks build the LUT from the histogram or, under temporal smoothing, stage the one the last histogram block built);
// - CLAHE of 4- and 3-channel u8 frames in luma mode with 16-byte aligned rows whose band LUT quads fit a block's shared
//   memory (claheLumaChunksApply): the CLAHE luma chunk kernels (claheHistogramLuma8, then the band kernel over strips
//   of 32 chunks, one LUT quad per pixel from shared memory);
// - CLAHE of u8 planes and Y/chroma pairs with 16-byte aligned rows whose LUT pairs fit a band's shared memory: the
//   band kernel (launchClaheBands: blocks over bands of rows as tall as one wave allows, each staging the LUT pairs of
//   the tiles its pixels blend, two 8-byte shared reads per pixel);
// - every other frame: the tile kernels (the histogram kernel's last block builds each tile's LUT, then the apply
//   kernel; global mode is one tile).
constexpr int kMaxBandRows = 64;

// Histogram pass (with tile LUTs built by each tile's last block), then the apply pass.
void launchHistogram(const HisteqParams& p, cudaStream_t stream);
void launchApply(const HisteqParams& p, cudaStream_t stream);
// The band kernel: the shared memory a band of p's frame stages (an upper bound), or 0 where it does not apply
// (p.vectorized u8 planes and Y/chroma pairs, p.claheLumaChunks 4- and 3-channel pixels, within the static shared memory of
// a block).
int claheBandSharedBytes(const HisteqParams& p, int bandRows);
// The same for a frame of u8 pixels of `channels` channels (1, 2, 4: 16 / channels pixels per chunk; 3: 16) on a tilesX ×
// tilesY grid of tileWidth × tileHeight tiles.
int claheBandBytes(int channels, int tileWidth, int tileHeight, int tilesX, int tilesY, int bandRows);
// Blocks of the band kernel for p.channels (1 to 4) an SM holds with that shared memory, and the strips across
// p's frame.
int claheBandBlocksPerSm(int channels, int sharedBytes);
int claheBandStrips(const HisteqParams& p);
// The band kernel (CLAHE planes, pairs and luma chunks): the band kernel for p.channels over p.bandRows-row bands, as a
// programmatic dependent of the histogram kernel where p.overlapped (launchApply takes it where it applies).
void launchClaheBands(const HisteqParams& p, cudaStream_t stream);

// The block-LUT kernels, the apply kernel overlapped where p.overlapped: both kernels.
void launchGlobalGray8(const HisteqParams& p, cudaStream_t stream);
// Whether the current device runs the apply kernels as programmatic dependents (block-LUT, luma chunk, band kernels).
bool overlapSupported();
// The luma chunk kernels: both kernels (block LUT without temporal smoothing, last-block LUT with it), p.overlapped as
// for launchGlobalGray8.
void launchGlobalLuma8(const HisteqParams& p, cudaStream_t stream);
// Their blocks per SM on the current device (an occupancy query: once per equalizer, not per frame).
GlobalLumaBlocks globalLuma8BlocksPerSm(int channels);
// Whether a CudaEqualizer for `plan` runs the frame src → dst through launchGlobalLuma8: global mode, u8, 4 or 3
// channels in luma mode, and both images' base addresses and pitches multiples of 16. The equalizer decides by this
// function.
bool globalLumaChunksApply(const EqualizePlan& plan, const ImageView& src, const ImageView& dst);
// Whether a CudaEqualizer for `plan` runs the frame src → dst through the CLAHE luma chunk kernels: CLAHE, u8, 4 or 3
// channels in luma mode, both images' base addresses and pitches multiples of 16, and the LUT quads of a band of 8 rows
// (the least the equalizer takes) within a block's shared memory. The equalizer decides by this function.
bool claheLumaChunksApply(const EqualizePlan& plan, const ImageView& src, const ImageView& dst);

}  // namespace cudafilters::detail
