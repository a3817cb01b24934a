#pragma once
// Device helpers shared by the convolution kernels.
#include "convolve_launch.hpp"

#include <cudafilters/border.hpp>
#include <cudafilters/convolve_arithmetic.hpp>
#include <cudafilters/cuda_raii.hpp>

#include <cstdint>

namespace cudafilters::cuda_detail {

constexpr int kBlockThreads = 256;

template <typename T> struct SampleTraits;
template <> struct SampleTraits<std::uint8_t> { static constexpr int maxValue = 255; };
template <> struct SampleTraits<std::uint16_t> { static constexpr int maxValue = 65535; };

template <typename T> __device__ __forceinline__ const T* srcRow(const ConvFrame& f, int y) {
    return reinterpret_cast<const T*>(f.src + std::size_t(y) * f.srcPitch);
}
template <typename T> __device__ __forceinline__ T* dstRow(const ConvFrame& f, int y) {
    return reinterpret_cast<T*>(f.dst + std::size_t(y) * f.dstPitch);
}

// combined response → + bias, |.|, round half to even, saturate.
template <typename T> __device__ __forceinline__ T finish(const ConvFrame& f, float value) {
    return static_cast<T>(finishSample<float>(value, f.bias, f.absolute != 0, SampleTraits<T>::maxValue));
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

// Fills a ROWS × COLS float tile (row stride S) with channel `ch` of the source, starting at (ox, oy) in image
// coordinates; outside the image through borderIndex (constant border: borderValue).
template <typename T, int ROWS, int COLS, int S>
__device__ __forceinline__ void loadTile(const ConvFrame& f, int ch, int ox, int oy, float* tile) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    constexpr int warps = kBlockThreads / 32;
    const bool interiorX = ox >= 0 && ox + COLS <= f.width;
    for (int r = warp; r < ROWS; r += warps) {
        const int gy = borderIndex(oy + r, f.height, f.border);
        float* trow = tile + r * S;
        if (gy < 0) {
            for (int c = lane; c < COLS; c += 32) trow[c] = f.borderValue;
            continue;
        }
        const T* srow = srcRow<T>(f, gy) + ch;
        const int C = f.inChannels;
        if (interiorX) {
            const T* s = srow + ox * C;
#pragma unroll 4
            for (int c = lane; c < COLS; c += 32) trow[c] = float(s[c * C]);
        } else {
#pragma unroll 4
            for (int c = lane; c < COLS; c += 32) {
                const int gx = borderIndex(ox + c, f.width, f.border);
                trow[c] = gx < 0 ? f.borderValue : float(srow[gx * C]);
            }
        }
    }
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

constexpr int roundUpStride(int need) { return need + ((4 - need % 32) + 32) % 32; }  // ≡ 4 (mod 32) floats

}  // namespace cudafilters::cuda_detail
