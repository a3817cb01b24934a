// SPDX-License-Identifier: LGPL-2.1-or-later
// Direct K×K correlation for small K (compiled for K = 3) on one-channel u8 frames whose rows can be read in aligned 4-byte
// words, one kernel (no bank): no shared memory and no barrier. Each thread owns PXW consecutive output columns
// (a 32-bit output word per 4 columns) and walks down SY output rows. It issues the loads of all SY + K − 1 input
// rows it needs at once (each row: the PXW/4 words of its columns plus the word on either side for the halo), so
// a warp reads whole 128-byte lines and every input row is fetched once per strip and reused by up to K output
// rows. Samples become floats with one byte permute and one subtraction (2^23 + b − 2^23, exact).
//
// Threads whose window touches a frame edge assemble the same words byte by byte through borderIndex (rows and
// columns; Border::Constant positions masked to borderValue); interior threads never call it.
//
// Arithmetic as everywhere else: taps already divided, acc = 0, then row by row, left to right, one fmaf per tap;
// finish() adds the bias, takes |x|, rounds half to even and saturates.
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {
namespace {

constexpr int kSmallWarps = 4;  // warps per block, stacked in y; a warp spans 32 · PXW columns
constexpr int kSmallThreads = 32 * kSmallWarps;

template <int K> struct SmallParams {
    ConvFrame f;
    float taps[K * K];
};

// Stores one output row of PXW samples: whole 32-bit words when the row is inside the frame and aligned.
template <int PXW>
__device__ __forceinline__ void storeOutputs(const ConvFrame& f, int x, int y, bool wordStores, const float (&acc)[PXW]) {
    std::uint8_t* out = f.dst + std::size_t(y) * f.dstPitch + x;
    if (wordStores) {
#pragma unroll
        for (int q = 0; q < PXW / 4; ++q) {
            const unsigned w = unsigned(finish<std::uint8_t>(f, acc[4 * q])) |
                               unsigned(finish<std::uint8_t>(f, acc[4 * q + 1])) << 8 |
                               unsigned(finish<std::uint8_t>(f, acc[4 * q + 2])) << 16 |
                               unsigned(finish<std::uint8_t>(f, acc[4 * q + 3])) << 24;
            reinterpret_cast<unsigned*>(out)[q] = w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < PXW; ++i)
            if (x + i < f.width) out[i] = finish<std::uint8_t>(f, acc[i]);
    }
}

// The strip from raw words: raw[r] holds source columns x − 4 … x + PXW + 3 of window row r (source row
// ys − R + r). Each window row is converted once and fed to the (up to K) output rows that use it, in increasing
// r, so every accumulator still sees its taps row by row and left to right. EDGE: Border::Constant samples outside
// the frame (rowOut / colOut bit set) read as borderValue.
template <int K, int PXW, int SY, bool EDGE>
__device__ __forceinline__ void computeStrip(const SmallParams<K>& p, int x, int ys, const unsigned (&raw)[SY + K - 1][PXW / 4 + 2],
                                             unsigned rowOut, unsigned colOut) {
    constexpr int R = K / 2, ROWS = SY + K - 1, WIN = PXW + 2 * R;
    const ConvFrame& f = p.f;
    const bool wordStores =
        x + PXW <= f.width && ((reinterpret_cast<std::uintptr_t>(f.dst + x) | f.dstPitch) & 3) == 0;
    float acc[SY][PXW];
#pragma unroll
    for (int j = 0; j < SY; ++j)
#pragma unroll
        for (int i = 0; i < PXW; ++i) acc[j][i] = 0.f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        float v[WIN];
#pragma unroll
        for (int c = 0; c < WIN; ++c) {
            const int b = c - R + 4;
            v[c] = wordSample(raw[r][b >> 2], b);
            if constexpr (EDGE)
                if (((rowOut >> r) | (colOut >> c)) & 1u) v[c] = f.borderValue;
        }
#pragma unroll
        for (int j = 0; j < SY; ++j) {
            const int ky = r - j;
            if (ky < 0 || ky >= K) continue;  // compile-time after unrolling
#pragma unroll
            for (int kx = 0; kx < K; ++kx) {
                const float t = p.taps[ky * K + kx];
#pragma unroll
                for (int i = 0; i < PXW; ++i) acc[j][i] = fmaf(t, v[i + kx], acc[j][i]);
            }
            if (ky == K - 1 && ys + j < f.height) storeOutputs<PXW>(f, x, ys + j, wordStores, acc[j]);
        }
    }
}

template <int K, int PXW, int SY>
__global__ void __launch_bounds__(kSmallThreads) smallDirectKernel(const __grid_constant__ SmallParams<K> p) {
    constexpr int R = K / 2, ROWS = SY + K - 1, NW = PXW / 4 + 2;
    static_assert(R <= 4 && PXW % 4 == 0 && ROWS <= 32 && PXW + 8 <= 32);
    const ConvFrame& f = p.f;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x = (int(blockIdx.x) * 32 + lane) * PXW;
    const int ys = (int(blockIdx.y) * kSmallWarps + warp) * SY;
    if (x >= f.width || ys >= f.height) return;
    unsigned raw[ROWS][NW];
    const bool interior = x >= 4 && x + PXW + 4 <= f.width && ys >= R && ys + SY - 1 + R < f.height;
    if (interior) {
        // All loads in flight together: words of columns x − 4 … x + PXW + 3, every window row.
        const unsigned char* first = f.src + std::size_t(ys - R) * f.srcPitch + (x - 4);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const unsigned* row = reinterpret_cast<const unsigned*>(first + std::size_t(r) * f.srcPitch);
#pragma unroll
            for (int q = 0; q < NW; ++q) raw[r][q] = __ldg(row + q);
        }
        computeStrip<K, PXW, SY, false>(p, x, ys, raw, 0u, 0u);
    } else {
        // The same words assembled byte by byte through borderIndex; Border::Constant positions are masked.
        unsigned rowOut = 0, colOut = 0;
        int gx[4 * NW];
#pragma unroll
        for (int b = 0; b < 4 * NW; ++b) {
            gx[b] = borderIndex(x - 4 + b, f.width, f.border);
            const int c = b - 4 + R;  // window column
            if (gx[b] < 0) {
                gx[b] = 0;
                if (c >= 0 && c < PXW + 2 * R) colOut |= 1u << c;
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            int gy = borderIndex(ys - R + r, f.height, f.border);
            if (gy < 0) {
                gy = 0;
                rowOut |= 1u << r;
            }
            const unsigned char* row = f.src + std::size_t(gy) * f.srcPitch;
#pragma unroll
            for (int q = 0; q < NW; ++q) {
                unsigned w = 0;
#pragma unroll
                for (int s = 0; s < 4; ++s) w |= unsigned(__ldg(row + gx[4 * q + s])) << (8 * s);
                raw[r][q] = w;
            }
        }
        computeStrip<K, PXW, SY, true>(p, x, ys, raw, rowOut, colOut);
    }
}

template <int K, int PXW, int SY> void launchSmall(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    SmallParams<K> p;
    p.f = frame;
    for (int i = 0; i < K * K; ++i) p.taps[i] = taps[i];
    const dim3 grid((frame.width + 32 * PXW - 1) / (32 * PXW),
                    (frame.height + kSmallWarps * SY - 1) / (kSmallWarps * SY));
    smallDirectKernel<K, PXW, SY><<<grid, kSmallThreads, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("smallDirectKernel");
}

// PXW × SY = 4 × 4, at K = 3 on large frames, is the only shape that beats the tiled kernel (GRAY8 replicate,
// `bench-convolve --ks 3,5`, build-bench), so it is the one compiled. When it runs: KernelVariants::smallDirect.

}  // namespace

bool smallDirectApplies(int k, int bank, const ConvFrame& frame, int variant) {
    if (variant < 0 || k != 3 || bank != 1 || !frame.vectorRows || frame.inChannels != 1 || frame.outChannels != 1 ||
        !(frame.mask & 1u) || frame.combine == Combine::Channels)
        return false;
    return variant == 0 || std::int64_t(frame.width) * frame.height >= 4000000;
}

bool launchSmallDirectU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream, int variant) {
    if (!smallDirectApplies(k, bank, frame, variant)) return false;
    launchSmall<3, 4, 4>(frame, taps, stream);
    return true;
}

}  // namespace cudafilters::cuda_detail
