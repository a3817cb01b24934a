// SPDX-License-Identifier: LGPL-2.1-or-later
// The runtime-size path: any kernel size up to kMaxKernelSize, any bank size and combine, MultiChannel. One thread
// per output sample, source read from global memory through borderIndex, taps from a device buffer (uniform
// loads, broadcast across the warp). Correct for everything; the templated paths are the fast ones.
#include "convolve_device.cuh"

namespace cudafilters::cuda_detail {
namespace {

struct GenericParams {
    ConvFrame f;
    const float* taps;
    int kw, kh, kernelCount;
    ConvolveMode mode;
};

template <typename T>
__device__ float response(const ConvFrame& f, const float* __restrict__ taps, int kw, int kh, int x, int y, int c) {
    const int ax = kw / 2, ay = kh / 2;
    float sum = 0.f;
    for (int ky = 0; ky < kh; ++ky) {
        const int sy = borderIndex(y + ky - ay, f.height, f.border);
        const T* row = sy < 0 ? nullptr : srcRow<T>(f, sy);
        const float* t = taps + ky * kw;
        for (int kx = 0; kx < kw; ++kx) {
            const int sx = borderIndex(x + kx - ax, f.width, f.border);
            const float v = (row == nullptr || sx < 0) ? f.borderValue : float(__ldg(row + sx * f.inChannels + c));
            sum = fmaf(__ldg(t + kx), v, sum);
        }
    }
    return sum;
}

template <typename T> __global__ void __launch_bounds__(kBlockThreads) genericKernel(const __grid_constant__ GenericParams p) {
    const ConvFrame& f = p.f;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int o = blockIdx.z;  // output channel
    if (x >= f.width || y >= f.height) return;
    const int taps = p.kw * p.kh;
    T* out = dstRow<T>(f, y) + x * f.outChannels + o;
    if (p.mode == ConvolveMode::MultiChannel) {
        float sum = 0.f;
        for (int c = 0; c < f.inChannels; ++c)
            sum += response<T>(f, p.taps + std::size_t(o * f.inChannels + c) * taps, p.kw, p.kh, x, y, c);
        *out = finish<T>(f, sum);
    } else if (f.combine == Combine::Channels) {
        *out = finish<T>(f, response<T>(f, p.taps + std::size_t(o) * taps, p.kw, p.kh, x, y, 0));
    } else if (!((f.mask >> o) & 1u)) {
        if ((f.copy >> o) & 1u) *out = srcRow<T>(f, y)[x * f.inChannels + o];
    } else if (p.kernelCount == 1) {
        *out = finish<T>(f, response<T>(f, p.taps, p.kw, p.kh, x, y, o));
    } else {
        float acc = combineInit<float>(f.combine);
        for (int n = 0; n < p.kernelCount; ++n)
            acc = combineAdd<float>(f.combine, acc, response<T>(f, p.taps + std::size_t(n) * taps, p.kw, p.kh, x, y, o));
        *out = finish<T>(f, combineFinish<float>(f.combine, acc));
    }
}

}  // namespace

void launchGeneric(SampleType type, ConvolveMode mode, int kernelCount, int kw, int kh, const ConvFrame& frame,
                   const float* deviceTaps, cudaStream_t stream) {
    GenericParams p{frame, deviceTaps, kw, kh, kernelCount, mode};
    const dim3 block(32, kBlockThreads / 32);
    const dim3 grid((frame.width + 31) / 32, (frame.height + block.y - 1) / block.y, frame.outChannels);
    if (type == SampleType::U8) genericKernel<std::uint8_t><<<grid, block, 0, stream>>>(p);
    else genericKernel<std::uint16_t><<<grid, block, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("genericKernel");
}

}  // namespace cudafilters::cuda_detail
