// SPDX-License-Identifier: LGPL-2.1-or-later
// Histogram equalization kernels: a tile histogram pass whose last block per tile builds that tile's LUT (global
// equalization = one tile), and an apply pass (LUT lookup, or CLAHE's bilinear blend of four tile LUTs), both for
// planes, luma (BT.601 YCrCb, OpenCV's fixed point) and per-channel RGB(A). Arithmetic mirrors cuda/core exactly.
// Global equalization of u8 planes has a second pair (GlobalVariant::BlockLut): a histogram kernel, then an apply
// kernel whose every block builds the LUT itself; 4-channel u8 pixels in luma mode a third (GlobalLuma::Chunks).
#include "histeq_launch.hpp"
#include "../../common/byte_float.cuh"
#include "histeq_formula.hpp"

#include <cudafilters/cuda_raii.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cudafilters::detail {
namespace {

constexpr int kThreads = 256;      // both passes; the LUT builder assumes bins % kThreads == 0
constexpr int kSubHistograms = 4;  // privatised copies per block (warp w uses copy w % 4)
// u16 samples of up to 12 bits (10-bit formats: 1024 bins) count in shared memory too (dynamic: kSubHistograms ×
// bins words, 16 KB for 10 bits); deeper ones (65 536 bins) in global memory.
constexpr int kMaxSharedBins16 = 4096;

template <typename T> struct SampleTraits;
template <> struct SampleTraits<std::uint8_t> {
    static constexpr int kMax = 255;
};
template <> struct SampleTraits<std::uint16_t> {
    static constexpr int kMax = 65535;
};

// Bins of the histograms: 256 for u8 (known at compile time), one per level of the real depth for u16 (65 536, or
// 1024 for 10-bit formats).
template <typename T> __device__ __forceinline__ int binsOf(const HisteqParams& p) {
    if constexpr (sizeof(T) == 1) return 256;
    else return p.bins;
}
template <typename T> __device__ __forceinline__ int statsShiftOf(const HisteqParams& p) {
    if constexpr (sizeof(T) == 1) return 0;
    else return p.statsShift;
}

constexpr int equalizedChannels(HisteqKind k) { return k == HisteqKind::PerChannel ? 3 : 1; }

__device__ __forceinline__ int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

__device__ __forceinline__ int descale(int v) { return (v + (1 << 13)) >> 14; }
__device__ __forceinline__ int clampTo(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

// Y of BT.601 YCrCb (cv::cvtColor's fixed point). The weights sum to 1 << 14, so Y lies in [0, kMax] before the clamp.
template <int kMax> __device__ __forceinline__ int lumaOf(int r, int g, int b) {
    return clampTo(descale(r * 4899 + g * 9617 + b * 1868), kMax);
}

// R, G and B of a pixel whose Y (lumaOf) went from yOld to yNew: Cr and Cb of the old pixel, then YCrCb back to RGB
// around the new Y, as cv::cvtColor's fixed point round trip.
template <int kMax>
__device__ __forceinline__ void rebuildRgb(int r, int b, int yOld, int yNew, int& rOut, int& gOut, int& bOut) {
    constexpr int kHalf = (kMax + 1) / 2;
    const int cr = clampTo(descale((r - yOld) * 11682 + (kHalf << 14)), kMax);
    const int cb = clampTo(descale((b - yOld) * 9241 + (kHalf << 14)), kMax);
    bOut = clampTo(yNew + descale((cb - kHalf) * 29049), kMax);
    gOut = clampTo(yNew + descale((cb - kHalf) * -5636 + (cr - kHalf) * -11698), kMax);
    rOut = clampTo(yNew + descale((cr - kHalf) * 22987), kMax);
}

// 4-channel u8 pixels read as one little-endian word: which bytes hold R, G and B, and the bits kept (alpha or
// padding). Channels picked by byte permutes and shifts: an array indexed by the run-time channel order would live in
// local memory.
struct WordOrder {
    unsigned red, green, blue, kept;
};

__device__ __forceinline__ WordOrder wordOrder(const HisteqParams& p) {
    WordOrder o{unsigned(p.red), unsigned(p.green), unsigned(p.blue), 0u};
    o.kept = ~(0xffu << 8 * o.red | 0xffu << 8 * o.green | 0xffu << 8 * o.blue);
    return o;
}

// Byte `index` of the pixel (the permute's other bytes come from the zero word).
__device__ __forceinline__ int channelOf(unsigned pixel, unsigned index) {
    return int(__byte_perm(pixel, 0u, 0x4440u | index));
}

__device__ __forceinline__ int lumaOfPixel(unsigned pixel, const WordOrder& o) {
    return lumaOf<255>(channelOf(pixel, o.red), channelOf(pixel, o.green), channelOf(pixel, o.blue));
}

// The pixel equalized with map(k, value) → level for equalized channel k: Y mapped and RGB rebuilt around it (Luma),
// or R, G and B mapped (PerChannel); the fourth channel kept.
template <HisteqKind KIND, typename Map>
__device__ __forceinline__ unsigned equalizedPixel(unsigned pixel, const WordOrder& o, Map map) {
    const int r = channelOf(pixel, o.red), g = channelOf(pixel, o.green), b = channelOf(pixel, o.blue);
    int rOut, gOut, bOut;
    if constexpr (KIND == HisteqKind::Luma) {
        const int y = lumaOf<255>(r, g, b);
        rebuildRgb<255>(r, b, y, map(0, y), rOut, gOut, bOut);
    } else {
        rOut = map(0, r);
        gOut = map(1, g);
        bOut = map(2, b);
    }
    return (pixel & o.kept) | unsigned(rOut) << 8 * o.red | unsigned(gOut) << 8 * o.green |
           unsigned(bOut) << 8 * o.blue;
}

// The 16-byte aligned items of the luma chunk kernels (GlobalLuma::Chunks, ClaheLuma::Chunks) and of the u8 plane
// kernels: 16 / CH pixels in one uint4 (CH = 1, 2, 4), or 16 pixels of 3 channels in three (48 bytes).
__host__ __device__ constexpr int chunkPixels(int channels) { return channels == 3 ? 16 : 16 / channels; }
struct Uint4x3 {
    uint4 a, b, c;
};
template <int CH> using ChunkData = std::conditional_t<CH == 3, Uint4x3, uint4>;

// Word k of a chunk (k a constant once unrolled).
__device__ __forceinline__ unsigned wordOf(const uint4& q, int k) { return k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w; }
__device__ __forceinline__ unsigned wordOf(const Uint4x3& q, int k) { return wordOf(k < 4 ? q.a : k < 8 ? q.b : q.c, k & 3); }

// Pixel j of a chunk as a little-endian word for lumaOfPixel / equalizedPixel (WordOrder): 4 channels the word itself,
// 3 channels bytes 3j .. 3j + 2 in bytes 0-2 (byte 3 a neighbour's, never stored).
template <int CH> __device__ __forceinline__ unsigned chunkPixel(const ChunkData<CH>& q, int j) {
    static_assert(CH == 3 || CH == 4, "pixels of 3 or 4 channels");
    if constexpr (CH == 4) {
        return wordOf(q, j);
    } else {
        const int b = 3 * j, k = b >> 2, s = b & 3;
        return __byte_perm(wordOf(q, k), wordOf(q, k < 11 ? k + 1 : k),
                           unsigned(s | (s + 1) << 4 | (s + 2) << 8 | (s + 3) << 12));
    }
}

// The chunk of pixels px[0 .. chunkPixels(CH) - 1] (words as chunkPixel gives them; 3 channels: bytes 0-2 of each).
template <int CH> __device__ __forceinline__ ChunkData<CH> chunkOfPixels(const unsigned (&px)[chunkPixels(CH)]) {
    if constexpr (CH == 4) {
        return make_uint4(px[0], px[1], px[2], px[3]);
    } else {
        unsigned w[12];
#pragma unroll
        for (int k = 0; k < 12; ++k) {
            // Byte i of word k is byte (4k + i) % 3 of pixel (4k + i) / 3: pixels `first` and first + 1.
            const int first = 4 * k / 3;
            unsigned selector = 0;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int b = 4 * k + i;
                selector |= unsigned((b / 3 - first) * 4 + b % 3) << (4 * i);
            }
            w[k] = __byte_perm(px[first], px[first < 15 ? first + 1 : first], selector);
        }
        return Uint4x3{make_uint4(w[0], w[1], w[2], w[3]), make_uint4(w[4], w[5], w[6], w[7]),
                       make_uint4(w[8], w[9], w[10], w[11])};
    }
}

// Pixel x of a row of CH-channel u8 pixels as a word (chunkPixel's form), and its store: the partial chunks.
template <int CH> __device__ __forceinline__ unsigned loadPixel(const std::uint8_t* row, int x) {
    if constexpr (CH == 4) {
        return reinterpret_cast<const unsigned*>(row)[x];
    } else {
        const std::uint8_t* px = row + std::size_t(x) * 3;
        return unsigned(px[0]) | unsigned(px[1]) << 8 | unsigned(px[2]) << 16;
    }
}
template <int CH> __device__ __forceinline__ void storePixel(std::uint8_t* row, int x, unsigned pixel) {
    if constexpr (CH == 4) {
        reinterpret_cast<unsigned*>(row)[x] = pixel;
    } else {
        std::uint8_t* px = row + std::size_t(x) * 3;
        px[0] = std::uint8_t(pixel);
        px[1] = std::uint8_t(pixel >> 8);
        px[2] = std::uint8_t(pixel >> 16);
    }
}

// Counts the lumas of a whole chunk through countRun(level, n). A flat chunk (one luma) counts once for all the lanes
// whose chunks hold that luma in the same group (__match_any_sync: a flat area costs one atomic per warp, not 32 on
// one bank); other chunks by runs of equal lumas. group < 2 (CLAHE: rows in the frame 0, padding rows 1).
template <int CH, typename CountRun>
__device__ __forceinline__ void countChunkLumas(const ChunkData<CH>& q, const WordOrder& order, unsigned group,
                                                CountRun&& countRun) {
    constexpr int kPixels = chunkPixels(CH);
    unsigned luma[kPixels];
    bool flat = true;
#pragma unroll
    for (int j = 0; j < kPixels; ++j) {
        luma[j] = unsigned(lumaOfPixel(chunkPixel<CH>(q, j), order));
        flat = flat && luma[j] == luma[0];
    }
    const unsigned lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(__activemask(), flat ? luma[0] | group << 8 : 512u + lane);
    if (flat) {
        if (lane == unsigned(__ffs(peers) - 1)) countRun(luma[0], unsigned(kPixels) * unsigned(__popc(peers)));
        return;
    }
    unsigned level = luma[0], run = 1;
#pragma unroll
    for (int j = 1; j < kPixels; ++j) {
        if (luma[j] == level) {
            ++run;
        } else {
            countRun(level, run);
            level = luma[j];
            run = 1;
        }
    }
    countRun(level, run);
}

// A chunk at a 16-byte aligned address: plain loads (src may be dst), read-only loads, stores.
template <int CH> __device__ __forceinline__ ChunkData<CH> loadChunkAt(const std::uint8_t* at) {
    const uint4* q = reinterpret_cast<const uint4*>(at);
    if constexpr (CH == 3) return Uint4x3{q[0], q[1], q[2]};
    else return q[0];
}
template <int CH> __device__ __forceinline__ ChunkData<CH> ldgChunkAt(const std::uint8_t* at) {
    const uint4* q = reinterpret_cast<const uint4*>(at);
    if constexpr (CH == 3) return Uint4x3{__ldg(q), __ldg(q + 1), __ldg(q + 2)};
    else return __ldg(q);
}
template <int CH> __device__ __forceinline__ void storeChunkAt(std::uint8_t* at, const ChunkData<CH>& v) {
    uint4* q = reinterpret_cast<uint4*>(at);
    if constexpr (CH == 3) {
        q[0] = v.a;
        q[1] = v.b;
        q[2] = v.c;
    } else {
        q[0] = v;
    }
}

// The values that are equalized for one pixel: the sample (as a level of its depth), Y of a Y/chroma pair or of
// RGB, or R, G, B.
template <typename T, int CH, HisteqKind KIND>
__device__ __forceinline__ void pixelValues(const T* px, const HisteqParams& p, int (&v)[equalizedChannels(KIND)]) {
    if constexpr (CH == 1 && sizeof(T) == 1) {
        v[0] = px[0];
    } else if constexpr (CH == 1) {
        v[0] = min(int(px[0]) >> p.shift, p.bins - 1);  // levels above a 10-bit depth saturate
    } else if constexpr (CH == 2) {
        v[0] = px[p.lumaChannel];
    } else if constexpr (KIND == HisteqKind::Luma) {
        v[0] = lumaOf<SampleTraits<T>::kMax>(px[p.red], px[p.green], px[p.blue]);
    } else {
        v[0] = px[p.red];
        v[1] = px[p.green];
        v[2] = px[p.blue];
    }
}

__device__ __forceinline__ int saturateRound(float v, int hi) { return clampTo(__float2int_rn(v), hi); }

// Programmatic dependent launch (sm_90): no-ops when the kernels are launched the ordinary way.
__device__ __forceinline__ void releaseDependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void waitForPrerequisites() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <typename T> __device__ __forceinline__ const T* rowOf(const void* base, std::size_t pitch, int y) {
    return reinterpret_cast<const T*>(static_cast<const std::uint8_t*>(base) + std::size_t(y) * pitch);
}

// ---------------------------------------------------------------------------------------------------------------
// LUT construction for one tile of one equalized channel, by a whole block (kThreads threads, every kThreads-th bin
// each). `h` is the tile's histogram in global memory; it is left zeroed.

__device__ unsigned blockSum(unsigned v, unsigned* scratch) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += scratch[w];
    return total;
}

__device__ unsigned blockMin(unsigned v, unsigned* scratch) {
    for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_down_sync(0xffffffffu, v, o));
    __syncthreads();
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned m = 0xffffffffu;
    for (int w = 0; w < kThreads / 32; ++w) m = min(m, scratch[w]);
    return m;
}

// Inclusive prefix over threads of `v`; `total` gets the block's sum.
__device__ unsigned blockInclusiveScan(unsigned v, unsigned* scratch, unsigned& total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned x = v;
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    __syncthreads();
    if (lane == 31) scratch[warp] = x;
    __syncthreads();
    unsigned offset = 0, all = 0;
    for (int w = 0; w < kThreads / 32; ++w) {
        const unsigned s = scratch[w];
        if (w < warp) offset += s;
        all += s;
    }
    total = all;
    return offset + x;
}

// Calls f(i, h[i]) for this thread's bins i = t, t + kThreads, … in order, every thread the same number of times
// (bins % kThreads == 0), with the loads of 8 chunks issued together: f's block scans wait at barriers, and one load
// of the histogram at a time left each of them waiting for L2.
template <typename F> __device__ __forceinline__ void forChunks(const std::uint32_t* h, int bins, F f) {
    constexpr int kAhead = 8;
    for (int base = 0; base < bins; base += kAhead * kThreads) {
        unsigned v[kAhead];
#pragma unroll
        for (int j = 0; j < kAhead; ++j)
            if (base + j * kThreads < bins) v[j] = __ldcg(&h[base + j * kThreads + threadIdx.x]);
#pragma unroll
        for (int j = 0; j < kAhead; ++j)
            if (base + j * kThreads < bins) f(base + j * kThreads + int(threadIdx.x), v[j]);
    }
}

// Thread t takes bins t, t + kThreads, t + 2 · kThreads, …: neighbouring threads read neighbouring words (with
// consecutive bins per thread, at 65 536 bins every warp load would touch 32 lines). The LUT
// takes the inclusive prefix of the (clipped) histogram chunk by chunk, kThreads bins at a time.
template <typename T>
__device__ void buildTileLut(const HisteqParams& p, std::uint32_t* h, T* lut, unsigned long long* histState,
                             std::uint32_t* lutState, unsigned* scratch) {
    const int bins = binsOf<T>(p);
    const int begin = threadIdx.x;

    if (p.smoothTarget == 1) {
        for (int i = begin; i < bins; i += kThreads) {
            const unsigned long long x = (unsigned long long)__ldcg(&h[i]) << 16;
            const unsigned long long s =
                p.first ? x : ((unsigned long long)p.alphaFixed * histState[i] +
                               (unsigned long long)(65536u - p.alphaFixed) * x + 32768ull) >> 16;
            histState[i] = s;
            h[i] = std::uint32_t((s + 32768ull) >> 16);
        }
    }

    if (p.clahe) {
        // Clip and redistribute exactly as cv::createCLAHE.
        unsigned clipped = 0;
        const unsigned limit = unsigned(p.clipLimit);
        if (p.clipLimit > 0)
            for (int i = begin; i < bins; i += kThreads) {
                const unsigned v = __ldcg(&h[i]);
                if (v > limit) clipped += v - limit;
            }
        clipped = blockSum(clipped, scratch);
        const unsigned batch = clipped / bins;
        const unsigned residual = clipped - batch * bins;
        const unsigned step = residual ? max(unsigned(bins) / residual, 1u) : 1u;
        unsigned carry = 0;
        forChunks(h, bins, [&](int i, unsigned v) {
            if (p.clipLimit > 0) {
                v = min(v, limit) + batch;
                if (residual && unsigned(i) % step == 0 && unsigned(i) / step < residual) ++v;
            }
            unsigned chunk;
            const unsigned sum = carry + blockInclusiveScan(v, scratch, chunk);
            carry += chunk;
            lut[i] = T(saturateRound(__fmul_rn(float(sum), p.lutScale), bins - 1));
        });
    } else {
        // cv::equalizeHist: first occupied bin maps to 0, a single occupied level maps to itself.
        unsigned local = 0, first = 0xffffffffu;
        for (int i = begin; i < bins; i += kThreads) {
            const unsigned v = __ldcg(&h[i]);
            local += v;
            if (v && first == 0xffffffffu) first = i;
        }
        const unsigned total = blockSum(local, scratch);
        const unsigned i0 = blockMin(first, scratch);
        // h[i0] belongs to another thread, which zeroes it at the end of this function: every thread reads it here,
        // before the scan's barriers (reading it after the scan raced with that zeroing: a lagging warp could read 0
        // and build a wrong LUT, seen only when warps are reordered, e.g. under compute-sanitizer).
        const unsigned h0 = i0 == 0xffffffffu ? 0u : __ldcg(&h[i0]);
        const core::EqualizeTerms terms = core::equalizeTerms(bins, i0 == 0xffffffffu ? bins : int(i0), h0, total);
        unsigned carry = 0;
        forChunks(h, bins, [&](int i, unsigned v) {
            unsigned chunk;
            const unsigned sum = carry + blockInclusiveScan(v, scratch, chunk);
            carry += chunk;
            lut[i] = T(core::equalizedLevel(terms, bins, i, sum));
        });
    }

    if (p.smoothTarget == 2) {
        for (int i = begin; i < bins; i += kThreads) {
            const unsigned long long x = (unsigned long long)lut[i] << 16;
            const unsigned long long s =
                p.first ? x : ((unsigned long long)p.alphaFixed * lutState[i] +
                               (unsigned long long)(65536u - p.alphaFixed) * x + 32768ull) >> 16;
            lutState[i] = std::uint32_t(s);
            lut[i] = T((s + 32768ull) >> 16);
        }
    }
    // No thread may read a bin of h once its owner has zeroed it (the scratch left zeroed for the next frame).
    __syncthreads();
    for (int i = begin; i < bins; i += kThreads) h[i] = 0;
}

// Global mode: the frame's statistics follow from its K histograms (no per-pixel work). Each of the block's first
// kThreads threads owns bins / kThreads consecutive bins, i.e. exactly one statistics bin for u16 and one bin for u8.
template <typename T, int K>
__device__ void statisticsFromHistogram(const HisteqParams& p, unsigned* scratch) {
    const int bins = binsOf<T>(p);
    const int per = bins / kThreads;
    __shared__ unsigned long long sSum;
    __shared__ unsigned sCount, sMin, sMax;
    if (threadIdx.x == 0) {
        sSum = 0;
        sCount = 0;
        sMin = 0xffffffffu;
        sMax = 0;
    }
    __syncthreads();
    unsigned count = 0, lo = 0xffffffffu, hi = 0;
    unsigned long long sum = 0;
    const int begin = threadIdx.x * per;
    if (threadIdx.x < kThreads) {
        for (int k = 0; k < K; ++k) {
            const std::uint32_t* h = p.hist + std::size_t(k) * bins;
            for (int i = begin; i < begin + per; ++i) {
                const unsigned v = __ldcg(&h[i]);
                if (v) {
                    count += v;
                    sum += (unsigned long long)v * unsigned(i);
                    lo = min(lo, unsigned(i));
                    hi = max(hi, unsigned(i));
                }
            }
        }
        p.statsOut->histogram[threadIdx.x] = count;  // 256 statistics bins, one per thread
        atomicAdd(&sSum, sum);
        atomicAdd(&sCount, count);
        atomicMin(&sMin, lo);
        atomicMax(&sMax, hi);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        p.statsOut->sum = sSum;
        p.statsOut->count = sCount;
        p.statsOut->min = sMin;
        p.statsOut->max = sMax;
    }
    __syncthreads();
    (void)scratch;
}

// Whether this block is the last of `blocks` to add itself to `counter` (the answer for every thread of the block);
// the global writes of the blocks before it are then visible to it.
__device__ bool lastToArrive(std::uint32_t* counter, unsigned blocks) {
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == blocks - 1;
    __syncthreads();
    const bool result = last;
    __threadfence();
    return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Histogram pass. grid = (splits, tiles): block b of a tile takes rows b, b + splits, … of the (padded) tile; the
// kernels histogramKernel and claheHistogramLuma8 (ClaheLuma::Chunks) below.
//
// VEC with CH == 4 or 3 (4- or 3-channel u8 luma, rows 16-byte aligned): chunks of 4 pixels (16 bytes) or 16 pixels
// (48 bytes, chunkPixels), one shared histogram per warp, counted by countChunkLumas with the rows in the frame and
// the padding rows in groups of their own.

template <typename T, int CH, HisteqKind KIND, bool VEC, bool STATS>
__device__ __forceinline__ void tileHistogram(const HisteqParams& p) {
    constexpr int K = equalizedChannels(KIND);
    const int bins = binsOf<T>(p);
    constexpr bool kShared8 = sizeof(T) == 1;
    constexpr bool kLumaChunks = VEC && (CH == 4 || CH == 3);
    static_assert(!kLumaChunks || (sizeof(T) == 1 && KIND == HisteqKind::Luma), "3- and 4-channel chunks: u8 luma");
    constexpr int kCopies = kLumaChunks ? kThreads / 32 : kSubHistograms;  // shared u8 histograms per equalized channel
    constexpr int kStaticBins = kShared8 ? K * kCopies * 256 : 1;

    __shared__ unsigned sHist[kStaticBins];
    extern __shared__ unsigned dynHist[];  // u16 with bins <= kMaxSharedBins16 (K = 1)
    __shared__ unsigned sStats[STATS ? 256 : 1];
    __shared__ unsigned long long sSum;
    __shared__ unsigned sMin, sMax, sCount;
    __shared__ unsigned scratch[kThreads / 32];

    releaseDependents();  // the apply kernel's blocks may take their places as soon as all of these have started
    const int tile = blockIdx.y;
    const int tx = tile % p.tilesX, ty = tile / p.tilesX;
    const int x0 = tx * p.tileWidth, x1 = x0 + p.tileWidth;
    const int y0 = ty * p.tileHeight, y1 = y0 + p.tileHeight;
    const int tiles = p.tilesX * p.tilesY;

    // Shared counting: always for u8; for u16 when the depth's bins fit (the same for the whole grid).
    const bool shared = kShared8 || (K == 1 && bins <= kMaxSharedBins16);
    if constexpr (kShared8) {
        for (int i = threadIdx.x; i < kStaticBins; i += kThreads) sHist[i] = 0;
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

    unsigned* myHist = sHist + ((threadIdx.x >> 5) % kCopies) * 256;
    unsigned* myDynHist = dynHist + ((threadIdx.x >> 5) % kSubHistograms) * bins;
    std::uint32_t* gHist = p.hist + std::size_t(tile) * bins;  // channel k adds k * tiles * bins
    unsigned long long tSum = 0;
    unsigned tMin = 0xffffffffu, tMax = 0, tCount = 0;

    auto countValues = [&](int x, int y, const int (&v)[K]) {
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
    };
    auto count = [&](int x, int y, const T* px) {
        int v[K];
        pixelValues<T, CH, KIND>(px, p, v);
        countValues(x, y, v);
    };
    // kLumaChunks: n pixels of luma `level` in the frame's columns, of row y (inFrame: y < height).
    auto countRun = [&](unsigned level, unsigned n, bool inFrame) {
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
    };

    if constexpr (VEC) {
        // 16 / (CH · sample size) pixels per item from 16-byte aligned chunks, (row, chunk) items spread over all the
        // tile's blocks; partial chunks and padding sample by sample.
        constexpr int PPC = kLumaChunks ? chunkPixels(CH) : 16 / (CH * int(sizeof(T)));
        const int c0 = x0 & ~(PPC - 1);
        const int chunks = (x1 - c0 + PPC - 1) / PPC;
        const int items = chunks * (y1 - y0);
        // Item i is (row i / chunks, chunk i % chunks); a thread's items step by `stride`, kBatch loads issued
        // before any is counted.
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
                ys[k] = i < items ? y0 + itemRow : -1;
                cs[k] = c0 + itemChunk * PPC;
                whole[k] = ys[k] >= 0 && cs[k] >= x0 && cs[k] + PPC <= x1 && cs[k] + PPC <= p.width;
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
            for (int k = 0; k < kBatch; ++k) {
                const int y = ys[k], c = cs[k];
                if (whole[k]) {
                    if constexpr (kLumaChunks) {
                        const bool inFrame = y < p.height;
                        countChunkLumas<CH>(q[k], wordOrder(p), inFrame ? 0u : 1u,
                                            [&](unsigned level, unsigned n) { countRun(level, n, inFrame); });
                    } else {
                        const unsigned w[4] = {q[k].x, q[k].y, q[k].z, q[k].w};
#pragma unroll
                        for (int j = 0; j < PPC; ++j) {
                            if constexpr (sizeof(T) == 2) {  // one channel: sample j as a level of the real depth
                                const int sample = int((w[j >> 1] >> ((j & 1) * 16)) & 0xffffu);
                                const int v[1] = {min(sample >> p.shift, bins - 1)};
                                countValues(c + j, y, v);
                            } else {
                                // The equalized byte of pixel j, chosen without indexing by the run-time luma channel
                                // (an array indexed so would live in local memory).
                                const int b0 = j * CH, b1 = CH == 2 ? j * CH + 1 : b0;
                                const int first = int((w[b0 >> 2] >> ((b0 & 3) * 8)) & 0xffu);
                                const int second = int((w[b1 >> 2] >> ((b1 & 3) * 8)) & 0xffu);
                                const int v[1] = {CH == 2 && p.lumaChannel == 1 ? second : first};
                                countValues(c + j, y, v);
                            }
                        }
                    }
                } else if (y >= 0) {
                    const T* row = rowOf<T>(p.src, p.srcPitch, reflect101(y, p.height));
                    for (int x = max(c, x0); x < min(c + PPC, x1); ++x)
                        count(x, y, row + std::size_t(reflect101(x, p.width)) * CH);
                }
            }
        }
    } else {
        for (int y = y0 + blockIdx.x; y < y1; y += p.splits) {
            const T* row = rowOf<T>(p.src, p.srcPitch, reflect101(y, p.height));
            for (int x = x0 + int(threadIdx.x); x < x1; x += kThreads)
                count(x, y, row + std::size_t(reflect101(x, p.width)) * CH);
        }
    }
    __syncthreads();

    if constexpr (kShared8) {
        for (int i = threadIdx.x; i < K * 256; i += kThreads) {
            const int k = i >> 8, bin = i & 255;
            unsigned s = 0;
#pragma unroll
            for (int c = 0; c < kCopies; ++c) s += sHist[(k * kCopies + c) * 256 + bin];
            if (s) atomicAdd(&gHist[std::size_t(k) * tiles * bins + bin], s);
        }
    } else if (shared) {
        for (int bin = threadIdx.x; bin < bins; bin += kThreads) {
            unsigned s = 0;
#pragma unroll
            for (int c = 0; c < kSubHistograms; ++c) s += dynHist[c * bins + bin];
            if (s) atomicAdd(&gHist[bin], s);
        }
    }
    if constexpr (STATS) {
        for (int o = 16; o > 0; o >>= 1) {
            tSum += __shfl_down_sync(0xffffffffu, tSum, o);
            tMin = min(tMin, __shfl_down_sync(0xffffffffu, tMin, o));
            tMax = max(tMax, __shfl_down_sync(0xffffffffu, tMax, o));
            tCount += __shfl_down_sync(0xffffffffu, tCount, o);
        }
        if ((threadIdx.x & 31) == 0 && tCount) {
            atomicAdd(&sSum, tSum);
            atomicMin(&sMin, tMin);
            atomicMax(&sMax, tMax);
            atomicAdd(&sCount, tCount);
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

    // The last block of this tile builds its LUT(s).
    if (!lastToArrive(&p.tileCounters[tile], unsigned(p.splits))) return;

    if (!p.clahe && p.statsOut) statisticsFromHistogram<T, K>(p, scratch);
    T* luts = static_cast<T*>(p.luts);
    for (int k = 0; k < K; ++k) {
        const std::size_t offset = (std::size_t(k) * tiles + tile) * bins;
        buildTileLut<T>(p, p.hist + offset, luts + offset, p.histState + (p.smoothTarget == 1 ? offset : 0),
                        p.lutState + (p.smoothTarget == 2 ? offset : 0), scratch);
        __syncthreads();
    }
    if (threadIdx.x == 0) p.tileCounters[tile] = 0;

    if constexpr (STATS) {
        // The last tile to finish publishes the frame's statistics and clears the accumulator.
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
}

template <typename T, int CH, HisteqKind KIND, bool VEC, bool STATS>
__global__ void __launch_bounds__(kThreads) histogramKernel(const HisteqParams p) {
    tileHistogram<T, CH, KIND, VEC, STATS>(p);
}

// ClaheLuma::Chunks: CLAHE of 4- and 3-channel u8 pixels in luma mode, rows 16-byte aligned.
template <int CH, bool STATS> __global__ void __launch_bounds__(kThreads) claheHistogramLuma8(const HisteqParams p) {
    tileHistogram<std::uint8_t, CH, HisteqKind::Luma, true, STATS>(p);
}

// ---------------------------------------------------------------------------------------------------------------
// Apply pass.

// CLAHE's blend as cv::createCLAHE computes it: every product and sum rounded on its own (no FMA).
struct ClaheWeights {
    int o11, o12, o21, o22;  // LUT offsets of the four tiles (in units of LUTs)
    float xa, xa1, ya, ya1;
};

// Where pos lies between tile centres: the tiles on either side are t and t + 1 (t from −1 to tiles − 1, before
// clamping to the grid), with weights a1 and a.
struct TilePosition {
    int t;
    float a, a1;
};
__device__ __forceinline__ TilePosition tilePosition(int pos, float inv) {
    const float f = __fsub_rn(__fmul_rn(float(pos), inv), 0.5f);
    const int t = int(floorf(f));
    const float a = __fsub_rn(f, float(t));
    return {t, a, __fsub_rn(1.0f, a)};
}

__device__ __forceinline__ void tileCoordinate(int pos, float inv, int tiles, int& t1, int& t2, float& a, float& a1) {
    const TilePosition tp = tilePosition(pos, inv);
    a = tp.a;
    a1 = tp.a1;
    t1 = max(tp.t, 0);
    t2 = min(tp.t + 1, tiles - 1);
}

__device__ __forceinline__ ClaheWeights claheWeights(const HisteqParams& p, int x, int y) {
    ClaheWeights w;
    int tx1, tx2, ty1, ty2;
    tileCoordinate(x, p.invTileWidth, p.tilesX, tx1, tx2, w.xa, w.xa1);
    tileCoordinate(y, p.invTileHeight, p.tilesY, ty1, ty2, w.ya, w.ya1);
    w.o11 = ty1 * p.tilesX + tx1;
    w.o12 = ty1 * p.tilesX + tx2;
    w.o21 = ty2 * p.tilesX + tx1;
    w.o22 = ty2 * p.tilesX + tx2;
    return w;
}

template <typename T>
__device__ __forceinline__ int blend(const T* luts, int bins, const ClaheWeights& w, int v) {
    const float l11 = float(__ldg(&luts[std::size_t(w.o11) * bins + v]));
    const float l12 = float(__ldg(&luts[std::size_t(w.o12) * bins + v]));
    const float l21 = float(__ldg(&luts[std::size_t(w.o21) * bins + v]));
    const float l22 = float(__ldg(&luts[std::size_t(w.o22) * bins + v]));
    const float top = __fadd_rn(__fmul_rn(l11, w.xa1), __fmul_rn(l12, w.xa));
    const float bottom = __fadd_rn(__fmul_rn(l21, w.xa1), __fmul_rn(l22, w.xa));
    return saturateRound(__fadd_rn(__fmul_rn(top, w.ya1), __fmul_rn(bottom, w.ya)), bins - 1);
}

template <typename T, int CH, HisteqKind KIND, bool CLAHE>
__global__ void __launch_bounds__(kThreads) applyKernel(const HisteqParams p) {
    constexpr int K = equalizedChannels(KIND);
    const int bins = binsOf<T>(p);
    constexpr int kMax = SampleTraits<T>::kMax;
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const int tiles = p.tilesX * p.tilesY;
    const T* luts = static_cast<const T*>(p.luts);
    const T* in = rowOf<T>(p.src, p.srcPitch, y) + std::size_t(x) * CH;
    T* out = const_cast<T*>(rowOf<T>(p.dst, p.dstPitch, y)) + std::size_t(x) * CH;
    ClaheWeights w{};
    if constexpr (CLAHE) w = claheWeights(p, x, y);
    auto equalize = [&](int k, int v) -> int {
        if constexpr (CLAHE) return blend<T>(luts + std::size_t(k) * tiles * bins, bins, w, v);
        else return __ldg(&luts[std::size_t(k) * bins + v]);
    };
    if constexpr (CH == 4 && sizeof(T) == 1) {
        if (p.pixelWords) {  // rows of 4-byte aligned pixels: one word in, one out
            const unsigned pixel = *reinterpret_cast<const unsigned*>(in);  // plain load: src may be dst (in place)
            *reinterpret_cast<unsigned*>(out) = equalizedPixel<KIND>(pixel, wordOrder(p), equalize);
            return;
        }
    }
    T px[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) px[c] = in[c];
    int v[K];
    pixelValues<T, CH, KIND>(px, p, v);
    int e[K];
#pragma unroll
    for (int k = 0; k < K; ++k) e[k] = equalize(k, v[k]);
    if constexpr (CH == 1) {
        out[0] = T(e[0] << p.shift);
    } else {
        T o[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c) o[c] = px[c];  // alpha / padding kept
        if constexpr (CH == 2) {
            o[p.lumaChannel] = T(e[0]);
        } else if constexpr (KIND == HisteqKind::Luma) {
            int r, g, b;
            rebuildRgb<kMax>(px[p.red], px[p.blue], v[0], e[0], r, g, b);
            o[p.red] = T(r);
            o[p.green] = T(g);
            o[p.blue] = T(b);
        } else {
            o[p.red] = T(e[0]);
            o[p.green] = T(e[1]);
            o[p.blue] = T(e[2]);
        }
#pragma unroll
        for (int c = 0; c < CH; ++c) out[c] = o[c];
    }
}

// One u16 channel with 16-byte aligned rows: 8 samples per thread, one 16-byte load and store (the same arithmetic as
// applyKernel, which takes one sample per thread).
template <bool CLAHE>
__global__ void __launch_bounds__(kThreads) applyGray16Vec(const HisteqParams p) {
    const std::uint16_t* luts = static_cast<const std::uint16_t*>(p.luts);
    const int bins = p.bins;
    const int x = (blockIdx.x * 32 + threadIdx.x) * 8, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const std::uint16_t* in = rowOf<std::uint16_t>(p.src, p.srcPitch, y) + x;
    std::uint16_t* out = const_cast<std::uint16_t*>(rowOf<std::uint16_t>(p.dst, p.dstPitch, y)) + x;
    const int n = min(8, p.width - x);
    unsigned w[4] = {0, 0, 0, 0};
    if (n == 8) {
        const uint4 q = __ldg(reinterpret_cast<const uint4*>(in));
        w[0] = q.x;
        w[1] = q.y;
        w[2] = q.z;
        w[3] = q.w;
    } else {
        for (int j = 0; j < n; ++j) w[j >> 1] |= unsigned(in[j]) << ((j & 1) * 16);
    }
    unsigned o[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        // Not past the row's end: the tile coordinates of columns outside the frame may lie outside the grid (the
        // LUT reads then went past the tables: compute-sanitizer, a 1 × 1 GRAY16_LE frame).
        if (j >= n) break;
        const int v = min(int((w[j >> 1] >> ((j & 1) * 16)) & 0xffffu) >> p.shift, bins - 1);
        int e;
        if constexpr (CLAHE) e = blend<std::uint16_t>(luts, bins, claheWeights(p, x + j, y), v);
        else e = __ldg(&luts[v]);
        o[j >> 1] |= (unsigned(e << p.shift) & 0xffffu) << ((j & 1) * 16);
    }
    if (n == 8) {
        *reinterpret_cast<uint4*>(out) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
        for (int j = 0; j < n; ++j) out[j] = std::uint16_t(o[j >> 1] >> ((j & 1) * 16));
    }
}

// u8 with 16-byte aligned rows, 1 channel or Y/chroma pairs (CH = 2: p.lumaChannel mapped, the other copied): 16
// bytes per thread. Global: one LUT; CLAHE: the tile LUTs, staged in shared memory when they fit (SHARED), else read
// through the read-only cache.
template <int CH, bool CLAHE, bool SHARED>
__global__ void __launch_bounds__(kThreads) applyGray8Vec(const HisteqParams p) {
    extern __shared__ std::uint8_t sLut[];
    const std::uint8_t* gLut = static_cast<const std::uint8_t*>(p.luts);
    const int lutBytes = CLAHE ? p.tilesX * p.tilesY * 256 : 256;
    if constexpr (SHARED) {
        for (int i = threadIdx.x + threadIdx.y * 32; i * 16 < lutBytes; i += kThreads)
            reinterpret_cast<uint4*>(sLut)[i] = __ldg(reinterpret_cast<const uint4*>(gLut) + i);
        __syncthreads();
    }
    const std::uint8_t* lut = SHARED ? sLut : gLut;
    constexpr int PPC = 16 / CH;
    const int x = (blockIdx.x * 32 + threadIdx.x) * PPC, y = blockIdx.y * 8 + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const std::uint8_t* in = rowOf<std::uint8_t>(p.src, p.srcPitch, y) + std::size_t(x) * CH;
    std::uint8_t* out = const_cast<std::uint8_t*>(rowOf<std::uint8_t>(p.dst, p.dstPitch, y)) + std::size_t(x) * CH;
    auto mapped = [&](int b) { return CH == 1 || b % CH == p.lumaChannel; };  // byte b of the chunk
    float ya = 0, ya1 = 0;
    int rowA = 0, rowB = 0;
    if constexpr (CLAHE) {
        int ty1, ty2;
        tileCoordinate(y, p.invTileHeight, p.tilesY, ty1, ty2, ya, ya1);
        rowA = ty1 * p.tilesX;
        rowB = ty2 * p.tilesX;
    }
    auto map = [&](int xx, unsigned v) -> unsigned {
        if constexpr (!CLAHE) {
            return lut[v];
        } else {
            int tx1, tx2;
            float xa, xa1;
            tileCoordinate(xx, p.invTileWidth, p.tilesX, tx1, tx2, xa, xa1);
            const float l11 = float(lut[(rowA + tx1) * 256 + v]), l12 = float(lut[(rowA + tx2) * 256 + v]);
            const float l21 = float(lut[(rowB + tx1) * 256 + v]), l22 = float(lut[(rowB + tx2) * 256 + v]);
            const float top = __fadd_rn(__fmul_rn(l11, xa1), __fmul_rn(l12, xa));
            const float bottom = __fadd_rn(__fmul_rn(l21, xa1), __fmul_rn(l22, xa));
            return unsigned(saturateRound(__fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bottom, ya)), 255));
        }
    };
    if (x + PPC <= p.width) {
        const uint4 q = *reinterpret_cast<const uint4*>(in);  // plain load: src may be dst (in place)
        const unsigned w[4] = {q.x, q.y, q.z, q.w};
        unsigned r[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            r[j] = 0;
#pragma unroll
            for (int b = 0; b < 4; ++b) {
                const unsigned v = (w[j] >> (8 * b)) & 0xffu;
                r[j] |= (mapped(j * 4 + b) ? map(x + (j * 4 + b) / CH, v) : v) << (8 * b);
            }
        }
        *reinterpret_cast<uint4*>(out) = make_uint4(r[0], r[1], r[2], r[3]);
    } else {
        for (int b = 0; x + b / CH < p.width; ++b) out[b] = mapped(b) ? std::uint8_t(map(x + b / CH, in[b])) : in[b];
    }
}

// ClaheApply::Bands: CLAHE of u8 planes (CH = 1) and Y/chroma pairs (CH = 2, p.lumaChannel mapped) with 16-byte
// aligned rows, and (ClaheLuma::Chunks, claheBandsLuma8) of 4- and 3-channel u8 pixels in luma mode (CH = 4 or 3: Y
// mapped and RGB rebuilt around it by equalizedPixel, 4 or 16 pixels per chunk, chunkPixels). Block (x, y) takes a strip of 32 chunks across and band y
// of p.bandRows rows. For the tile regions its pixels fall in (t of tilePosition, across and down) it stages one word
// per level: the four tiles' LUT bytes (l11, l12, l21, l22 of blend()), so a pixel costs one shared load. Warp w walks
// rows w, w + 8, … of the band, one chunk per lane, with the chunk's column weights computed once. The arithmetic is
// blend()'s, bit for bit.
constexpr int kBandWarps = kThreads / 32;

// saturateRound(v, 255) for 0 <= v < 2^22: adding 1.5 · 2^23 rounds to an integer, half to even, as cvt.rni does.
__device__ __forceinline__ unsigned roundToByte(float v) {
    return min(unsigned(__float_as_int(__fadd_rn(v, 12582912.0f)) - 0x4B400000), 255u);
}

template <int CH> __device__ __forceinline__ void claheBands(const HisteqParams& p) {
    extern __shared__ unsigned sQuads[];
    constexpr int PPC = chunkPixels(CH);  // pixels per chunk
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int stripFirst = blockIdx.x * 32 * PPC, stripLast = min(stripFirst + 32 * PPC, p.width) - 1;
    const int bandFirst = blockIdx.y * p.bandRows, bandLast = min(bandFirst + p.bandRows, p.height) - 1;
    const int columnFirst = tilePosition(stripFirst, p.invTileWidth).t;
    const int columns = tilePosition(stripLast, p.invTileWidth).t + 1 - columnFirst;
    const int rowFirst = tilePosition(bandFirst, p.invTileHeight).t;
    const int rows = tilePosition(bandLast, p.invTileHeight).t + 1 - rowFirst;

    const int x = stripFirst + lane * PPC;
    struct Column {
        float xa, xa1;
        int offset;  // of the pixel's region in its row of regions, in words
    };
    auto columnOf = [&](int xx) {
        const TilePosition tp = tilePosition(xx, p.invTileWidth);
        return Column{tp.a, tp.a1, (tp.t - columnFirst) * 256};
    };
    Column at[PPC];
#pragma unroll
    for (int j = 0; j < PPC; ++j) at[j] = columnOf(x + j);
    const bool full = x + PPC <= p.width;
    auto source = [&](int y) {
        return static_cast<const std::uint8_t*>(p.src) + std::size_t(y) * p.srcPitch + std::size_t(x) * CH;
    };

    int y = bandFirst + warp;
    ChunkData<CH> next{};
    if (full && y <= bandLast) next = loadChunkAt<CH>(source(y));  // plain loads: src may be dst

    // Launched as a programmatic dependent of the histogram kernel: its LUTs are read from
    // here on (the source is not what it writes).
    waitForPrerequisites();
    const std::uint8_t* luts = static_cast<const std::uint8_t*>(p.luts);
    for (int i = threadIdx.x; i < rows * columns * 256; i += kThreads) {
        const int v = i & 255, region = i >> 8;
        const int tx = columnFirst + region % columns, ty = rowFirst + region / columns;
        const int x1 = max(tx, 0), x2 = min(tx + 1, p.tilesX - 1);
        const int y1 = max(ty, 0), y2 = min(ty + 1, p.tilesY - 1);
        auto level = [&](int tileY, int tileX) { return unsigned(luts[(tileY * p.tilesX + tileX) * 256 + v]); };
        sQuads[i] = level(y1, x1) | level(y1, x2) << 8 | level(y2, x1) << 16 | level(y2, x2) << 24;
    }
    __syncthreads();

    if (x >= p.width) return;
    for (; y <= bandLast; y += kBandWarps) {
        const ChunkData<CH> q = next;
        if (full && y + kBandWarps <= bandLast) next = loadChunkAt<CH>(source(y + kBandWarps));
        const TilePosition row = tilePosition(y, p.invTileHeight);
        const float ya = row.a, ya1 = row.a1;
        const unsigned* quads = sQuads + (row.t - rowFirst) * columns * 256;
        auto map = [&](const Column& c, unsigned v) -> unsigned {
            const unsigned w = quads[c.offset + int(v)];
            const float top = __fadd_rn(__fmul_rn(byteAsFloat<0>(w), c.xa1), __fmul_rn(byteAsFloat<1>(w), c.xa));
            const float bottom = __fadd_rn(__fmul_rn(byteAsFloat<2>(w), c.xa1), __fmul_rn(byteAsFloat<3>(w), c.xa));
            return roundToByte(__fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bottom, ya)));
        };
        std::uint8_t* out = static_cast<std::uint8_t*>(p.dst) + std::size_t(y) * p.dstPitch + std::size_t(x) * CH;
        if constexpr (CH >= 3) {
            const WordOrder order = wordOrder(p);
            auto equalize = [&](const Column& c, unsigned pixel) {
                return equalizedPixel<HisteqKind::Luma>(pixel, order, [&](int, int v) { return int(map(c, v)); });
            };
            if (full) {
                unsigned px[PPC];
#pragma unroll
                for (int j = 0; j < PPC; ++j) px[j] = equalize(at[j], chunkPixel<CH>(q, j));
                storeChunkAt<CH>(out, chunkOfPixels<CH>(px));
            } else {
                const std::uint8_t* in = source(y);
                for (int j = 0; x + j < p.width; ++j) storePixel<CH>(out, j, equalize(columnOf(x + j), loadPixel<CH>(in, j)));
            }
        } else if (full) {
            const unsigned w[4] = {q.x, q.y, q.z, q.w};
            unsigned o[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                o[k] = w[k];
#pragma unroll
                for (int b = 0; b < 4; ++b) {
                    const int byte = k * 4 + b;
                    if (CH == 1 || byte % 2 == p.lumaChannel) {
                        const unsigned mapped = map(at[byte / CH], (w[k] >> (8 * b)) & 0xffu);
                        o[k] = (o[k] & ~(0xffu << (8 * b))) | (mapped << (8 * b));
                    }
                }
            }
            *reinterpret_cast<uint4*>(out) = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
            const std::uint8_t* in = source(y);
            for (int byte = 0; x + byte / CH < p.width; ++byte)
                if (CH == 1 || byte % 2 == p.lumaChannel) out[byte] = std::uint8_t(map(columnOf(x + byte / CH), in[byte]));
                else out[byte] = in[byte];
        }
    }
}

template <int CH> __global__ void __launch_bounds__(kThreads) claheBandsGray8(const HisteqParams p) {
    claheBands<CH>(p);
}

// ClaheLuma::Chunks (CH = 4 or 3).
template <int CH> __global__ void __launch_bounds__(kThreads) claheBandsLuma8(const HisteqParams p) { claheBands<CH>(p); }

// ---------------------------------------------------------------------------------------------------------------
// GlobalVariant::BlockLut: global equalization of u8 planes by two kernels of a few blocks per SM looping over the
// frame. Rows are cut into the 16-byte aligned chunks they touch: a chunk inside the row is one 16-byte load, the
// partial ones at the row ends go sample by sample.

// Both kernels take 31–32 registers (nvcc 13.0, sm_90) without a bound on them, so two blocks fill an SM of 2048
// threads. (A minimum of two blocks per SM in __launch_bounds__ is out of range on 1024- and 1536-thread SMs.)
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

// Item i: chunk i % chunksPerRow of row i / chunksPerRow.
template <int CH = 1> __device__ __forceinline__ Chunk chunkAt(const HisteqParams& p, int i) {
    const int row = i / p.chunksPerRow;
    return chunkAt<CH>(p, row, i - row * p.chunksPerRow);
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

// GlobalVariant::PrivateCounters: the histogram without atomics on the samples. Every thread counts into its own
// 256 byte counters, four to a word, its words in a column of their own (word b · kPrivateThreads + t holds bins
// 4b … 4b + 3 of thread t), so that the threads of a warp always touch 32 different banks. Every kPrivateRounds
// chunks (at most 240 samples, below a byte's 255) the block adds the counters into one count per bin (thread t owns
// bin t) and clears them.
constexpr int kPrivateThreads = 256;
constexpr int kPrivateBlocksPerSm = 3;
constexpr int kPrivateRounds = 15;
constexpr int kPrivateSharedBytes = 64 * kPrivateThreads * 4;
static_assert(kPrivateRounds * 16 <= 255 && kPrivateThreads == 256, "byte counters; thread t owns bin t");

__global__ void __launch_bounds__(kPrivateThreads) globalHistogramPrivateGray8(const HisteqParams p) {
    extern __shared__ unsigned sCounters[];
    releaseDependents();
    const int t = threadIdx.x, lane = t & 31;
    unsigned* mine = sCounters + t;
    for (int b = 0; b < 64; ++b) mine[b * kPrivateThreads] = 0;
    if (blockIdx.x == 0) p.histNext[t] = 0;

    auto count = [&](unsigned v) { mine[(v >> 2) * kPrivateThreads] += 1u << ((v & 3) * 8); };
    auto visit = [&](const Chunk& c, uint4 q) {
        if (c.full) {
            const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int j = 0; j < 16; ++j) count((w[j >> 2] >> ((j & 3) * 8)) & 0xffu);
        } else {
            const std::uint8_t* row = rowOf<std::uint8_t>(p.src, p.srcPitch, c.y);
            for (int x = max(c.x, 0); x < min(c.x + 16, p.width); ++x) count(row[x]);
        }
    };

    const int items = p.chunksPerRow * p.height;
    const int stride = gridDim.x * kPrivateThreads;
    const unsigned* quarterRow = sCounters + (t >> 2) * kPrivateThreads + (t & 3) * (kPrivateThreads / 4);
    unsigned total = 0;  // bin t of this block
    // Block-uniform bounds: every thread reaches the barriers of every flush.
    for (int base = blockIdx.x * kPrivateThreads; base < items; base += kPrivateRounds * stride) {
        int i = base + t;
        Chunk c = chunkAt(p, min(i, items - 1));
        uint4 q = loadChunk(p, c, i < items);
        for (int r = 0; r < kPrivateRounds; ++r) {
            const int next = i + stride;
            const bool more = r + 1 < kPrivateRounds && next < items;
            const Chunk n = chunkAt(p, min(next, items - 1));
            const uint4 qn = loadChunk(p, n, more);
            if (i < items) visit(c, q);
            i = next;
            c = n;
            q = qn;
        }
        // Thread t adds a quarter of the row of words holding bin t (two 16-bit sums of byte pairs per word, at
        // most 4 · 64 · 240 each), the row's four quarters being adjacent lanes.
        __syncthreads();
        unsigned even = 0, odd = 0;  // bytes 0 and 2, bytes 1 and 3
        for (int m = 0; m < 64; ++m) {
            const unsigned w = quarterRow[(m + lane) & 63];
            even += w & 0x00ff00ffu;
            odd += (w >> 8) & 0x00ff00ffu;
        }
        even += __shfl_xor_sync(0xffffffffu, even, 1);
        even += __shfl_xor_sync(0xffffffffu, even, 2);
        odd += __shfl_xor_sync(0xffffffffu, odd, 1);
        odd += __shfl_xor_sync(0xffffffffu, odd, 2);
        const unsigned pair = t & 1 ? odd : even;
        total += t & 2 ? pair >> 16 : pair & 0xffffu;
        __syncthreads();
        for (int b = 0; b < 64; ++b) mine[b * kPrivateThreads] = 0;
    }
    if (total) atomicAdd(&p.hist[t], total);
}

// cv::equalizeHist's LUT of the frame's 256 bins, into shared memory, by the block's first 8 warps (one bin each).
__device__ void globalLutGray8(const std::uint32_t* hist, std::uint8_t* lut) {
    __shared__ unsigned sCounts[256], sWarpTotal[8], sWarpFirst[8];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    unsigned cumulative = 0;
    if (t < 256) {
        const unsigned count = __ldcg(&hist[t]);
        sCounts[t] = count;
        cumulative = count;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned below = __shfl_up_sync(0xffffffffu, cumulative, o);
            if (lane >= o) cumulative += below;
        }
        const unsigned occupied = __ballot_sync(0xffffffffu, count != 0);
        if (lane == 31) sWarpTotal[warp] = cumulative;
        if (lane == 0) sWarpFirst[warp] = occupied ? unsigned(warp * 32 + __ffs(occupied) - 1) : 256u;
    }
    __syncthreads();
    if (t < 256) {
        unsigned total = 0;
        int first = 256;
#pragma unroll
        for (int w = 0; w < 8; ++w) {
            if (w < warp) cumulative += sWarpTotal[w];
            total += sWarpTotal[w];
            first = min(first, int(sWarpFirst[w]));
        }
        const core::EqualizeTerms terms = core::equalizeTerms(256, first, first < 256 ? sCounts[first] : 0u, total);
        lut[t] = std::uint8_t(core::equalizedLevel(terms, 256, t, cumulative));
    }
    __syncthreads();
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
// GlobalLuma::Chunks: global equalization of 4-channel u8 pixels in luma mode (RGBA, BGRA, ARGB, ABGR and their x
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

constexpr int kSharedLutLimit = 48 * 1024;

// An apply kernel after the histogram kernel: a programmatic dependent where p.overlapped (it waits for the
// histogram kernel on the device, griddepcontrol.wait), else an ordinary launch.
void launchAfterHistogram(void (*kernel)(HisteqParams), dim3 grid, dim3 block, int sharedBytes, cudaStream_t stream,
                          const HisteqParams& p) {
    if (!p.overlapped) {
        kernel<<<grid, block, sharedBytes, stream>>>(p);
        return;
    }
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = std::size_t(sharedBytes);
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CUDAFILTERS_CHECK(cudaLaunchKernelEx(&config, kernel, p));
}

template <typename T, int CH, HisteqKind KIND>
void applyTyped(const HisteqParams& p, cudaStream_t stream) {
    const dim3 block(32, 8);
    if constexpr ((CH == 1 || CH == 2) && sizeof(T) == 1) {
        if (p.vectorized) {
            constexpr int PPC = 16 / CH;
            const dim3 grid((((p.width + PPC - 1) / PPC) + 31) / 32, (p.height + 7) / 8);
            const int lutBytes = p.clahe ? p.tilesX * p.tilesY * 256 : 256;
            if (p.clahe && p.bandRows > 0) {
                const dim3 bands(claheBandStrips(p), (p.height + p.bandRows - 1) / p.bandRows);
                launchAfterHistogram(claheBandsGray8<CH>, bands, dim3(kThreads), p.bandSharedBytes, stream, p);
            } else if (!p.clahe) applyGray8Vec<CH, false, true><<<grid, block, lutBytes, stream>>>(p);
            else if (lutBytes <= kSharedLutLimit) applyGray8Vec<CH, true, true><<<grid, block, lutBytes, stream>>>(p);
            else applyGray8Vec<CH, true, false><<<grid, block, 0, stream>>>(p);
            return;
        }
    }
    if constexpr ((CH == 4 || CH == 3) && sizeof(T) == 1 && KIND == HisteqKind::Luma) {
        if (p.claheLumaChunks && p.bandRows > 0) {
            const dim3 bands(claheBandStrips(p), (p.height + p.bandRows - 1) / p.bandRows);
            launchAfterHistogram(claheBandsLuma8<CH>, bands, dim3(kThreads), p.bandSharedBytes, stream, p);
            return;
        }
    }
    if constexpr (CH == 1 && sizeof(T) == 2) {
        if (p.vectorized) {
            const dim3 grid((((p.width + 7) / 8) + 31) / 32, (p.height + 7) / 8);
            if (p.clahe) applyGray16Vec<true><<<grid, block, 0, stream>>>(p);
            else applyGray16Vec<false><<<grid, block, 0, stream>>>(p);
            return;
        }
    }
    const dim3 grid((p.width + 31) / 32, (p.height + 7) / 8);
    if (p.clahe) applyKernel<T, CH, KIND, true><<<grid, block, 0, stream>>>(p);
    else applyKernel<T, CH, KIND, false><<<grid, block, 0, stream>>>(p);
}

template <template <typename, int, HisteqKind> class F>
void dispatch(const HisteqParams& p, cudaStream_t stream);

template <typename T, int CH, HisteqKind KIND> struct HistogramOp {
    static void run(const HisteqParams& p, cudaStream_t s) { histogramTyped<T, CH, KIND>(p, s); }
};
template <typename T, int CH, HisteqKind KIND> struct ApplyOp {
    static void run(const HisteqParams& p, cudaStream_t s) { applyTyped<T, CH, KIND>(p, s); }
};

template <template <typename, int, HisteqKind> class F, typename T>
void dispatchLayout(const HisteqParams& p, cudaStream_t stream) {
    const bool luma = p.kind == HisteqKind::Luma;
    switch (p.channels) {
    case 1: F<T, 1, HisteqKind::Plane>::run(p, stream); break;
    case 2:  // Y/chroma pairs of packed 4:2:2, u8 only (EqualizePlan::make)
        if constexpr (sizeof(T) == 1) F<T, 2, HisteqKind::Plane>::run(p, stream);
        break;
    case 3:
        if (luma) F<T, 3, HisteqKind::Luma>::run(p, stream);
        else F<T, 3, HisteqKind::PerChannel>::run(p, stream);
        break;
    default:
        if (luma) F<T, 4, HisteqKind::Luma>::run(p, stream);
        else F<T, 4, HisteqKind::PerChannel>::run(p, stream);
        break;
    }
}

template <template <typename, int, HisteqKind> class F>
void dispatch(const HisteqParams& p, cudaStream_t stream) {
    if (p.u16) dispatchLayout<F, std::uint16_t>(p, stream);
    else dispatchLayout<F, std::uint8_t>(p, stream);
}

}  // namespace

void launchHistogram(const HisteqParams& p, cudaStream_t stream) {
    dispatch<HistogramOp>(p, stream);
    CUDAFILTERS_CHECK_LAUNCH("histeq histogram kernel");
}

void launchApply(const HisteqParams& p, cudaStream_t stream) {
    dispatch<ApplyOp>(p, stream);
    CUDAFILTERS_CHECK_LAUNCH("histeq apply kernel");
}

int claheBandSharedBytes(const HisteqParams& p, int bandRows) {
    const bool chunks = p.channels <= 2 ? p.vectorized : p.claheLumaChunks;
    if (!p.clahe || p.u16 || !chunks) return 0;
    return claheBandBytes(p.channels, p.tileWidth, p.tileHeight, p.tilesX, p.tilesY, bandRows);
}

int claheBandBytes(int channels, int tileWidth, int tileHeight, int tilesX, int tilesY, int bandRows) {
    // Tile regions (t of tilePosition) a span of n pixels meets, one more for the float rounding at the ends.
    auto regions = [](int n, int tile, int tiles) { return std::min((n - 1) / tile + 3, tiles + 1); };
    const int stripPixels = 32 * chunkPixels(channels);
    const int bytes =
        regions(stripPixels, tileWidth, tilesX) * regions(bandRows, tileHeight, tilesY) * 256 * int(sizeof(unsigned));
    return bytes <= kSharedLutLimit ? bytes : 0;
}

int claheBandBlocksPerSm(int channels, int sharedBytes) {
    auto perSm = [&](void (*kernel)(HisteqParams)) {
        int blocks = 0;
        CUDAFILTERS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, sharedBytes));
        return std::max(blocks, 1);
    };
    return perSm(channels == 1   ? claheBandsGray8<1>
                 : channels == 2 ? claheBandsGray8<2>
                 : channels == 3 ? claheBandsLuma8<3>
                                 : claheBandsLuma8<4>);
}

int claheBandStrips(const HisteqParams& p) {
    const int n = chunkPixels(p.channels);
    return ((p.width + n - 1) / n + 31) / 32;
}

void launchGlobalGray8(const HisteqParams& p, cudaStream_t stream) {
    const int blocks = globalBlocks(p);
    if (p.privateCounters) {
        const long long needed = ((long long)p.chunksPerRow * p.height + kPrivateThreads - 1) / kPrivateThreads;
        const int privateBlocks = int(std::max(
            1LL, std::min(needed, (long long)kPrivateBlocksPerSm * std::max(p.multiprocessors, 1))));
        globalHistogramPrivateGray8<<<privateBlocks, kPrivateThreads, kPrivateSharedBytes, stream>>>(p);
    } else {
        globalHistogramGray8<<<blocks, kGlobalThreads, 0, stream>>>(p);
    }
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

void prepareGlobalGray8() {
    allowDynamicSharedMemory(globalHistogramPrivateGray8, kPrivateSharedBytes);
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
