// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Device helpers shared by the convolution kernels.
#include "convolve_launch.hpp"
#include "../../common/byte_float.cuh"

#include <cudafilters/border.hpp>
#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/cuda_raii.hpp>

#include <cstdint>
#include <type_traits>

namespace cudafilters::cuda_detail {

constexpr int kBlockThreads = 256;

// A separable kernel's parameter block (members f, row[K], column[K]) holding the frame and the row and column factors.
template <typename Params, int K> Params separableParams(const ConvFrame& frame, const float* row, const float* column) {
    Params p;
    p.f = frame;
    for (int i = 0; i < K; ++i) {
        p.row[i] = row[i];
        p.column[i] = column[i];
    }
    return p;
}

template <typename T> __device__ __forceinline__ const T* srcRow(const ConvFrame& f, int y) {
    return reinterpret_cast<const T*>(f.src + std::size_t(y) * f.srcPitch);
}
template <typename T> __device__ __forceinline__ T* dstRow(const ConvFrame& f, int y) {
    return reinterpret_cast<T*>(f.dst + std::size_t(y) * f.dstPitch);
}

// The response finishByte rounds: + bias, |.| (ADJUST false: neither, for bias 0 without absolute: the same level).
template <bool ADJUST> __device__ __forceinline__ float adjusted(float value, float bias, bool absolute) {
    if constexpr (!ADJUST) return value;
    value += bias;
    return absolute ? fabsf(value) : value;
}

// combined response → + bias, |.|, round half to even to a level, saturate, stored as level << shift.
// 8-bit samples (255 levels, no shift) take one conversion for the rounding and both saturations: cvt.rni.sat.u8
// rounds half to even and clamps to 0 … 255, NaN to 0, as finishSample does. It measures faster than clamping with
// fminf/fmaxf and rounding by adding 1.5 · 2^23 with no conversion instruction at all (the RGBA direct 3 × 3 rows of
// `bench-convolve --size 3840x2160 --ks 3`, build-bench).
__device__ __forceinline__ unsigned finishByte(float value, float bias, bool absolute) {
    value = adjusted<true>(value, bias, absolute);
    unsigned short level;
    asm("cvt.rni.sat.u8.f32 %0, %1;" : "=h"(level) : "f"(value));
    return level;
}
// finishByte for four results at once, byte i of the word from value i: each rounded half to even to an integer
// (cvt.rni.s32: NaN → 0, out of range saturated), then saturated to 0 … 255 and packed by two cvt.pack.sat.u8
// (ptxas pairs the roundings into F2IP): the bytes finishByte gives, in four instructions where byte-wise
// conversions, masks and shifts take about twelve. Integers in 0 … 255 pass through unchanged (copied samples).
__device__ __forceinline__ int roundToInt(float value) {
    int level;
    asm("cvt.rni.s32.f32 %0, %1;" : "=r"(level) : "f"(value));
    return level;
}
__device__ __forceinline__ unsigned packBytes(int b0, int b1, int b2, int b3) {
    unsigned high, word;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(b3), "r"(b2));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(b1), "r"(b0), "r"(high));
    return word;
}

// Frames finishByte serves (8-bit samples, 255 levels, no shift).
__host__ __device__ __forceinline__ bool plainBytes(const ConvFrame& f) { return f.maxLevel == 255 && f.shift == 0; }

// finishSample's stored sample without its branches: + bias, |.|, the exact scaling by 2^-shift, one rounding
// conversion (cvt.rni.s32: half to even, NaN → 0, out of range saturated), the clamp to [0, maxLevel], the shift.
// Faster than finishSample's branches on the GRAY16 rows of `bench-convolve --ks 3,5,9` (build-bench).
__device__ __forceinline__ int finishLevel(const ConvFrame& f, float value) {
    value = adjusted<true>(value, f.bias, f.absolute != 0);
    if (f.shift) value *= 1.f / float(1 << f.shift);
    return min(max(roundToInt(value), 0), f.maxLevel) << f.shift;
}

template <typename T> __device__ __forceinline__ T finish(const ConvFrame& f, float value) {
    if constexpr (sizeof(T) == 1) {
        if (plainBytes(f)) return static_cast<T>(finishByte(value, f.bias, f.absolute != 0));
    }
    return static_cast<T>(finishLevel(f, value));
}

// Output words from the sums of 255-level frames: byte e = i · C + c of out is pixel i, channel c, rounded half to even
// and saturated (finishByte's levels: roundToInt, packBytes), + bias and |.| first where ADJUST and c is filtered.
// Four samples take about four instructions, where finishing them one at a time through finish() takes about seven
// each (a bias add, two branches, the conversion, a mask and the byte's shift into its word): measurably faster in
// the interleaved kernels and the one-channel direct tile kernel (`bench-convolve --ks 5,7,9`, build-bench).
template <int C, int PX, bool ADJUST>
__device__ __forceinline__ void packSamples(const float (&acc)[C][PX], unsigned mask, float bias, bool absolute,
                                            unsigned (&out)[PX * C / 4]) {
#pragma unroll
    for (int q = 0; q < PX * C / 4; ++q) {
        int level[4];
#pragma unroll
        for (int b = 0; b < 4; ++b) {
            const int i = (4 * q + b) / C, c = (4 * q + b) % C;
            level[b] = roundToInt((mask >> c) & 1u ? adjusted<ADJUST>(acc[c][i], bias, absolute) : acc[c][i]);
        }
        out[q] = packBytes(level[0], level[1], level[2], level[3]);
    }
}

// The output words of PX pixels of C interleaved channels from their sums (channels outside f.mask: the source
// sample, an integer).
template <int C, int PX>
__device__ __forceinline__ void finishPixels(const ConvFrame& f, const float (&acc)[C][PX], unsigned (&out)[PX * C / 4]) {
    if (plainBytes(f)) {
        const bool absolute = f.absolute != 0;
        if (f.bias != 0.f || absolute) packSamples<C, PX, true>(acc, f.mask, f.bias, absolute, out);
        else packSamples<C, PX, false>(acc, f.mask, 0.f, false, out);
        return;
    }
#pragma unroll
    for (int w = 0; w < PX * C / 4; ++w) out[w] = 0;
#pragma unroll
    for (int e = 0; e < PX * C; ++e) {
        const int i = e / C, c = e % C;
        const unsigned b = (f.mask >> c) & 1u ? finish<std::uint8_t>(f, acc[c][i]) : static_cast<unsigned>(acc[c][i]);
        out[e / 4] |= b << (8 * (e % 4));
    }
}

template <int BANK> __device__ __forceinline__ float combineBank(Combine combine, const float (&r)[BANK]) {
    if constexpr (BANK == 1) {
        return r[0];
    } else {
        float acc = combineInit<float>(combine);
#pragma unroll
        for (int b = 0; b < BANK; ++b) acc = combineAdd<float>(combine, acc, r[b]);
        return combineFinish<float>(combine, acc);
    }
}

// Tile layout shared by the shared-memory kernels: tile row r holds source row oy + r, tile column c holds source
// column ax + c, where ax is a multiple of 4 (the caller rounds the halo up), so that with 1-channel rows aligned to
// 4 samples each group of 4 tile columns is one aligned 4- or 8-byte word of the source.
//
// Word path (frame.vectorRows): each thread issues all its word loads before converting, so a block keeps its whole
// tile in flight; words that straddle the image edge go through borderIndex sample by sample.
template <typename T, int ROWS, int COLS4, int S>
__device__ __forceinline__ void loadTileWords(const ConvFrame& f, int ax, int oy, float* tile) {
    using Word = typename std::conditional<sizeof(T) == 1, unsigned int, uint2>::type;
    static_assert(COLS4 % 4 == 0 && S % 4 == 0);
    constexpr int WORDS = COLS4 / 4, ITEMS = ROWS * WORDS;
    constexpr int PER = (ITEMS + kBlockThreads - 1) / kBlockThreads;
    Word raw[PER];
#pragma unroll
    for (int it = 0; it < PER; ++it) {
        const int idx = threadIdx.x + it * kBlockThreads;
        raw[it] = Word{};
        if (idx < ITEMS) {
            const int r = idx / WORDS, x = ax + 4 * (idx - r * WORDS);
            const int gy = borderIndex(oy + r, f.height, f.border);
            if (gy >= 0 && x >= 0 && x + 4 <= f.width) raw[it] = __ldg(reinterpret_cast<const Word*>(srcRow<T>(f, gy) + x));
        }
    }
#pragma unroll
    for (int it = 0; it < PER; ++it) {
        const int idx = threadIdx.x + it * kBlockThreads;
        if (idx >= ITEMS) break;
        const int r = idx / WORDS, w = idx - r * WORDS, x = ax + 4 * w;
        const int gy = borderIndex(oy + r, f.height, f.border);
        float4 v;
        if (gy >= 0 && x >= 0 && x + 4 <= f.width) {
            if constexpr (sizeof(T) == 1) {
                const unsigned int b = raw[it];
                v = make_float4(float(b & 0xFF), float((b >> 8) & 0xFF), float((b >> 16) & 0xFF), float(b >> 24));
            } else {
                const uint2 b = raw[it];
                v = make_float4(float(b.x & 0xFFFF), float(b.x >> 16), float(b.y & 0xFFFF), float(b.y >> 16));
            }
        } else {
            float e[4];
#pragma unroll
            for (int s = 0; s < 4; ++s) {
                const int gx = borderIndex(x + s, f.width, f.border);
                e[s] = (gy < 0 || gx < 0) ? f.borderValue : float(srcRow<T>(f, gy)[gx]);
            }
            v = make_float4(e[0], e[1], e[2], e[3]);
        }
        *reinterpret_cast<float4*>(tile + r * S + 4 * w) = v;
    }
}

// Sample path (interleaved channels, unaligned rows): batches of 8 loads per thread in flight.
template <typename T, int ROWS, int COLS4, int S>
__device__ __forceinline__ void loadTileSamples(const ConvFrame& f, int ch, int ax, int oy, float* tile) {
    constexpr int ITEMS = ROWS * COLS4, BATCH = 8;
    const int C = f.inChannels;
    for (int base = 0; base < ITEMS; base += BATCH * kBlockThreads) {
        float v[BATCH];
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {
            const int idx = base + b * kBlockThreads + threadIdx.x;
            v[b] = f.borderValue;
            if (idx < ITEMS) {
                const int r = idx / COLS4, c = idx - r * COLS4;
                const int gy = borderIndex(oy + r, f.height, f.border);
                const int gx = borderIndex(ax + c, f.width, f.border);
                if (gy >= 0 && gx >= 0) v[b] = float(__ldg(srcRow<T>(f, gy) + gx * C + ch));
            }
        }
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {
            const int idx = base + b * kBlockThreads + threadIdx.x;
            if (idx < ITEMS) {
                const int r = idx / COLS4, c = idx - r * COLS4;
                tile[r * S + c] = v[b];
            }
        }
    }
}

template <typename T, int ROWS, int COLS4, int S>
__device__ __forceinline__ void loadTile(const ConvFrame& f, int ch, int ax, int oy, float* tile) {
    if (f.vectorRows) loadTileWords<T, ROWS, COLS4, S>(f, ax, oy, tile);
    else loadTileSamples<T, ROWS, COLS4, S>(f, ch, ax, oy, tile);
}

// Copies channel `ch` of a TW × TH block (an unfiltered channel).
template <typename T>
__device__ __forceinline__ void copyBlock(const ConvFrame& f, int ch, int x0, int y0, int TW, int TH) {
    for (int i = threadIdx.x; i < TW * TH; i += blockDim.x) {
        const int x = x0 + i % TW, y = y0 + i / TW;
        if (x < f.width && y < f.height)
            dstRow<T>(f, y)[x * f.outChannels + ch] = srcRow<T>(f, y)[x * f.inChannels + ch];
    }
}

// Stores PX consecutive samples of one output channel at (x, y); vector store when possible.
template <typename T, int PX>
__device__ __forceinline__ void storeRun(const ConvFrame& f, int x, int y, int ch, const T (&v)[PX]) {
    T* row = dstRow<T>(f, y);
    if (f.outChannels == 1 && x + PX <= f.width) {
        T* p = row + x;
        constexpr int bytes = PX * int(sizeof(T));
        if constexpr (bytes == 8) {
            if ((reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
                uint2 w;
                static_assert(sizeof(w) == sizeof(v));
                memcpy(&w, v, 8);
                *reinterpret_cast<uint2*>(p) = w;
                return;
            }
        } else if constexpr (bytes == 16) {
            if ((reinterpret_cast<std::uintptr_t>(p) & 15) == 0) {
                uint4 w;
                memcpy(&w, v, 16);
                *reinterpret_cast<uint4*>(p) = w;
                return;
            }
        }
    }
#pragma unroll
    for (int i = 0; i < PX; ++i)
        if (x + i < f.width) row[(x + i) * f.outChannels + ch] = v[i];
}

// Sample i (0 … 3) of a word as a float; i is a constant once the caller's loops are unrolled.
__device__ __forceinline__ float wordSample(unsigned w, int i) {
    switch (i & 3) {
    case 0: return byteAsFloat<0>(w);
    case 1: return byteAsFloat<1>(w);
    case 2: return byteAsFloat<2>(w);
    default: return byteAsFloat<3>(w);
    }
}

constexpr int roundUp4(int v) { return (v + 3) / 4 * 4; }
constexpr int maxOf(int a, int b) { return a > b ? a : b; }
constexpr int roundUpStride(int need) { return need + ((4 - need % 32) + 32) % 32; }  // ≡ 4 (mod 32) floats

// Row pass of one run of a shared-memory tile row: the 8 outputs from `in` (4 · NV floats, 16-byte aligned; output
// i's first tap at in[D + i]), taps summed in order kx = 0 … K − 1, stored as two float4 at `out`.
template <int K, int NV, int D>
__device__ __forceinline__ void rowPassRun8(const float* in, const float (&row)[K], float* out) {
    const float4* run = reinterpret_cast<const float4*>(in);
    float v[4 * NV];
#pragma unroll
    for (int q = 0; q < NV; ++q) {
        const float4 a = run[q];
        v[4 * q] = a.x;
        v[4 * q + 1] = a.y;
        v[4 * q + 2] = a.z;
        v[4 * q + 3] = a.w;
    }
    float acc[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] = 0.f;
#pragma unroll
    for (int kx = 0; kx < K; ++kx)
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[i] = fmaf(row[kx], v[D + i + kx], acc[i]);
    float4* dst = reinterpret_cast<float4*>(out);
    dst[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    dst[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
}

}  // namespace cudafilters::cuda_detail
