// SPDX-License-Identifier: LGPL-2.1-or-later
// Fused separable K×K correlation: the source tile (with halo) is loaded once into shared memory, the row pass
// writes TW-wide intermediate rows for every tile row (halo rows included) into a second shared buffer, and the
// column pass produces the outputs from it. Taps travel by value in the parameter block.
#include "convolve_device.cuh"

#include <algorithm>

namespace cudafilters::cuda_detail {
namespace {

// 64 × 32 output tiles: small enough for four blocks per SM, so that one block's tile load overlaps another's
// arithmetic.
template <int K, int TH_ = 32> struct SeparableConfig {
    static constexpr int PX = 8;                      // row pass: outputs per thread
    static constexpr int TW = 64;
    static constexpr int TH = TH_;
    static constexpr int BANDS = kBlockThreads / TW;  // column pass: bands of rows
    static constexpr int PYC = TH / BANDS;            // column pass: outputs per thread
    static constexpr int R = K / 2;
    static constexpr int RA = roundUp4(R);               // halo rounded up: tile column 0 is 4-sample aligned
    static constexpr int D = RA - R;
    static constexpr int NV = (D + PX + K - 1 + 3) / 4;
    static constexpr int ROWS = TH + K - 1;
    static constexpr int ROWS8 = (ROWS + 7) / 8 * 8;
    static constexpr int COLS4 = TW + 2 * RA;
    static constexpr int S = roundUpStride(maxOf(COLS4, TW - PX + 4 * NV));  // source tile stride
    static constexpr int SM = roundUpStride(TW);                              // intermediate stride
    static constexpr std::size_t SMEM = (std::size_t(ROWS) * S + std::size_t(ROWS) * SM) * sizeof(float);
    static constexpr int GROUPS = TW / PX;                       // row-pass thread groups per row
    static constexpr int MIN_BLOCKS = TH == 32 ? 4 : 3;
    static_assert(kBlockThreads % TW == 0 && TH == BANDS * PYC);
};

template <int K> struct SeparableParams {
    ConvFrame f;
    float row[K];
    float column[K];
};

// Column pass of one-channel 255-level frames: a thread takes two adjacent columns of PYC / 2 rows, finishes the two
// samples of a row with one conversion pair (roundToInt, packBytes: finishByte's levels) and stores them as one
// 16-bit word. The sums are those of the column pass below, in the same order.
template <int K, int TH>
__device__ __forceinline__ void columnPassPairs(const SeparableParams<K>& p, const float* mid, int x0, int y0) {
    using C = SeparableConfig<K, TH>;
    constexpr int PAIRS = C::TW / 2, BANDS = kBlockThreads / PAIRS, ROWS = TH / BANDS;
    static_assert(TH % BANDS == 0);
    const ConvFrame& f = p.f;
    const int x = 2 * (int(threadIdx.x) % PAIRS);
    const int yc = (int(threadIdx.x) / PAIRS) * ROWS;
    if (x0 + x >= f.width || y0 + yc >= f.height) return;
    float2 v[ROWS + K - 1];
#pragma unroll
    for (int i = 0; i < ROWS + K - 1; ++i) v[i] = *reinterpret_cast<const float2*>(mid + (yc + i) * C::SM + x);
    const bool absolute = f.absolute != 0, adjust = f.bias != 0.f || absolute;
    const bool pair = x0 + x + 1 < f.width;
#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
        float a = 0.f, b = 0.f;
#pragma unroll
        for (int ky = 0; ky < K; ++ky) {
            a = fmaf(p.column[ky], v[j + ky].x, a);
            b = fmaf(p.column[ky], v[j + ky].y, b);
        }
        const int y = y0 + yc + j;
        if (y >= f.height) break;
        if (adjust) {
            a = adjusted<true>(a, f.bias, absolute);
            b = adjusted<true>(b, f.bias, absolute);
        }
        const unsigned word = packBytes(roundToInt(a), roundToInt(b), 0, 0);
        std::uint8_t* out = dstRow<std::uint8_t>(f, y) + x0 + x;
        if (pair && (reinterpret_cast<std::uintptr_t>(out) & 1) == 0) {
            *reinterpret_cast<unsigned short*>(out) = static_cast<unsigned short>(word);
        } else {
            out[0] = static_cast<std::uint8_t>(word);
            if (pair) out[1] = static_cast<std::uint8_t>(word >> 8);
        }
    }
}

template <typename T, int K, int TH>
__global__ void __launch_bounds__(kBlockThreads, SeparableConfig<K, TH>::MIN_BLOCKS)
    separableKernel(const __grid_constant__ SeparableParams<K> p) {
    using C = SeparableConfig<K, TH>;
    extern __shared__ float4 smem4[];
    float* tile = reinterpret_cast<float*>(smem4);
    float* mid = tile + C::ROWS * C::S;
    const ConvFrame& f = p.f;
    const int ch = int(blockIdx.x) % f.inChannels;  // channel varies fastest: neighbours share source lines
    const int x0 = (int(blockIdx.x) / f.inChannels) * C::TW, y0 = blockIdx.y * C::TH;
    if (!((f.mask >> ch) & 1u)) {
        if ((f.copy >> ch) & 1u) copyBlock<T>(f, ch, x0, y0, C::TW, C::TH);
        return;
    }
    loadTile<T, C::ROWS, C::COLS4, C::S>(f, ch, x0 - C::RA, y0 - C::R, tile);
    __syncthreads();

    // Row pass: the 8 threads of a quarter warp take 8 consecutive rows (distinct banks).
    for (int w = threadIdx.x; w < C::ROWS8 * C::GROUPS; w += kBlockThreads) {
        const int r = (w & 7) + 8 * (w / (8 * C::GROUPS));
        const int xs = ((w >> 3) % C::GROUPS) * C::PX;
        if (r >= C::ROWS) continue;
        static_assert(C::PX == 8);
        rowPassRun8<K, C::NV, C::D>(tile + r * C::S + xs, p.row, mid + r * C::SM + xs);
    }
    __syncthreads();

    if constexpr (sizeof(T) == 1 && K <= 15) {  // (K = 31: its ROWS + 30 pairs of registers would spill)
        if (f.outChannels == 1 && plainBytes(f)) return columnPassPairs<K, TH>(p, mid, x0, y0);
    }
    // Column pass: consecutive threads on consecutive columns, each PYC rows of one band.
    const int x = threadIdx.x % C::TW;
    const int yc = (threadIdx.x / C::TW) * C::PYC;
    if (x0 + x >= f.width || y0 + yc >= f.height) return;
    float v[C::PYC + K - 1];
#pragma unroll
    for (int i = 0; i < C::PYC + K - 1; ++i) v[i] = mid[(yc + i) * C::SM + x];
#pragma unroll
    for (int j = 0; j < C::PYC; ++j) {
        float acc = 0.f;
#pragma unroll
        for (int ky = 0; ky < K; ++ky) acc = fmaf(p.column[ky], v[j + ky], acc);
        const int y = y0 + yc + j;
        if (y < f.height) dstRow<T>(f, y)[(x0 + x) * f.outChannels + ch] = finish<T>(f, acc);
    }
}

template <typename T, int K, int TH = 32>
void launchSeparableT(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    using C = SeparableConfig<K, TH>;
    SeparableParams<K> p = separableParams<SeparableParams<K>, K>(frame, row, column);
    auto kernel = separableKernel<T, K, TH>;
    allowDynamicSharedMemory(kernel, C::SMEM);
    const dim3 grid((frame.width + C::TW - 1) / C::TW * frame.inChannels, (frame.height + C::TH - 1) / C::TH);
    kernel<<<grid, kBlockThreads, C::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableKernel");
}

// 64 × 32 output tiles, but 64 × 64 for u8 K = 31 on frames of 4 Mpixel and more: taller tiles compute 94 instead of
// 124 row-pass rows per 64 output rows, but fit 3 blocks per SM instead of 4, which measures faster at 4K K = 31 and
// slower at 1080p (1.3 waves of the tall tiles) and at K = 15 (`bench-convolve --ks 15,31`, build-bench).
bool largeFrame(const ConvFrame& frame) { return std::int64_t(frame.width) * frame.height >= 4000000; }

template <typename T>
void launchSeparableTyped(int k, const ConvFrame& frame, const float* row, const float* column, cudaStream_t s) {
    if constexpr (sizeof(T) == 1) {
        if (k == 31 && largeFrame(frame)) return launchSeparableT<T, 31, 64>(frame, row, column, s);
    }
    switch (k) {
    case 3: return launchSeparableT<T, 3>(frame, row, column, s);
    case 5: return launchSeparableT<T, 5>(frame, row, column, s);
    case 7: return launchSeparableT<T, 7>(frame, row, column, s);
    case 9: return launchSeparableT<T, 9>(frame, row, column, s);
    case 15: return launchSeparableT<T, 15>(frame, row, column, s);
    case 31: return launchSeparableT<T, 31>(frame, row, column, s);
    default: throw InvalidArgument("no separable kernel compiled for size " + std::to_string(k));
    }
}

}  // namespace

void launchSeparableTile(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                         cudaStream_t stream) {
    if (type == SampleType::U8) launchSeparableTyped<std::uint8_t>(k, frame, row, column, stream);
    else launchSeparableTyped<std::uint16_t>(k, frame, row, column, stream);
}

}  // namespace cudafilters::cuda_detail
