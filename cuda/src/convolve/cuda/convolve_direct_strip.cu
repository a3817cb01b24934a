// SPDX-License-Identifier: LGPL-2.1-or-later
// Direct K×K correlation of one-channel u8 frames, K = 3 and 5, one kernel (KernelVariants::grayStrip): no shared
// memory, no barrier, register blocking in y.
//
// Each thread owns a strip of PX consecutive columns (PX = 8 or 16: one 8- or 16-byte load and store per row on
// 16-byte aligned rows) and SY output rows. It loads the SY + K − 1 source rows of its strip once, all of them in
// flight before the first conversion; each row is converted to floats once and feeds the (up to K) output rows that
// use it, so only K rows of accumulators are live. The R samples on either side of a strip come from the
// neighbouring lanes' words by shuffle; only a warp's first and last lane (and strips at the frame's left and right
// edges) load that word themselves. Threads are numbered along the rows (strip index = thread / strips per row), so
// the grid is one dimension, sized to the work with at most one partial block.
//
// Frame edges: source rows outside the frame are replaced by borderIndex's row (one compare inside the frame);
// words that cross the left or right edge, and every word of a source whose rows are not 4-byte aligned, are
// assembled byte by byte through borderIndex. Border::Constant positions outside the frame read as borderValue
// (masks tested only in the threads whose window leaves the frame).
//
// Arithmetic as everywhere else: taps already divided, acc = 0, then row by row, left to right, one fmaf per tap;
// finish() adds the bias, takes |x|, rounds half to even and saturates (FULL_RATE: finishFullRate(), the same bytes
// without the conversion unit).
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {
namespace {

constexpr int kStripThreads = 128;

template <int K> struct StripParams {
    ConvFrame f;
    float taps[K * K];
    int columns;  // strips per row: ceil(width / PX)
    int total;    // strips in the frame
};

// Samples c … c + 3 of a source row, packed little-endian; columns outside the frame through borderIndex
// (Border::Constant ones read column 0: the caller masks them).
__device__ __forceinline__ unsigned wordAt(const ConvFrame& f, const std::uint8_t* row, int c) {
    if (c >= 0 && c + 4 <= f.width && f.rowAlign >= 4) return __ldg(reinterpret_cast<const unsigned*>(row + c));
    unsigned w = 0;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        const int gx = borderIndex(c + s, f.width, f.border);
        w |= unsigned(__ldg(row + (gx < 0 ? 0 : gx))) << (8 * s);
    }
    return w;
}

// The PX / 4 words of a strip's columns x … x + PX − 1 in one source row: one vector load when the strip lies
// inside the frame on 16-byte aligned rows.
template <int PX>
__device__ __forceinline__ void loadStrip(const ConvFrame& f, const std::uint8_t* row, int x, unsigned (&w)[PX / 4]) {
    if (f.rowAlign == 16 && x + PX <= f.width) {
        if constexpr (PX == 16) {
            const uint4 q = __ldg(reinterpret_cast<const uint4*>(row + x));
            w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
            return;
        } else if constexpr (PX == 8) {
            const uint2 q = __ldg(reinterpret_cast<const uint2*>(row + x));
            w[0] = q.x, w[1] = q.y;
            return;
        }
    }
#pragma unroll
    for (int q = 0; q < PX / 4; ++q) w[q] = wordAt(f, row, x + 4 * q);
}

// Feeds window rows to the accumulators: raw[r] holds source columns x − 4 … x + PX + 3 of source row ys − R + r
// (word 0 the left halo word, word PX / 4 + 1 the right one). MASKED: Border::Constant positions outside the frame
// (bit r of rowOut, bit c of colOut, c the window column) read as borderValue.
template <int K, int PX, int SY, bool FULL_RATE, bool MASKED>
__device__ __forceinline__ void computeStrip(const StripParams<K>& p, int x, int ys, bool active,
                                             const unsigned (&raw)[SY + K - 1][PX / 4 + 2], unsigned rowOut,
                                             unsigned colOut) {
    constexpr int R = K / 2, ROWS = SY + K - 1, WIN = PX + 2 * R;
    const ConvFrame& f = p.f;
    float acc[SY][PX];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        float v[WIN];
#pragma unroll
        for (int c = 0; c < WIN; ++c) {
            const int b = c - R + 4;
            v[c] = wordSample(raw[r][b >> 2], b);
            if constexpr (MASKED)
                if (((rowOut >> r) | (colOut >> c)) & 1u) v[c] = f.borderValue;
        }
#pragma unroll
        for (int j = 0; j < SY; ++j) {
            const int ky = r - j;
            if (ky < 0 || ky >= K) continue;  // compile-time after unrolling
            if (ky == 0) {
#pragma unroll
                for (int i = 0; i < PX; ++i) acc[j][i] = 0.f;
            }
#pragma unroll
            for (int kx = 0; kx < K; ++kx) {
                const float t = p.taps[ky * K + kx];
#pragma unroll
                for (int i = 0; i < PX; ++i) acc[j][i] = fmaf(t, v[i + kx], acc[j][i]);
            }
            if (ky == K - 1 && active && ys + j < f.height) {
                std::uint8_t out[PX];
#pragma unroll
                for (int i = 0; i < PX; ++i)
                    out[i] = FULL_RATE ? finishFullRate<std::uint8_t>(f, acc[j][i])
                                       : finish<std::uint8_t>(f, acc[j][i]);
                storeRun<std::uint8_t, PX>(f, x, ys + j, 0, out);
            }
        }
    }
}

template <int K, int PX, int SY, bool FULL_RATE>
__global__ void __launch_bounds__(kStripThreads) stripKernel(const __grid_constant__ StripParams<K> p) {
    constexpr int R = K / 2, ROWS = SY + K - 1, NW = PX / 4;
    static_assert(R <= 4 && PX % 4 == 0 && ROWS <= 32 && PX + 2 * R <= 32);
    const ConvFrame& f = p.f;
    const int lane = threadIdx.x & 31;
    int t = int(blockIdx.x) * kStripThreads + int(threadIdx.x);
    const bool active = t < p.total;
    if (!active) t = p.total - 1;  // still shuffles with its warp; stores nothing
    const int band = t / p.columns, strip = t - band * p.columns;
    const int x = strip * PX, ys = band * SY;
    // Neighbouring lanes hold the neighbouring strips of the same band, except across a row of strips.
    const bool leftFromLane = lane > 0 && strip > 0;
    const bool rightFromLane = lane < 31 && strip + 1 < p.columns;

    unsigned raw[ROWS][NW + 2];
    unsigned rowOut = 0;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        int gy = borderIndex(ys - R + r, f.height, f.border);
        if (gy < 0) {
            gy = 0;
            rowOut |= 1u << r;
        }
        const std::uint8_t* row = f.src + std::size_t(gy) * f.srcPitch;
        unsigned w[NW];
        loadStrip<PX>(f, row, x, w);
#pragma unroll
        for (int q = 0; q < NW; ++q) raw[r][q + 1] = w[q];
        if (!leftFromLane) raw[r][0] = wordAt(f, row, x - 4);
        if (!rightFromLane) raw[r][NW + 1] = wordAt(f, row, x + PX);
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const unsigned fromLeft = __shfl_up_sync(0xFFFFFFFFu, raw[r][NW], 1);
        const unsigned fromRight = __shfl_down_sync(0xFFFFFFFFu, raw[r][1], 1);
        if (leftFromLane) raw[r][0] = fromLeft;
        if (rightFromLane) raw[r][NW + 1] = fromRight;
    }

    const bool inside = x >= R && x + PX + R <= f.width && ys >= R && ys + SY - 1 + R < f.height;
    if (f.border != Border::Constant || inside) {
        computeStrip<K, PX, SY, FULL_RATE, false>(p, x, ys, active, raw, 0u, 0u);
    } else {
        unsigned colOut = 0;
#pragma unroll
        for (int c = 0; c < PX + 2 * R; ++c)
            if (unsigned(x - R + c) >= unsigned(f.width)) colOut |= 1u << c;
        computeStrip<K, PX, SY, FULL_RATE, true>(p, x, ys, active, raw, rowOut, colOut);
    }
}

template <int K, int PX, int SY, bool FULL_RATE = false>
void launchStrip(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    StripParams<K> p;
    p.f = frame;
    for (int i = 0; i < K * K; ++i) p.taps[i] = taps[i];
    p.columns = (frame.width + PX - 1) / PX;
    p.total = p.columns * ((frame.height + SY - 1) / SY);
    const int blocks = (p.total + kStripThreads - 1) / kStripThreads;
    stripKernel<K, PX, SY, FULL_RATE><<<blocks, kStripThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("stripKernel");
}

// The shapes (PX × SY) KernelVariants::grayStrip selects, to be measured against each other. Registers (sm_90,
// ptxas, no spills) K = 3 / 5: 8 × 8: 80 / 128; 16 × 4: 113 / 168; 16 × 8: 151 / 213. Variant 3 is variant 0 with
// finishFullRate().
template <int K> void launchStripShape(int variant, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    switch (variant) {
    case 0: return launchStrip<K, 8, 8>(frame, taps, stream);
    case 1: return launchStrip<K, 16, 4>(frame, taps, stream);
    case 2: return launchStrip<K, 16, 8>(frame, taps, stream);
    default: return launchStrip<K, 8, 8, true>(frame, taps, stream);
    }
}

}  // namespace

bool grayStripApplies(int k, int bank, const ConvFrame& frame, int variant) {
    return variant >= 0 && variant < kGrayStripVariants && (k == 3 || k == 5) && bank == 1 &&
           frame.combine != Combine::Channels && frame.inChannels == 1 && frame.outChannels == 1 &&
           (frame.mask & 1u) && frame.width > 0 && frame.height > 0;
}

bool launchGrayStripU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream, int variant) {
    if (!grayStripApplies(k, bank, frame, variant)) return false;
    if (k == 3) launchStripShape<3>(variant, frame, taps, stream);
    else launchStripShape<5>(variant, frame, taps, stream);
    return true;
}

}  // namespace cudafilters::cuda_detail
