// SPDX-License-Identifier: LGPL-2.1-or-later
// Histogram pass of the tile kernels (CLAHE; global equalization = one tile of the frame's size): every block counts
// its share of a tile into shared copies of the histogram, merges them into the tile's histogram in global memory,
// and the tile's last block builds the tile's LUTs (histeq_lut.cuh). For planes, Y/chroma pairs, luma (BT.601 YCrCb,
// OpenCV's fixed point) and per-channel RGB(A), u8 and u16; the CLAHE luma chunk kernels' claheHistogramLuma8 too.
//
// grid = (splits, tiles): block b of a tile takes rows b, b + splits, … of the (padded) tile (VEC: the tile's
// (row, chunk) items, spread over all the tile's blocks).
//
// VEC with CH == 4 or 3 (4- or 3-channel u8 luma, rows 16-byte aligned): chunks of 4 pixels (16 bytes) or 16 pixels
// (48 bytes, chunkPixels), one shared histogram per warp, counted by countChunkLumas with the rows in the frame and
// the padding rows in groups of their own.
#include "histeq_device.cuh"
#include "histeq_lut.cuh"

#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {
namespace {

constexpr int kSubHistograms = 4;  // privatised copies per block (warp w uses copy w % 4)
// u16 samples of up to 12 bits (10-bit formats: 1024 bins) count in shared memory too (dynamic: kSubHistograms ×
// bins words, 16 KB for 10 bits); deeper ones (65 536 bins) in global memory.
constexpr int kMaxSharedBins16 = 4096;

// The tile's columns [x0, x1) and rows [y0, y1) of the padded frame (reflect101 beyond its edges).
struct TileRect {
    int x0, x1, y0, y1;
};

// What one thread of a histogram block counts into: its warp's shared copy (u8; u16 when `shared`, the depth's bins
// within kMaxSharedBins16) or else the tile's histogram in global memory, and under STATS the block's statistics
// histogram and the thread's sum, min, max and count of the pixels inside the frame (padding is counted into the
// histogram, not into the statistics).
template <typename T, int CH, HisteqKind KIND, bool VEC, bool STATS> struct TileCounts {
    static constexpr int K = equalizedChannels(KIND);
    static constexpr bool kShared8 = sizeof(T) == 1;
    static constexpr bool kLumaChunks = VEC && (CH == 4 || CH == 3);
    static_assert(!kLumaChunks || (sizeof(T) == 1 && KIND == HisteqKind::Luma), "3- and 4-channel chunks: u8 luma");
    static constexpr int kCopies = kLumaChunks ? kThreads / 32 : kSubHistograms;  // shared u8 histograms per channel
    static constexpr int kStaticBins = kShared8 ? K * kCopies * 256 : 1;

    const HisteqParams& p;
    int bins, tiles;
    bool shared;
    unsigned* myHist;
    unsigned* myDynHist;
    std::uint32_t* gHist;  // channel k adds k * tiles * bins
    unsigned* sStats;
    unsigned long long tSum = 0;
    unsigned tMin = 0xffffffffu, tMax = 0, tCount = 0;

    // The values v of pixel (x, y), one per equalized channel.
    __device__ __forceinline__ void values(int x, int y, const int (&v)[K]) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if constexpr (kShared8) atomicAdd(&myHist[k * kCopies * 256 + v[k]], 1u);
            else if (shared) atomicAdd(&myDynHist[v[k]], 1u);
            else atomicAdd(&gHist[std::size_t(k) * tiles * bins + v[k]], 1u);
            if constexpr (STATS) {
                if (x < p.width && y < p.height) {
                    atomicAdd(&sStats[v[k] >> statsShiftOf<T>(p)], 1u);
                    tSum += unsigned(v[k]);
                    tMin = min(tMin, unsigned(v[k]));
                    tMax = max(tMax, unsigned(v[k]));
                    ++tCount;
                }
            }
        }
    }
    __device__ __forceinline__ void pixel(int x, int y, const T* px) {
        int v[K];
        pixelValues<T, CH, KIND>(px, p, v);
        values(x, y, v);
    }
    // kLumaChunks: n pixels of luma `level` in the frame's columns, of a row inside the frame or not (inFrame).
    __device__ __forceinline__ void run(unsigned level, unsigned n, bool inFrame) {
        atomicAdd(&myHist[level], n);
        if constexpr (STATS) {
            if (inFrame) {
                atomicAdd(&sStats[level], n);
                tSum += (unsigned long long)level * n;
                tMin = min(tMin, level);
                tMax = max(tMax, level);
                tCount += n;
            }
        }
    }
};

// Zeroes the block's shared copies and statistics.
template <typename Counts, bool STATS>
__device__ __forceinline__ void clearBlockCounts(unsigned* sHist, unsigned* dynHist, bool shared, int bins,
                                                 unsigned* sStats, unsigned long long& sSum, unsigned& sMin,
                                                 unsigned& sMax, unsigned& sCount) {
    if constexpr (Counts::kShared8) {
        for (int i = threadIdx.x; i < Counts::kStaticBins; i += kThreads) sHist[i] = 0;
    } else if (shared) {
        for (int i = threadIdx.x; i < kSubHistograms * bins; i += kThreads) dynHist[i] = 0;
    }
    if constexpr (STATS) {
        for (int i = threadIdx.x; i < 256; i += kThreads) sStats[i] = 0;
        if (threadIdx.x == 0) {
            sSum = 0;
            sMin = 0xffffffffu;
            sMax = 0;
            sCount = 0;
        }
    }
    __syncthreads();
}

// The non-VEC walk: rows of the tile by block, columns by thread, one pixel at a time.
template <typename T, int CH, typename Counts>
__device__ __forceinline__ void countRows(const HisteqParams& p, Counts& counts, const TileRect& r) {
    for (int y = r.y0 + blockIdx.x; y < r.y1; y += p.splits) {
        const T* row = rowOf<T>(p.src, p.srcPitch, reflect101(y, p.height));
        for (int x = r.x0 + int(threadIdx.x); x < r.x1; x += kThreads)
            counts.pixel(x, y, row + std::size_t(reflect101(x, p.width)) * CH);
    }
}

// The PPC samples of a whole 16-byte chunk of u8 planes, Y/chroma pairs or one u16 channel, starting at column c.
template <typename T, int CH, int PPC, typename Counts>
__device__ __forceinline__ void countChunkSamples(const HisteqParams& p, Counts& counts, const uint4& q, int c, int y) {
    const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int j = 0; j < PPC; ++j) {
        if constexpr (sizeof(T) == 2) {  // one channel: sample j as a level of the real depth
            const int sample = int((w[j >> 1] >> ((j & 1) * 16)) & 0xffffu);
            const int v[1] = {min(sample >> p.shift, counts.bins - 1)};
            counts.values(c + j, y, v);
        } else {
            // The equalized byte of pixel j, chosen without indexing by the run-time luma channel (an array indexed
            // so would live in local memory).
            const int b0 = j * CH, b1 = CH == 2 ? j * CH + 1 : b0;
            const int first = int((w[b0 >> 2] >> ((b0 & 3) * 8)) & 0xffu);
            const int second = int((w[b1 >> 2] >> ((b1 & 3) * 8)) & 0xffu);
            const int v[1] = {CH == 2 && p.lumaChannel == 1 ? second : first};
            counts.values(c + j, y, v);
        }
    }
}

// One (row y, chunk at column c) item: a whole chunk from its loaded data q, a partial one (or one in the padding
// columns) sample by sample; y < 0: no item.
template <typename T, int CH, int PPC, typename Counts, typename Data>
__device__ __forceinline__ void countItem(const HisteqParams& p, Counts& counts, const TileRect& r, int y, int c,
                                          bool whole, const Data& q) {
    if (whole) {
        if constexpr (Counts::kLumaChunks) {
            const bool inFrame = y < p.height;
            countChunkLumas<CH>(q, wordOrder(p), inFrame ? 0u : 1u,
                                [&](unsigned level, unsigned n) { counts.run(level, n, inFrame); });
        } else {
            countChunkSamples<T, CH, PPC>(p, counts, q, c, y);
        }
    } else if (y >= 0) {
        const T* row = rowOf<T>(p.src, p.srcPitch, reflect101(y, p.height));
        for (int x = max(c, r.x0); x < min(c + PPC, r.x1); ++x)
            counts.pixel(x, y, row + std::size_t(reflect101(x, p.width)) * CH);
    }
}

// The VEC walk: 16 / (CH · sample size) pixels per item from 16-byte aligned chunks, (row, chunk) items spread over
// all the tile's blocks. Item i is (row i / chunks, chunk i % chunks); a thread's items step by `stride`, kBatch loads
// issued before any is counted.
template <typename T, int CH, typename Counts>
__device__ __forceinline__ void countChunks(const HisteqParams& p, Counts& counts, const TileRect& r) {
    constexpr bool kLumaChunks = Counts::kLumaChunks;
    constexpr int PPC = kLumaChunks ? chunkPixels(CH) : 16 / (CH * int(sizeof(T)));
    const int c0 = r.x0 & ~(PPC - 1);
    const int chunks = (r.x1 - c0 + PPC - 1) / PPC;
    const int items = chunks * (r.y1 - r.y0);
    constexpr int kBatch = CH == 3 ? 2 : 4;  // 3 channels: 48 bytes an item
    const int stride = p.splits * kThreads, strideRows = stride / chunks, strideChunks = stride % chunks;
    int i = blockIdx.x * kThreads + threadIdx.x;
    int itemRow = i / chunks, itemChunk = i % chunks;
    while (i < items) {
        ChunkData<kLumaChunks ? CH : 1> q[kBatch];
        int ys[kBatch], cs[kBatch];
        bool whole[kBatch];
#pragma unroll
        for (int k = 0; k < kBatch; ++k) {
            ys[k] = i < items ? r.y0 + itemRow : -1;
            cs[k] = c0 + itemChunk * PPC;
            whole[k] = ys[k] >= 0 && cs[k] >= r.x0 && cs[k] + PPC <= r.x1 && cs[k] + PPC <= p.width;
            if (whole[k])
                q[k] = ldgChunkAt<kLumaChunks ? CH : 1>(reinterpret_cast<const std::uint8_t*>(
                    rowOf<T>(p.src, p.srcPitch, reflect101(ys[k], p.height)) + std::size_t(cs[k]) * CH));
            i += stride;
            itemRow += strideRows;
            itemChunk += strideChunks;
            if (itemChunk >= chunks) {
                itemChunk -= chunks;
                ++itemRow;
            }
        }
#pragma unroll
        for (int k = 0; k < kBatch; ++k) countItem<T, CH, PPC>(p, counts, r, ys[k], cs[k], whole[k], q[k]);
    }
}

// The block's shared copies added into the tile's histogram(s), one global atomic per occupied bin.
template <typename Counts>
__device__ __forceinline__ void mergeBlockCounts(const unsigned* sHist, const unsigned* dynHist, const Counts& counts) {
    constexpr int K = Counts::K, kCopies = Counts::kCopies;
    const int bins = counts.bins;
    if constexpr (Counts::kShared8) {
        for (int i = threadIdx.x; i < K * 256; i += kThreads) {
            const int k = i >> 8, bin = i & 255;
            unsigned s = 0;
#pragma unroll
            for (int c = 0; c < kCopies; ++c) s += sHist[(k * kCopies + c) * 256 + bin];
            if (s) atomicAdd(&counts.gHist[std::size_t(k) * counts.tiles * bins + bin], s);
        }
    } else if (counts.shared) {
        for (int bin = threadIdx.x; bin < bins; bin += kThreads) {
            unsigned s = 0;
#pragma unroll
            for (int c = 0; c < kSubHistograms; ++c) s += dynHist[c * bins + bin];
            if (s) atomicAdd(&counts.gHist[bin], s);
        }
    }
}

// STATS: the threads' totals reduced per warp into the block's, and the block's added into the accumulator.
template <typename Counts>
__device__ __forceinline__ void addBlockStatistics(const HisteqParams& p, Counts& counts, const unsigned* sStats,
                                                   unsigned long long& sSum, unsigned& sMin, unsigned& sMax,
                                                   unsigned& sCount) {
    for (int o = 16; o > 0; o >>= 1) {
        counts.tSum += __shfl_down_sync(0xffffffffu, counts.tSum, o);
        counts.tMin = min(counts.tMin, __shfl_down_sync(0xffffffffu, counts.tMin, o));
        counts.tMax = max(counts.tMax, __shfl_down_sync(0xffffffffu, counts.tMax, o));
        counts.tCount += __shfl_down_sync(0xffffffffu, counts.tCount, o);
    }
    if ((threadIdx.x & 31) == 0 && counts.tCount) {
        atomicAdd(&sSum, counts.tSum);
        atomicMin(&sMin, counts.tMin);
        atomicMax(&sMax, counts.tMax);
        atomicAdd(&sCount, counts.tCount);
    }
    __syncthreads();
    DeviceStatistics* acc = p.statsAccumulator;
    for (int i = threadIdx.x; i < 256; i += kThreads)
        if (sStats[i]) atomicAdd(&acc->histogram[i], sStats[i]);
    if (threadIdx.x == 0 && sCount) {
        atomicAdd(&acc->sum, sSum);
        atomicAdd(&acc->count, (unsigned long long)sCount);
        atomicMin(&acc->min, sMin);
        atomicMax(&acc->max, sMax);
    }
}

// The tile's last block: the frame's statistics first (global mode), then the tile's LUT of each equalized channel.
template <typename T, int K>
__device__ __forceinline__ void buildTileLuts(const HisteqParams& p, int tile, int tiles, int bins, unsigned* scratch) {
    if (!p.clahe && p.statsOut) statisticsFromHistogram<T, K>(p, scratch);
    T* luts = static_cast<T*>(p.luts);
    for (int k = 0; k < K; ++k) {
        const std::size_t offset = (std::size_t(k) * tiles + tile) * bins;
        buildTileLut<T>(p, p.hist + offset, luts + offset, p.histState + (p.smoothTarget == 1 ? offset : 0),
                        p.lutState + (p.smoothTarget == 2 ? offset : 0), scratch);
        __syncthreads();
    }
    if (threadIdx.x == 0) p.tileCounters[tile] = 0;
}

// STATS: the last tile to finish publishes the frame's statistics and clears the accumulator.
__device__ __forceinline__ void publishStatistics(const HisteqParams& p, int tiles) {
    if (!lastToArrive(p.doneCounter, unsigned(tiles))) return;
    DeviceStatistics* acc = p.statsAccumulator;
    for (int i = threadIdx.x; i < 256; i += kThreads) {
        p.statsOut->histogram[i] = __ldcg(&acc->histogram[i]);
        acc->histogram[i] = 0;
    }
    if (threadIdx.x == 0) {
        p.statsOut->sum = __ldcg(&acc->sum);
        p.statsOut->count = __ldcg(&acc->count);
        p.statsOut->min = __ldcg(&acc->min);
        p.statsOut->max = __ldcg(&acc->max);
        acc->sum = 0;
        acc->count = 0;
        acc->min = 0xffffffffu;
        acc->max = 0;
        *p.doneCounter = 0;
    }
}

template <typename T, int CH, HisteqKind KIND, bool VEC, bool STATS>
__device__ __forceinline__ void tileHistogram(const HisteqParams& p) {
    using Counts = TileCounts<T, CH, KIND, VEC, STATS>;
    constexpr int K = Counts::K;
    const int bins = binsOf<T>(p);

    __shared__ unsigned sHist[Counts::kStaticBins];
    extern __shared__ unsigned dynHist[];  // u16 with bins <= kMaxSharedBins16 (K = 1)
    __shared__ unsigned sStats[STATS ? 256 : 1];
    __shared__ unsigned long long sSum;
    __shared__ unsigned sMin, sMax, sCount;
    __shared__ unsigned scratch[kThreads / 32];

    releaseDependents();  // the apply kernel's blocks may take their places as soon as all of these have started
    const int tile = blockIdx.y;
    const int tx = tile % p.tilesX, ty = tile / p.tilesX;
    const int x0 = tx * p.tileWidth, y0 = ty * p.tileHeight;
    const TileRect r{x0, x0 + p.tileWidth, y0, y0 + p.tileHeight};
    const int tiles = p.tilesX * p.tilesY;

    // Shared counting: always for u8; for u16 when the depth's bins fit (the same for the whole grid).
    const bool shared = Counts::kShared8 || (K == 1 && bins <= kMaxSharedBins16);
    clearBlockCounts<Counts, STATS>(sHist, dynHist, shared, bins, sStats, sSum, sMin, sMax, sCount);

    Counts counts{p,
                  bins,
                  tiles,
                  shared,
                  sHist + ((threadIdx.x >> 5) % Counts::kCopies) * 256,
                  dynHist + ((threadIdx.x >> 5) % kSubHistograms) * bins,
                  p.hist + std::size_t(tile) * bins,
                  sStats};
    if constexpr (VEC) countChunks<T, CH>(p, counts, r);
    else countRows<T, CH>(p, counts, r);
    __syncthreads();

    mergeBlockCounts(sHist, dynHist, counts);
    if constexpr (STATS) addBlockStatistics(p, counts, sStats, sSum, sMin, sMax, sCount);

    // The last block of this tile builds its LUT(s).
    if (!lastToArrive(&p.tileCounters[tile], unsigned(p.splits))) return;
    buildTileLuts<T, K>(p, tile, tiles, bins, scratch);
    if constexpr (STATS) publishStatistics(p, tiles);
}

template <typename T, int CH, HisteqKind KIND, bool VEC, bool STATS>
__global__ void __launch_bounds__(kThreads) histogramKernel(const HisteqParams p) {
    tileHistogram<T, CH, KIND, VEC, STATS>(p);
}

// The CLAHE luma chunk kernels: CLAHE of 4- and 3-channel u8 pixels in luma mode, rows 16-byte aligned.
template <int CH, bool STATS> __global__ void __launch_bounds__(kThreads) claheHistogramLuma8(const HisteqParams p) {
    tileHistogram<std::uint8_t, CH, HisteqKind::Luma, true, STATS>(p);
}

template <typename T, int CH, HisteqKind KIND>
void histogramTyped(const HisteqParams& p, cudaStream_t stream) {
    const dim3 grid(p.splits, p.tilesX * p.tilesY);
    const bool stats = p.statsAccumulator != nullptr && p.clahe;  // global: from the histogram, in its last block
    // u8 counts in a static shared array; u16 of up to kMaxSharedBins16 bins in dynamic shared memory.
    const bool dynamicShared = sizeof(T) == 2 && equalizedChannels(KIND) == 1 && p.bins <= kMaxSharedBins16;
    const std::size_t bytes = dynamicShared ? std::size_t(kSubHistograms) * p.bins * sizeof(unsigned) : 0;
    if constexpr (sizeof(T) == 1 && (CH == 4 || CH == 3) && KIND == HisteqKind::Luma) {
        if (p.claheLumaChunks) {
            if (stats) claheHistogramLuma8<CH, true><<<grid, kThreads, 0, stream>>>(p);
            else claheHistogramLuma8<CH, false><<<grid, kThreads, 0, stream>>>(p);
            return;
        }
    }
    constexpr bool kVectorizable = sizeof(T) == 1 ? (CH == 1 || CH == 2) : CH == 1;  // 16-byte chunks
    if constexpr (kVectorizable) {
        if (p.vectorized) {
            if (stats) histogramKernel<T, CH, KIND, true, true><<<grid, kThreads, bytes, stream>>>(p);
            else histogramKernel<T, CH, KIND, true, false><<<grid, kThreads, bytes, stream>>>(p);
            return;
        }
    }
    if (stats) histogramKernel<T, CH, KIND, false, true><<<grid, kThreads, bytes, stream>>>(p);
    else histogramKernel<T, CH, KIND, false, false><<<grid, kThreads, bytes, stream>>>(p);
}

template <typename T, int CH, HisteqKind KIND> struct HistogramOp {
    static void run(const HisteqParams& p, cudaStream_t s) { histogramTyped<T, CH, KIND>(p, s); }
};

}  // namespace

void launchHistogram(const HisteqParams& p, cudaStream_t stream) {
    dispatch<HistogramOp>(p, stream);
    CUDAFILTERS_CHECK_LAUNCH("histeq histogram kernel");
}

}  // namespace cudafilters::detail
