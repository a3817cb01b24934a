// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// LUT construction, shared by the histogram kernels (a tile's last block builds the tile's LUTs) and the block-LUT
// apply kernels (every block builds the frame's LUT): block reductions and scans, cv::createCLAHE's clip and
// redistribution, cv::equalizeHist's CDF, temporal smoothing of the histogram or the LUT, the frame's statistics from
// its histogram, and the last-block hand-off. Arithmetic mirrors engine/histeq/core exactly.
#include "histeq_device.cuh"
#include "histeq_formula.hpp"

#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {
namespace {

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

// Temporal smoothing of the histogram (smoothTarget 1): h becomes the rounded EMA of the frames' counts.
template <typename T>
__device__ __forceinline__ void smoothHistogram(const HisteqParams& p, std::uint32_t* h, unsigned long long* histState,
                                                int bins, int begin) {
    for (int i = begin; i < bins; i += kThreads) {
        const unsigned long long x = (unsigned long long)__ldcg(&h[i]) << 16;
        const unsigned long long s =
            p.first ? x : ((unsigned long long)p.alphaFixed * histState[i] +
                           (unsigned long long)(65536u - p.alphaFixed) * x + 32768ull) >> 16;
        histState[i] = s;
        h[i] = std::uint32_t((s + 32768ull) >> 16);
    }
}

// CLAHE: clip and redistribute exactly as cv::createCLAHE, then the prefix sums scaled by p.lutScale.
template <typename T>
__device__ __forceinline__ void claheLut(const HisteqParams& p, const std::uint32_t* h, T* lut, unsigned* scratch,
                                         int bins, int begin) {
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
}

// cv::equalizeHist: first occupied bin maps to 0, a single occupied level maps to itself.
template <typename T>
__device__ __forceinline__ void equalizeLut(const std::uint32_t* h, T* lut, unsigned* scratch, int bins, int begin) {
    unsigned local = 0, first = 0xffffffffu;
    for (int i = begin; i < bins; i += kThreads) {
        const unsigned v = __ldcg(&h[i]);
        local += v;
        if (v && first == 0xffffffffu) first = i;
    }
    const unsigned total = blockSum(local, scratch);
    const unsigned i0 = blockMin(first, scratch);
    // h[i0] belongs to another thread, which zeroes it at the end of buildTileLut: every thread reads it here, before
    // the scan's barriers, after which a lagging warp could read it zeroed.
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

// Temporal smoothing of the LUT (smoothTarget 2): the LUT becomes the rounded EMA of the frames' LUTs.
template <typename T>
__device__ __forceinline__ void smoothLut(const HisteqParams& p, T* lut, std::uint32_t* lutState, int bins, int begin) {
    for (int i = begin; i < bins; i += kThreads) {
        const unsigned long long x = (unsigned long long)lut[i] << 16;
        const unsigned long long s =
            p.first ? x : ((unsigned long long)p.alphaFixed * lutState[i] +
                           (unsigned long long)(65536u - p.alphaFixed) * x + 32768ull) >> 16;
        lutState[i] = std::uint32_t(s);
        lut[i] = T((s + 32768ull) >> 16);
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
    if (p.smoothTarget == 1) smoothHistogram<T>(p, h, histState, bins, begin);
    if (p.clahe) claheLut<T>(p, h, lut, scratch, bins, begin);
    else equalizeLut<T>(h, lut, scratch, bins, begin);
    if (p.smoothTarget == 2) smoothLut<T>(p, lut, lutState, bins, begin);
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

}  // namespace
}  // namespace cudafilters::detail
