// SPDX-License-Identifier: LGPL-2.1-or-later
// Global equalization by kernels of a few blocks per SM looping over the frame in 16-byte aligned chunks, whose apply
// blocks build the frame's LUT themselves from its 256 bins (histeq_lut.cuh's globalLutGray8): no grid-wide hand-off
// inside a kernel. the block-LUT kernels for u8 planes (globalHistogramGray8,
// globalApplyGray8), the luma chunk kernels for 4- and 3-channel u8 pixels in luma mode (globalHistogramLuma8,
// globalApplyLuma8). Where the device runs it, each apply kernel is a programmatic dependent of its histogram kernel.
#include "histeq_device.cuh"
#include "histeq_lut.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// The block-LUT kernels: global equalization of u8 planes by two kernels of a few blocks per SM looping over the
// frame. Rows are cut into the 16-byte aligned chunks they touch: a chunk inside the row is one 16-byte load, the
// partial ones at the row ends go sample by sample.

// Both GRAY8 kernels take at most 32 registers (sm_90, `cuobjdump -res-usage`) without a bound on them, so two blocks
// fill an SM of 2048 threads. (A minimum of two blocks per SM in __launch_bounds__ is out of range on 1024- and
// 1536-thread SMs.)
constexpr int kGlobalThreads = 1024;
constexpr int kGlobalBlocksPerSm = 2;
constexpr int kGlobalWarps = kGlobalThreads / 32;
static_assert(kGlobalThreads == 4 * 256 && kGlobalWarps == 32, "the histogram merge takes 4 groups of 8 copies");

// Item i of the frame: row y and the first column x of its chunk, in pixels; `full` when the chunk lies inside the
// row. CH = 1 (u8 planes): 16 pixels, rows at any alignment (x negative for the first chunk of a row that starts off a
// 16-byte boundary). CH = 4 (4-channel u8): 4 pixels, CH = 3: 16 pixels (48 bytes), rows 16-byte aligned.
struct Chunk {
    int y, x;
    bool full;
};

// Chunk `column` of row `row`.
template <int CH = 1> __device__ __forceinline__ Chunk chunkAt(const HisteqParams& p, int row, int column) {
    static_assert(CH == 1 || CH == 3 || CH == 4, "u8 planes or 3- or 4-channel pixels");
    constexpr int kPixels = chunkPixels(CH);
    Chunk c;
    c.y = row;
    c.x = column * kPixels;
    if constexpr (CH == 1)
        c.x -= int(reinterpret_cast<std::uintptr_t>(rowOf<std::uint8_t>(p.src, p.srcPitch, row)) & 15u);
    c.full = c.x >= 0 && c.x + kPixels <= p.width;
    return c;
}

// Plain loads: src may be dst (in place); a thread only ever writes the chunk it has read.
template <int CH = 1>
__device__ __forceinline__ ChunkData<CH> loadChunk(const HisteqParams& p, const Chunk& c, bool inFrame) {
    if (!inFrame || !c.full) return ChunkData<CH>{};
    return loadChunkAt<CH>(rowOf<std::uint8_t>(p.src, p.srcPitch, c.y) + std::size_t(c.x) * CH);
}

// visit(chunk, data) over this thread's items (data: the 16 or 48 bytes of a full chunk), each item's load issued before
// the previous item is visited; prologue() runs once, after the first load is issued. Blocks of THREADS threads. The
// items' rows and columns step by the stride's rows and columns (no division per item).
template <int CH = 1, int THREADS = kGlobalThreads, typename Prologue, typename Visit>
__device__ __forceinline__ void forEachChunk(const HisteqParams& p, Prologue prologue, Visit visit) {
    const int items = p.chunksPerRow * p.height;
    const int stride = gridDim.x * THREADS;
    const int strideRows = stride / p.chunksPerRow, strideColumns = stride - strideRows * p.chunksPerRow;
    int i = min(int(blockIdx.x * THREADS + threadIdx.x), items);
    int row = i / p.chunksPerRow, column = i - row * p.chunksPerRow;
    Chunk c = chunkAt<CH>(p, row, column);
    ChunkData<CH> q = loadChunk<CH>(p, c, i < items);
    prologue();
    while (i < items) {
        const int next = i + stride;
        row += strideRows;
        column += strideColumns;
        if (column >= p.chunksPerRow) {
            column -= p.chunksPerRow;
            ++row;
        }
        const Chunk n = chunkAt<CH>(p, row, column);
        const ChunkData<CH> qn = loadChunk<CH>(p, n, next < items);
        visit(c, q);
        i = next;
        c = n;
        q = qn;
    }
}

__global__ void __launch_bounds__(kGlobalThreads) globalHistogramGray8(const HisteqParams p) {
    __shared__ unsigned sHist[kGlobalWarps][256];
    releaseDependents();
    unsigned* h = sHist[threadIdx.x >> 5];
    forEachChunk(
        p,
        [&] {
            for (int i = threadIdx.x; i < kGlobalWarps * 256; i += kGlobalThreads) sHist[i >> 8][i & 255] = 0;
            if (blockIdx.x == 0 && threadIdx.x < 256) p.histNext[threadIdx.x] = 0;
            __syncthreads();
        },
        [&](const Chunk& c, uint4 q) {
            if (c.full) {
                // Runs of equal samples count with one atomic (flat areas: one per chunk instead of 16).
                const unsigned w[4] = {q.x, q.y, q.z, q.w};
                unsigned level = q.x & 0xffu, run = 1;
#pragma unroll
                for (int j = 1; j < 16; ++j) {
                    const unsigned b = (w[j >> 2] >> ((j & 3) * 8)) & 0xffu;
                    if (b == level) {
                        ++run;
                    } else {
                        atomicAdd(&h[level], run);
                        level = b;
                        run = 1;
                    }
                }
                atomicAdd(&h[level], run);
            } else {
                const std::uint8_t* row = rowOf<std::uint8_t>(p.src, p.srcPitch, c.y);
                for (int x = max(c.x, 0); x < min(c.x + 16, p.width); ++x) atomicAdd(&h[row[x]], 1u);
            }
        });
    __syncthreads();

    // 32 copies → 4 partial sums per bin (each in the first copy of its group of 8) → one global atomic per bin.
    const int bin = threadIdx.x & 255, group = threadIdx.x >> 8;
    unsigned s = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c) s += sHist[group * 8 + c][bin];
    sHist[group * 8][bin] = s;
    __syncthreads();
    if (threadIdx.x < 256) {
        const unsigned total = sHist[0][bin] + sHist[8][bin] + sHist[16][bin] + sHist[24][bin];
        if (total) atomicAdd(&p.hist[bin], total);
    }
}

// The first chunk's load is issued before the wait for the histogram kernel (the input is not what it writes).
__global__ void __launch_bounds__(kGlobalThreads) globalApplyGray8(const HisteqParams p) {
    __shared__ std::uint8_t sLut[256];
    forEachChunk(
        p,
        [&] {
            waitForPrerequisites();
            globalLutGray8(p.hist, sLut);
            if (p.statsOut && blockIdx.x == 0) statisticsFromHistogram<std::uint8_t, 1>(p, nullptr);
        },
        [&](const Chunk& c, uint4 q) {
            std::uint8_t* out = const_cast<std::uint8_t*>(rowOf<std::uint8_t>(p.dst, p.dstPitch, c.y));
            if (c.full) {
                const unsigned w[4] = {q.x, q.y, q.z, q.w};
                unsigned r[4];
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    r[j] = unsigned(sLut[w[j] & 0xffu]) | unsigned(sLut[(w[j] >> 8) & 0xffu]) << 8 |
                           unsigned(sLut[(w[j] >> 16) & 0xffu]) << 16 | unsigned(sLut[w[j] >> 24]) << 24;
                if (p.sameAlignment) {
                    *reinterpret_cast<uint4*>(out + c.x) = make_uint4(r[0], r[1], r[2], r[3]);
                } else {
#pragma unroll
                    for (int j = 0; j < 16; ++j) out[c.x + j] = std::uint8_t(r[j >> 2] >> ((j & 3) * 8));
                }
            } else {
                const std::uint8_t* in = rowOf<std::uint8_t>(p.src, p.srcPitch, c.y);
                for (int x = max(c.x, 0); x < min(c.x + 16, p.width); ++x) out[x] = sLut[in[x]];
            }
        });
}

// ---------------------------------------------------------------------------------------------------------------
// The luma chunk kernels: global equalization of 4-channel u8 pixels in luma mode (RGBA, BGRA, ARGB, ABGR and their x
// forms; CH = 4) and of 3-channel ones (RGB, BGR; CH = 3) whose rows are 16-byte aligned, by the GRAY8 kernels'
// scheme: blocks of kThreads looping over the frame in chunks of 4 pixels (one 16-byte load, one store) or of 16
// pixels of 3 channels (three of each, chunkPixels), the luma and the rebuilt pixel computed by lumaOf and rebuildRgb
// as in histogramKernel and applyKernel. Without temporal smoothing the apply blocks build the LUT from the
// histogram each (the histogram pair of the block-LUT kernels); with it the histogram kernel's last block builds the
// smoothed LUT into p.luts (buildTileLut, the temporal state of the tile kernels) and the apply blocks stage it.

// One shared histogram per warp, counted by countChunkLumas. LAST_BLOCK_LUT (temporal smoothing): the last block
// builds p.luts from p.hist as the tile kernels do (statistics first, the state updated, p.hist left zeroed);
// otherwise block 0 zeroes p.histNext.
template <int CH, bool LAST_BLOCK_LUT>
__global__ void __launch_bounds__(kThreads) globalHistogramLuma8(const HisteqParams p) {
    constexpr int kWarps = kThreads / 32;
    __shared__ unsigned sHist[kWarps][256];
    __shared__ unsigned scratch[kWarps];
    releaseDependents();
    const WordOrder order = wordOrder(p);
    unsigned* h = sHist[threadIdx.x >> 5];
    forEachChunk<CH, kThreads>(
        p,
        [&] {
            for (int i = threadIdx.x; i < kWarps * 256; i += kThreads) sHist[i >> 8][i & 255] = 0;
            if (!LAST_BLOCK_LUT && blockIdx.x == 0) p.histNext[threadIdx.x] = 0;
            __syncthreads();
        },
        [&](const Chunk& c, const ChunkData<CH>& q) {
            if (c.full) {
                countChunkLumas<CH>(q, order, 0u, [&](unsigned level, unsigned n) { atomicAdd(&h[level], n); });
            } else {
                const std::uint8_t* row = rowOf<std::uint8_t>(p.src, p.srcPitch, c.y);
                for (int x = c.x; x < p.width; ++x) atomicAdd(&h[lumaOfPixel(loadPixel<CH>(row, x), order)], 1u);
            }
        });
    __syncthreads();

    // kThreads == 256: thread t adds bin t of the warps' copies.
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += sHist[w][threadIdx.x];
    if (total) atomicAdd(&p.hist[threadIdx.x], total);

    if constexpr (LAST_BLOCK_LUT) {
        if (!lastToArrive(p.tileCounters, gridDim.x)) return;
        if (p.statsOut) statisticsFromHistogram<std::uint8_t, 1>(p, scratch);
        buildTileLut<std::uint8_t>(p, p.hist, static_cast<std::uint8_t*>(p.luts), p.histState, p.lutState, scratch);
        if (threadIdx.x == 0) p.tileCounters[0] = 0;
    }
}

// BLOCK_LUT: every block builds the frame's LUT from p.hist (block 0 also the statistics), as globalApplyGray8;
// otherwise it stages the LUT the histogram kernel's last block built. The first chunk's load is issued before the
// wait for the histogram kernel (the input is not what it writes).
template <int CH, bool BLOCK_LUT>
__global__ void __launch_bounds__(kThreads) globalApplyLuma8(const HisteqParams p) {
    __shared__ unsigned sLutWords[64];
    std::uint8_t* lut = reinterpret_cast<std::uint8_t*>(sLutWords);
    const WordOrder order = wordOrder(p);
    auto equalize = [&](unsigned pixel) {
        return equalizedPixel<HisteqKind::Luma>(pixel, order, [&](int, int y) { return int(lut[y]); });
    };
    forEachChunk<CH, kThreads>(
        p,
        [&] {
            waitForPrerequisites();
            if constexpr (BLOCK_LUT) {
                globalLutGray8(p.hist, lut);
                if (p.statsOut && blockIdx.x == 0) statisticsFromHistogram<std::uint8_t, 1>(p, nullptr);
            } else {
                const unsigned* words = static_cast<const unsigned*>(p.luts);
                if (threadIdx.x < 64) sLutWords[threadIdx.x] = __ldcg(words + threadIdx.x);
                __syncthreads();
            }
        },
        [&](const Chunk& c, const ChunkData<CH>& q) {
            std::uint8_t* out = const_cast<std::uint8_t*>(rowOf<std::uint8_t>(p.dst, p.dstPitch, c.y));
            if (c.full) {
                unsigned px[chunkPixels(CH)];
#pragma unroll
                for (int j = 0; j < chunkPixels(CH); ++j) px[j] = equalize(chunkPixel<CH>(q, j));
                storeChunkAt<CH>(out + std::size_t(c.x) * CH, chunkOfPixels<CH>(px));
            } else {
                const std::uint8_t* in = rowOf<std::uint8_t>(p.src, p.srcPitch, c.y);
                for (int x = c.x; x < p.width; ++x) storePixel<CH>(out, x, equalize(loadPixel<CH>(in, x)));
            }
        });
}

int globalBlocks(const HisteqParams& p) {
    const long long needed = ((long long)p.chunksPerRow * p.height + kGlobalThreads - 1) / kGlobalThreads;
    return int(std::max(1LL, std::min(needed, (long long)kGlobalBlocksPerSm * std::max(p.multiprocessors, 1))));
}

}  // namespace

void launchGlobalGray8(const HisteqParams& p, cudaStream_t stream) {
    const int blocks = globalBlocks(p);
    globalHistogramGray8<<<blocks, kGlobalThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("histeq global histogram kernel");
    launchAfterHistogram(globalApplyGray8, dim3(blocks), dim3(kGlobalThreads), 0, stream, p);
    CUDAFILTERS_CHECK_LAUNCH("histeq global apply kernel");
}

template <int CH> void launchGlobalLuma8Typed(const HisteqParams& p, cudaStream_t stream) {
    const long long needed = ((long long)p.chunksPerRow * p.height + kThreads - 1) / kThreads;
    auto blocks = [&](int perSm) {
        return int(std::max(1LL, std::min(needed, (long long)std::max(perSm, 1) * std::max(p.multiprocessors, 1))));
    };
    const int histogramBlocks = blocks(p.lumaBlocksPerSm.histogram), applyBlocks = blocks(p.lumaBlocksPerSm.apply);
    const bool blockLut = p.smoothTarget == 0;
    if (blockLut) globalHistogramLuma8<CH, false><<<histogramBlocks, kThreads, 0, stream>>>(p);
    else globalHistogramLuma8<CH, true><<<histogramBlocks, kThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("histeq global luma histogram kernel");
    launchAfterHistogram(blockLut ? globalApplyLuma8<CH, true> : globalApplyLuma8<CH, false>, dim3(applyBlocks),
                         dim3(kThreads), 0, stream, p);
    CUDAFILTERS_CHECK_LAUNCH("histeq global luma apply kernel");
}

void launchGlobalLuma8(const HisteqParams& p, cudaStream_t stream) {
    if (p.channels == 3) launchGlobalLuma8Typed<3>(p, stream);
    else launchGlobalLuma8Typed<4>(p, stream);
}

template <int CH> GlobalLumaBlocks globalLuma8BlocksPerSmTyped() {
    auto perSm = [](void (*kernel)(HisteqParams)) {
        int blocks = 0;
        CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0));
        return std::max(blocks, 1);
    };
    GlobalLumaBlocks b;
    b.histogram = std::min(perSm(globalHistogramLuma8<CH, false>), perSm(globalHistogramLuma8<CH, true>));
    b.apply = std::min(perSm(globalApplyLuma8<CH, false>), perSm(globalApplyLuma8<CH, true>));
    return b;
}

GlobalLumaBlocks globalLuma8BlocksPerSm(int channels) {
    return channels == 3 ? globalLuma8BlocksPerSmTyped<3>() : globalLuma8BlocksPerSmTyped<4>();
}

// The apply kernel waits for the histogram kernel only where it was compiled for sm_90 or later (griddepcontrol):
// code JIT-compiled from older PTX must not be launched early.
bool overlapSupported() {
    int device = 0, major = 0;
    CUDAFILTERS_CHECK(cudaGetDevice(&device));
    CUDAFILTERS_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    cudaFuncAttributes attributes{};
    CUDAFILTERS_CHECK(cudaFuncGetAttributes(&attributes, globalApplyGray8));
    return major >= 9 && attributes.ptxVersion >= 90;
}

}  // namespace cudafilters::detail
