// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The FFT path's geometry, tables and kernel launchers (no CUDA syntax here). A frame is correlated with the plan's
// kernels as products of spectra:
//   pad:      each needed source channel, minus `offset`, into a real plane of fftWidth × fftHeight, extended by the
//             border rule, so that plane(x, y) = source(x - anchorX, y - anchorY);
//   R2C:      the planes' spectra (one batched transform);
//   multiply: response r's spectrum = sum over its terms of input spectrum × conj(kernel spectrum) (correlation;
//             the kernel spectra carry the 1 / (fftWidth · fftHeight) of the inverse);
//   C2R:      the responses (one batched transform);
//   finish:   + offset × the taps' sum, the bank's combine, bias, |x|, rounding and saturation as every path does.
// The plane is at least width + kw - 1 wide (and height + kh - 1 high), so the circular correlation never wraps
// into the samples an output reads. Subtracting `offset` (half the sample range) halves the largest magnitude the
// single-precision transforms carry.
#include "convolve_launch.hpp"

#include <cudafilters/border.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace cudafilters::cuda_detail {

constexpr int kFftMaxInputs = 4;
constexpr int kFftMaxResponses = 16;
constexpr int kFftMaxTerms = 32;

struct FftGeometry {
    int fftWidth = 0, fftHeight = 0;
    int anchorX = 0, anchorY = 0;
    float offset = 0;

    CUDAFILTERS_HD int spectrumWidth() const { return fftWidth / 2 + 1; }
    CUDAFILTERS_HD std::size_t realPlane() const { return std::size_t(fftWidth) * fftHeight; }
    CUDAFILTERS_HD std::size_t spectrumPlane() const { return std::size_t(spectrumWidth()) * fftHeight; }
};

// Which planes are transformed, which products make each response, which responses make each output channel.
struct FftTables {
    int inputs = 0;                        // forward batch
    int inputChannel[kFftMaxInputs] = {};  // source channel of each input plane
    int responses = 0;                     // inverse batch
    int termFirst[kFftMaxResponses] = {};
    int termCount[kFftMaxResponses] = {};
    int termInput[kFftMaxTerms] = {};
    int termKernel[kFftMaxTerms] = {};
    float correction[kFftMaxResponses] = {};  // offset × the sum of the taps of the response's kernels
    int outputFirst[4] = {};
    int outputCount[4] = {};                  // 0: the output channel is copied from the source
};

// The smallest length ≥ n whose only prime factors are 2, 3, 5 and 7 (cuFFT's fast sizes); even when asked.
int fftFastLength(int n, bool even);

FftGeometry fftGeometry(const ConvolvePlan& plan, int width, int height);

// The plan's tables; false (tables unspecified) when the plan needs more responses or terms than they hold.
bool fftTables(const ConvolvePlan& plan, float offset, FftTables& tables);

void launchFftPad(SampleType type, const ConvFrame& frame, const FftGeometry& geometry, const FftTables& tables,
                  float* planes, cudaStream_t stream);
void launchFftMultiply(const FftGeometry& geometry, const FftTables& tables, const float2* inputSpectra,
                       const float2* kernelSpectra, float2* products, cudaStream_t stream);
void launchFftFinish(SampleType type, const ConvFrame& frame, const FftGeometry& geometry, const FftTables& tables,
                     const float* responses, cudaStream_t stream);

}  // namespace cudafilters::cuda_detail
