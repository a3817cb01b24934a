// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Direct K×K correlation for the common square odd sizes: the taps travel by value in the kernel's parameter
// block (the constant bank of that launch), the source tile with its halo sits in shared memory as floats and
// each thread computes PX × PY outputs with register blocking.
//
// Thread layout: a warp is 4 (x) × 8 (y) threads, the 8 threads of each quarter warp on 8 consecutive tile rows,
// so their 16-byte shared-memory loads hit distinct banks (tile row stride ≡ 4 floats mod 32). Output rows of a
// thread are 8 apart.
#include "convolve_device.cuh"

#include <cstring>

namespace cudafilters::cuda_detail {

template <int K, int BANK> struct DirectConfig {
    static constexpr int PX = 8;
    static constexpr int PY = maxOf((K <= 9 ? 2 : 4) / BANK, 1);
    static constexpr int WX = 4, WY = 2;  // warps per block in x and y
    static constexpr int TW = WX * 4 * PX;
    static constexpr int TH = WY * 8 * PY;
    static constexpr int R = K / 2;
    static constexpr int RA = roundUp4(R);               // halo rounded up: tile column 0 is 4-sample aligned
    static constexpr int D = RA - R;                     // tile column of the first tap of output column 0
    static constexpr int NV = (D + PX + K - 1 + 3) / 4;  // float4 loads per input row run
    static constexpr int ROWS = TH + K - 1;
    static constexpr int COLS4 = TW + 2 * RA;
    static constexpr int S = roundUpStride(maxOf(COLS4, TW - PX + 4 * NV));
    // Banks written to their own output channels (at most 4) stage their results in the same shared memory.
    static constexpr std::size_t STAGED = BANK <= 4 ? std::size_t(BANK) * TH * TW * sizeof(std::uint16_t) : 0;
    static constexpr std::size_t TILE = std::size_t(ROWS) * S * sizeof(float);
    static constexpr std::size_t SMEM = TILE > STAGED ? TILE : STAGED;
    static_assert(WX * WY * 32 == kBlockThreads);
};

template <int K, int BANK> struct DirectParams {
    ConvFrame f;
    float taps[BANK][K * K];
};

// A thread's sums: kernel b of the bank, output row j, pixel i.
template <int K, int BANK> using DirectSumsOf = float[BANK][DirectConfig<K, BANK>::PY][DirectConfig<K, BANK>::PX];

// This thread's PX × PY sums of every kernel of the bank, from the tile: output (tx + i, ty + 8 j).
template <int K, int BANK>
__device__ __forceinline__ void directSums(const DirectParams<K, BANK>& p, const float* tile, int tx, int ty,
                                           DirectSumsOf<K, BANK>& acc) {
    using C = DirectConfig<K, BANK>;
#pragma unroll
    for (int b = 0; b < BANK; ++b)
#pragma unroll
        for (int j = 0; j < C::PY; ++j)
#pragma unroll
            for (int i = 0; i < C::PX; ++i) acc[b][j][i] = 0.f;

    constexpr int kUnroll = K <= 9 ? K : 1;
#pragma unroll kUnroll
    for (int ky = 0; ky < K; ++ky) {
        float t[BANK][K];
#pragma unroll
        for (int b = 0; b < BANK; ++b)
#pragma unroll
            for (int kx = 0; kx < K; ++kx) t[b][kx] = p.taps[b][ky * K + kx];
#pragma unroll
        for (int j = 0; j < C::PY; ++j) {
            const float4* run = reinterpret_cast<const float4*>(tile + (ty + 8 * j + ky) * C::S + tx);
            float v[4 * C::NV];
#pragma unroll
            for (int q = 0; q < C::NV; ++q) {
                const float4 w = run[q];
                v[4 * q] = w.x;
                v[4 * q + 1] = w.y;
                v[4 * q + 2] = w.z;
                v[4 * q + 3] = w.w;
            }
#pragma unroll
            for (int b = 0; b < BANK; ++b)
#pragma unroll
                for (int kx = 0; kx < K; ++kx)
#pragma unroll
                    for (int i = 0; i < C::PX; ++i) acc[b][j][i] = fmaf(t[b][kx], v[C::D + i + kx], acc[b][j][i]);
        }
    }
}

// Each kernel's results to its own output channel: staged in shared memory (the tile, read by every sum, is free
// after the barrier), then stored row by row, consecutive threads on consecutive pixels, rather than a thread's own
// run of PX pixels one channel each (a sector a sample).
template <typename T, int K, int BANK>
__device__ __forceinline__ void storeBankChannels(const ConvFrame& f, float* tile, int x0, int y0, int tx, int ty,
                                                  const DirectSumsOf<K, BANK>& acc) {
    using C = DirectConfig<K, BANK>;
    T* staged = reinterpret_cast<T*>(tile);  // [BANK][TH][TW]
    static_assert(BANK > 4 || std::size_t(BANK) * C::TH * C::TW * sizeof(T) <= C::SMEM);
    __syncthreads();
#pragma unroll
    for (int b = 0; b < BANK; ++b)
#pragma unroll
        for (int j = 0; j < C::PY; ++j)
#pragma unroll
            for (int i = 0; i < C::PX; ++i)
                staged[(b * C::TH + ty + 8 * j) * C::TW + tx + i] = finish<T>(f, acc[b][j][i]);
    __syncthreads();
    for (int k = int(threadIdx.x); k < BANK * C::TH * C::TW; k += kBlockThreads) {
        const int b = k / (C::TH * C::TW), y = y0 + k / C::TW % C::TH, x = x0 + k % C::TW;
        if (y < f.height && x < f.width) dstRow<T>(f, y)[x * f.outChannels + b] = staged[k];
    }
}

// The bank's results combined into channel ch, a run of PX pixels a row. One-channel 255-level frames: four samples
// per conversion pair (finishPixels).
template <typename T, int K, int BANK>
__device__ __forceinline__ void storeCombined(const ConvFrame& f, int ch, int x0, int y0, int tx, int ty,
                                              const DirectSumsOf<K, BANK>& acc) {
    using C = DirectConfig<K, BANK>;
    const bool bytesPacked = sizeof(T) == 1 && f.outChannels == 1 && plainBytes(f);
#pragma unroll
    for (int j = 0; j < C::PY; ++j) {
        const int y = y0 + ty + 8 * j;
        const int x = x0 + tx;
        if (y >= f.height || x >= f.width) continue;
        if (BANK == 1 && bytesPacked) {
            const float (&run)[1][C::PX] = reinterpret_cast<const float (&)[1][C::PX]>(acc[0][j]);
            unsigned words[C::PX / 4];
            finishPixels<1, C::PX>(f, run, words);
            T out[C::PX];
            memcpy(out, words, sizeof(out));
            storeRun<T, C::PX>(f, x, y, ch, out);
        } else {
            T out[C::PX];
#pragma unroll
            for (int i = 0; i < C::PX; ++i) {
                float r[BANK];
#pragma unroll
                for (int b = 0; b < BANK; ++b) r[b] = acc[b][j][i];
                out[i] = finish<T>(f, combineBank<BANK>(f.combine, r));
            }
            storeRun<T, C::PX>(f, x, y, ch, out);
        }
    }
}

template <typename T, int K, int BANK>
__global__ void __launch_bounds__(kBlockThreads) directKernel(const __grid_constant__ DirectParams<K, BANK> p) {
    using C = DirectConfig<K, BANK>;
    extern __shared__ float4 smem4[];
    float* tile = reinterpret_cast<float*>(smem4);
    const ConvFrame& f = p.f;
    const bool toChannels = f.combine == Combine::Channels;
    const int layers = toChannels ? 1 : f.inChannels;  // channel varies fastest: neighbours share source lines
    const int ch = toChannels ? 0 : int(blockIdx.x) % layers;
    const int x0 = (int(blockIdx.x) / layers) * C::TW, y0 = blockIdx.y * C::TH;
    if (!toChannels && !((f.mask >> ch) & 1u)) {
        if ((f.copy >> ch) & 1u) copyBlock<T>(f, ch, x0, y0, C::TW, C::TH);
        return;
    }
    loadTile<T, C::ROWS, C::COLS4, C::S>(f, ch, x0 - C::RA, y0 - C::R, tile);
    __syncthreads();

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int tx = ((warp % C::WX) * 4 + (lane >> 3)) * C::PX;
    const int ty = (warp / C::WX) * 8 * C::PY + (lane & 7);

    DirectSumsOf<K, BANK> acc;
    directSums<K, BANK>(p, tile, tx, ty, acc);
    if (BANK <= 4 && toChannels) return storeBankChannels<T, K, BANK>(f, tile, x0, y0, tx, ty, acc);
    storeCombined<T, K, BANK>(f, ch, x0, y0, tx, ty, acc);
}

template <typename T, int K, int BANK>
void launchDirectT(const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    using C = DirectConfig<K, BANK>;
    DirectParams<K, BANK> p;
    p.f = frame;
    for (int b = 0; b < BANK; ++b)
        for (int i = 0; i < K * K; ++i) p.taps[b][i] = taps[b * K * K + i];
    auto kernel = directKernel<T, K, BANK>;
    allowDynamicSharedMemory(kernel, C::SMEM);
    const int layers = frame.combine == Combine::Channels ? 1 : frame.inChannels;
    const dim3 grid((frame.width + C::TW - 1) / C::TW * layers, (frame.height + C::TH - 1) / C::TH);
    kernel<<<grid, kBlockThreads, C::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("directKernel");
}

// Banks of one or two kernels at every compiled size; of 3 to 8 at K = 3 and 5 only (directBankSupported: compass
// operators such as Kirsch's and Robinson's, output=channels).
template <typename T, int BANK>
bool launchDirectBank(int k, const ConvFrame& frame, const float* taps, cudaStream_t stream) {
    switch (k) {
    case 3: launchDirectT<T, 3, BANK>(frame, taps, stream); return true;
    case 5: launchDirectT<T, 5, BANK>(frame, taps, stream); return true;
    default: break;
    }
    if constexpr (BANK <= 2) {
        switch (k) {
        case 7: launchDirectT<T, 7, BANK>(frame, taps, stream); return true;
        case 9: launchDirectT<T, 9, BANK>(frame, taps, stream); return true;
        case 15: launchDirectT<T, 15, BANK>(frame, taps, stream); return true;
        case 31: launchDirectT<T, 31, BANK>(frame, taps, stream); return true;
        default: break;
        }
    }
    return false;
}

template <typename T> bool launchDirectTyped(int k, int bank, const ConvFrame& frame, const float* taps,
                                             cudaStream_t stream) {
    switch (bank) {
    case 1: return launchDirectBank<T, 1>(k, frame, taps, stream);
    case 2: return launchDirectBank<T, 2>(k, frame, taps, stream);
    case 3: return launchDirectBank<T, 3>(k, frame, taps, stream);
    case 4: return launchDirectBank<T, 4>(k, frame, taps, stream);
    case 5: return launchDirectBank<T, 5>(k, frame, taps, stream);
    case 6: return launchDirectBank<T, 6>(k, frame, taps, stream);
    case 7: return launchDirectBank<T, 7>(k, frame, taps, stream);
    case 8: return launchDirectBank<T, 8>(k, frame, taps, stream);
    default: return false;
    }
}

}  // namespace cudafilters::cuda_detail
