// Fused separable K×K correlation: the source tile (with halo) is loaded once into shared memory, the row pass
// writes TW-wide intermediate rows for every tile row (halo rows included) into a second shared buffer, and the
// column pass produces the outputs from it. Taps travel by value in the parameter block.
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {
namespace {

template <int K> struct SeparableConfig {
    static constexpr int PX = 8;                 // row pass: outputs per thread
    static constexpr int PYC = 8;                // column pass: outputs per thread and chunk
    static constexpr int TW = 128;
    static constexpr int TH = K <= 5 ? 32 : 64;
    static constexpr int R = K / 2;
    static constexpr int NV = (PX + K - 1 + 3) / 4;
    static constexpr int ROWS = TH + K - 1;
    static constexpr int ROWS8 = (ROWS + 7) / 8 * 8;
    static constexpr int COLS = TW + K - 1;
    static constexpr int S = roundUpStride(TW - PX + 4 * NV);  // source tile stride
    static constexpr int SM = roundUpStride(TW);                // intermediate stride
    static constexpr std::size_t SMEM = (std::size_t(ROWS) * S + std::size_t(ROWS) * SM) * sizeof(float);
    static constexpr int GROUPS = TW / PX;                       // row-pass thread groups per row
    static_assert(kBlockThreads % TW == 0 && TH % ((kBlockThreads / TW) * PYC) == 0);
};

template <int K> struct SeparableParams {
    ConvFrame f;
    float row[K];
    float column[K];
};

template <typename T, int K>
__global__ void __launch_bounds__(kBlockThreads) separableKernel(const __grid_constant__ SeparableParams<K> p) {
    using C = SeparableConfig<K>;
    extern __shared__ float4 smem4[];
    float* tile = reinterpret_cast<float*>(smem4);
    float* mid = tile + C::ROWS * C::S;
    const ConvFrame& f = p.f;
    const int x0 = blockIdx.x * C::TW, y0 = blockIdx.y * C::TH;
    const int ch = blockIdx.z;
    if (!((f.mask >> ch) & 1u)) {
        copyBlock<T>(f, ch, x0, y0, C::TW, C::TH);
        return;
    }
    loadTile<T, C::ROWS, C::COLS, C::S>(f, ch, x0 - C::R, y0 - C::R, tile);
    __syncthreads();

    // Row pass: the 8 threads of a quarter warp take 8 consecutive rows (distinct banks).
    for (int w = threadIdx.x; w < C::ROWS8 * C::GROUPS; w += kBlockThreads) {
        const int r = (w & 7) + 8 * (w / (8 * C::GROUPS));
        const int xs = ((w >> 3) % C::GROUPS) * C::PX;
        if (r >= C::ROWS) continue;
        const float4* run = reinterpret_cast<const float4*>(tile + r * C::S + xs);
        float v[4 * C::NV];
#pragma unroll
        for (int q = 0; q < C::NV; ++q) {
            const float4 a = run[q];
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
        float acc[C::PX];
#pragma unroll
        for (int i = 0; i < C::PX; ++i) acc[i] = 0.f;
#pragma unroll
        for (int kx = 0; kx < K; ++kx)
#pragma unroll
            for (int i = 0; i < C::PX; ++i) acc[i] = fmaf(p.row[kx], v[i + kx], acc[i]);
        float4* out = reinterpret_cast<float4*>(mid + r * C::SM + xs);
        out[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
        out[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
    __syncthreads();

    // Column pass: consecutive threads on consecutive columns.
    constexpr int bands = kBlockThreads / C::TW;
    constexpr int bandRows = C::TH / bands;
    const int x = threadIdx.x % C::TW;
    const int band = threadIdx.x / C::TW;
    if (x0 + x >= f.width) return;
#pragma unroll 1
    for (int yc = band * bandRows; yc < (band + 1) * bandRows; yc += C::PYC) {
        if (y0 + yc >= f.height) break;
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
}

template <typename T, int K>
void launchSeparableT(const ConvFrame& frame, const float* row, const float* column, cudaStream_t stream) {
    using C = SeparableConfig<K>;
    SeparableParams<K> p;
    p.f = frame;
    for (int i = 0; i < K; ++i) {
        p.row[i] = row[i];
        p.column[i] = column[i];
    }
    auto kernel = separableKernel<T, K>;
    if (C::SMEM > 48 * 1024)
        CUDAFILTERS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(C::SMEM)));
    const dim3 grid((frame.width + C::TW - 1) / C::TW, (frame.height + C::TH - 1) / C::TH, frame.inChannels);
    kernel<<<grid, kBlockThreads, C::SMEM, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("separableKernel");
}

template <typename T>
void launchSeparableTyped(int k, const ConvFrame& frame, const float* row, const float* column, cudaStream_t s) {
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

void launchSeparable(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                     cudaStream_t stream) {
    if (type == SampleType::U8) launchSeparableTyped<std::uint8_t>(k, frame, row, column, stream);
    else launchSeparableTyped<std::uint16_t>(k, frame, row, column, stream);
}

}  // namespace cudafilters::cuda_detail
