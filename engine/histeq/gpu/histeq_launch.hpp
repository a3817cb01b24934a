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

// GlobalLuma::Chunks: blocks of each kernel an SM holds (the grids are one wave of them).
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
    bool claheLumaChunks = false;  // ClaheLuma::Chunks (claheLumaChunksApply): claheHistogramLuma8, claheBandsLuma8
    // GlobalVariant::BlockLut (global u8 planes): the frame's histogram is p.hist (256 bins); the histogram kernel
    // zeroes histNext, the other buffer of the pair, for the next frame.
    std::uint32_t* histNext = nullptr;
    int chunksPerRow = 0;        // 16-byte aligned chunks a row touches (an upper bound when the pitch is not 16k);
                                 // GlobalLuma::Chunks: chunks of 4 pixels, or 16 of 3 channels (the last partial)
    GlobalLumaBlocks lumaBlocksPerSm;  // GlobalLuma::Chunks (which also takes histNext, chunksPerRow, multiprocessors)
    bool sameAlignment = false;  // src and dst rows congruent mod 16: full chunks are stored as 16 bytes
    int multiprocessors = 0;
    bool overlapped = false;     // apply kernel launched as a programmatic dependent of the histogram kernel
                                 // (GlobalVariant::BlockLutOverlapped, ClaheApply::Bands)
    // ClaheApply::Bands: rows per band, and the shared memory its blocks stage the LUT pairs in (an upper bound).
    int bandRows = 0;
    int bandSharedBytes = 0;
};

// How global equalization of one-channel u8 frames without temporal smoothing runs (the other plans take LastBlockLut,
// except 4- and 3-channel u8 frames in luma mode: GlobalLuma).
enum class GlobalVariant : int {
    // The tile kernels with one tile: the histogram kernel's last block builds the LUT, then the apply kernel.
    LastBlockLut = 0,
    // A histogram kernel of a few blocks per SM (16-byte loads at any alignment, one shared histogram per warp),
    // then an apply kernel whose every block builds the LUT from the 256 bins into shared memory: no grid-wide
    // hand-off inside a kernel.
    BlockLut = 1,
    // BlockLut with the apply kernel launched as a programmatic dependent (sm_90 and later, kernels compiled for
    // it; otherwise BlockLut): its blocks start while the histogram kernel drains and wait for it on the device.
    BlockLutOverlapped = 2,
};
constexpr int kGlobalVariants = 3;
const char* globalVariantName(GlobalVariant v);

// How CLAHE's apply pass runs on u8 planes and Y/chroma pairs whose rows are 16-byte aligned (other frames, and
// grids whose LUT pairs would not fit a band's shared memory, take Chunks).
enum class ClaheApply : int {
    // One 16-byte chunk per thread: the frame's tile LUTs staged in shared memory by every block (or read through the
    // read-only cache), the tile coordinates and four byte LUT reads per pixel.
    Chunks = 0,
    // Blocks over bands of rows: each stages the LUTs of the tiles its pixels blend as float pairs (a tile and its
    // right neighbour), each lane keeps its chunk's column weights across the rows it walks: two 8-byte shared
    // reads per pixel.
    Bands = 1,
};
constexpr int kClaheApplyVariants = 2;
constexpr int kMaxBandRows = 64;
const char* claheApplyName(ClaheApply v);

// How global equalization of 4- and 3-channel u8 frames in luma mode runs when src and dst rows are 16-byte aligned
// (base addresses and pitches); other alignments take Pixels.
enum class GlobalLuma : int {
    // The tile kernels with one tile: a histogram block per row band, one pixel per thread; the last histogram block
    // builds the LUT; the apply kernel one pixel (one word) per thread.
    Pixels = 0,
    // Blocks of 256 threads looping over the frame in 16-byte chunks of 4 pixels (3 channels: 48-byte chunks of 16
    // pixels, three 16-byte loads and stores), one shared histogram per warp with
    // lanes of equal flat chunks counted together; the apply blocks build the LUT from the histogram (as
    // GlobalVariant::BlockLut) or, under temporal smoothing, stage the one the last histogram block built. The apply
    // kernel is a programmatic dependent of the histogram kernel where the device runs it (overlapSupported()).
    Chunks = 1,
};
const char* globalLumaName(GlobalLuma v);

// How CLAHE of 4- and 3-channel u8 frames in luma mode runs when src and dst rows are 16-byte aligned (base addresses and
// pitches) and a band's LUT quads fit a block's shared memory (claheLumaChunksApply); other frames take Pixels.
enum class ClaheLuma : int {
    // The tile kernels: histogramKernel one pixel per thread (three byte loads), applyKernel one pixel (one word) per
    // thread with its tile coordinates and four LUT reads through the read-only cache.
    Pixels = 0,
    // claheHistogramLuma8: histogramKernel's blocks per tile reading 16-byte chunks of 4 pixels (3 channels: 48 bytes,
    // 16 pixels), one shared histogram per warp, lanes of equal flat chunks counted together; claheBandsLuma8: the band
    // kernel of ClaheApply::Bands over strips of 32 chunks (128 pixels; 512 of 3 channels), one LUT quad per pixel
    // from shared memory, a chunk stored as 16 (48) bytes.
    Chunks = 1,
};
const char* claheLumaName(ClaheLuma v);

// Which kernel variant a CudaEqualizer launches where several are compiled; tests and the benchmark ask for one.
struct KernelVariants {
    // The defaults are the fastest of the variants `bench-histeq` (scripts/gpu/build-bench-histeq.sh) times at 1080p
    // and 4K. Global GRAY8: the block LUT with the apply overlapped.
    GlobalVariant global = GlobalVariant::BlockLutOverlapped;
    // Global luma (RGBA and RGB): the 16-byte chunk kernels, on natural-ish content and on colour bars alike.
    GlobalLuma globalLuma = GlobalLuma::Chunks;
    ClaheApply claheApply = ClaheApply::Bands;
    // CLAHE luma (RGBA and RGB): the chunk kernels, both the histogram and the apply faster than the tile kernels'.
    ClaheLuma claheLuma = ClaheLuma::Chunks;
    // Histogram blocks of the tile kernels per SM (split among the tiles); 0: the default (2; 4 for ClaheLuma::Chunks).
    int histogramBlocksPerSm = 0;
    // ClaheApply::Bands: rows per band; 0: one wave of blocks (bands of at least 8 and at most kMaxBandRows rows).
    int bandRows = 0;
};

// Histogram pass (with tile LUTs built by each tile's last block), then the apply pass.
void launchHistogram(const HisteqParams& p, cudaStream_t stream);
void launchApply(const HisteqParams& p, cudaStream_t stream);
// ClaheApply::Bands: the shared memory a band of p's frame stages (an upper bound), or 0 where Bands does not apply
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
// ClaheApply::Bands and ClaheLuma::Chunks: the band kernel for p.channels over p.bandRows-row bands, as a
// programmatic dependent of the histogram kernel where p.overlapped (launchApply takes it where it applies).
void launchClaheBands(const HisteqParams& p, cudaStream_t stream);

// GlobalVariant::BlockLut and BlockLutOverlapped (p.overlapped): both kernels.
void launchGlobalGray8(const HisteqParams& p, cudaStream_t stream);
// Whether the current device runs the apply kernel as a programmatic dependent (BlockLutOverlapped).
bool overlapSupported();
// GlobalLuma::Chunks: both kernels (block LUT without temporal smoothing, last-block LUT with it), p.overlapped as
// for launchGlobalGray8.
void launchGlobalLuma8(const HisteqParams& p, cudaStream_t stream);
// Their blocks per SM on the current device (an occupancy query: once per equalizer, not per frame).
GlobalLumaBlocks globalLuma8BlocksPerSm(int channels);
// Whether a CudaEqualizer made with `variants` for `plan` runs the frame src → dst through launchGlobalLuma8: global
// mode, u8, 4 or 3 channels in luma mode, GlobalLuma::Chunks, and both images' base addresses and pitches multiples of 16.
// The equalizer decides by this function.
bool globalLumaChunksApply(const EqualizePlan& plan, const KernelVariants& variants, const ImageView& src,
                           const ImageView& dst);
// Whether a CudaEqualizer made with `variants` for `plan` runs the frame src → dst through the ClaheLuma::Chunks
// kernels: CLAHE, u8, 4 or 3 channels in luma mode, ClaheLuma::Chunks, both images' base addresses and pitches multiples of
// 16, and the LUT quads of a band (variants.bandRows rows, else 8, the least the equalizer takes) within a block's
// shared memory. The equalizer decides by this function.
bool claheLumaChunksApply(const EqualizePlan& plan, const KernelVariants& variants, const ImageView& src,
                          const ImageView& dst);

// A CUDA equalizer that launches the given variants (tests, benchmarks); makeCudaEqualizer takes the defaults.
std::unique_ptr<Equalizer> makeCudaEqualizer(EqualizePlan plan, const KernelVariants& variants);

}  // namespace cudafilters::detail
