// SPDX-License-Identifier: LGPL-2.1-or-later
// The FFT path's own kernels (fft_launch.hpp): padding into the transform planes, the spectra products and the
// finishing pass. The transforms themselves are cuFFT's.
#include "convolve_device.cuh"
#include "fft_launch.hpp"

namespace cudafilters::cuda_detail {
namespace {

constexpr int kFftBlockX = 32, kFftBlockY = 8;

struct PadParams {
    ConvFrame f;
    FftGeometry g;
    FftTables t;
    float* planes;
};

// One thread per plane sample; blockIdx.z = input plane.
template <typename T> __global__ void __launch_bounds__(kFftBlockX* kFftBlockY) fftPadKernel(const __grid_constant__ PadParams p) {
    const ConvFrame& f = p.f;
    const int px = blockIdx.x * kFftBlockX + threadIdx.x;
    const int py = blockIdx.y * kFftBlockY + threadIdx.y;
    if (px >= p.g.fftWidth || py >= p.g.fftHeight) return;
    const int sy = borderIndex(py - p.g.anchorY, f.height, f.border);
    const int sx = borderIndex(px - p.g.anchorX, f.width, f.border);
    const int channel = p.t.inputChannel[blockIdx.z];
    const float v = (sx < 0 || sy < 0) ? f.borderValue : float(__ldg(srcRow<T>(f, sy) + sx * f.inChannels + channel));
    p.planes[blockIdx.z * p.g.realPlane() + std::size_t(py) * p.g.fftWidth + px] = v - p.g.offset;
}

struct MultiplyParams {
    FftGeometry g;
    FftTables t;
    const float2* inputs;
    const float2* kernels;
    float2* products;
};

// One thread per spectrum bin; blockIdx.y = response.
__global__ void __launch_bounds__(256) fftMultiplyKernel(const __grid_constant__ MultiplyParams p) {
    const std::size_t bins = p.g.spectrumPlane();
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= bins) return;
    const int r = blockIdx.y;
    float2 acc = make_float2(0.f, 0.f);
    for (int n = 0; n < p.t.termCount[r]; ++n) {
        const int term = p.t.termFirst[r] + n;
        const float2 x = p.inputs[p.t.termInput[term] * bins + i];
        const float2 h = __ldg(p.kernels + p.t.termKernel[term] * bins + i);
        acc.x = fmaf(x.x, h.x, fmaf(x.y, h.y, acc.x));   // x · conj(h)
        acc.y = fmaf(x.y, h.x, fmaf(-x.x, h.y, acc.y));
    }
    p.products[r * bins + i] = acc;
}

struct FinishParams {
    ConvFrame f;
    FftGeometry g;
    FftTables t;
    const float* responses;
};

// One thread per output pixel, every output channel.
template <typename T> __global__ void __launch_bounds__(kFftBlockX* kFftBlockY) fftFinishKernel(const __grid_constant__ FinishParams p) {
    const ConvFrame& f = p.f;
    const int x = blockIdx.x * kFftBlockX + threadIdx.x;
    const int y = blockIdx.y * kFftBlockY + threadIdx.y;
    if (x >= f.width || y >= f.height) return;
    const std::size_t at = std::size_t(y) * p.g.fftWidth + x;
    T* out = dstRow<T>(f, y) + x * f.outChannels;
    for (int o = 0; o < f.outChannels; ++o) {
        const int count = p.t.outputCount[o];
        if (count == 0) {
            if ((f.copy >> o) & 1u) out[o] = srcRow<T>(f, y)[x * f.inChannels + o];
            continue;
        }
        float acc = combineInit<float>(f.combine);
        for (int n = 0; n < count; ++n) {
            const int r = p.t.outputFirst[o] + n;
            acc = combineAdd<float>(f.combine, acc, p.responses[r * p.g.realPlane() + at] + p.t.correction[r]);
        }
        out[o] = finish<T>(f, combineFinish<float>(f.combine, acc));
    }
}

dim3 planeGrid(int width, int height, int layers) {
    return dim3((width + kFftBlockX - 1) / kFftBlockX, (height + kFftBlockY - 1) / kFftBlockY, layers);
}

}  // namespace

void launchFftPad(SampleType type, const ConvFrame& frame, const FftGeometry& geometry, const FftTables& tables,
                  float* planes, cudaStream_t stream) {
    const PadParams p{frame, geometry, tables, planes};
    const dim3 block(kFftBlockX, kFftBlockY);
    const dim3 grid = planeGrid(geometry.fftWidth, geometry.fftHeight, tables.inputs);
    if (type == SampleType::U8) fftPadKernel<std::uint8_t><<<grid, block, 0, stream>>>(p);
    else fftPadKernel<std::uint16_t><<<grid, block, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("fftPadKernel");
}

void launchFftMultiply(const FftGeometry& geometry, const FftTables& tables, const float2* inputSpectra,
                       const float2* kernelSpectra, float2* products, cudaStream_t stream) {
    const MultiplyParams p{geometry, tables, inputSpectra, kernelSpectra, products};
    const dim3 grid(unsigned((geometry.spectrumPlane() + 255) / 256), unsigned(tables.responses));
    fftMultiplyKernel<<<grid, 256, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("fftMultiplyKernel");
}

void launchFftFinish(SampleType type, const ConvFrame& frame, const FftGeometry& geometry, const FftTables& tables,
                     const float* responses, cudaStream_t stream) {
    const FinishParams p{frame, geometry, tables, responses};
    const dim3 block(kFftBlockX, kFftBlockY);
    const dim3 grid = planeGrid(frame.width, frame.height, 1);
    if (type == SampleType::U8) fftFinishKernel<std::uint8_t><<<grid, block, 0, stream>>>(p);
    else fftFinishKernel<std::uint16_t><<<grid, block, 0, stream>>>(p);
    CUDAFILTERS_CHECK_LAUNCH("fftFinishKernel");
}

}  // namespace cudafilters::cuda_detail
