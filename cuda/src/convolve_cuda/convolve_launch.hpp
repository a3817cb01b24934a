#pragma once
// Launchers of the CUDA convolution kernels, forward-declared for the host code (no CUDA syntax here).
#include <cudafilters/convolve.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace cudafilters::cuda_detail {

// What every kernel needs besides its taps. Passed by value inside each kernel's parameter struct.
struct ConvFrame {
    const unsigned char* src = nullptr;
    unsigned char* dst = nullptr;
    std::size_t srcPitch = 0;
    std::size_t dstPitch = 0;
    int width = 0;
    int height = 0;
    int inChannels = 1;
    int outChannels = 1;
    Border border = Border::Reflect101;
    Combine combine = Combine::Sum;
    float borderValue = 0;
    float bias = 0;
    int absolute = 0;
    unsigned mask = 1;  // channels filtered (Filter mode); the others are copied
};

// Square odd sizes with a compiled direct / separable kernel.
bool directSizeSupported(int k);

// Direct K×K correlation, bank of 1 or 2 kernels (taps: bank × k × k floats, row-major, already divided).
// Filter mode: one grid layer per channel; with Combine::Channels the bank results go to output channels 0..bank-1.
void launchDirect(SampleType type, int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);

// Fused separable K×K: row pass into shared memory, column pass from it. row and column: k floats each.
void launchSeparable(SampleType type, int k, const ConvFrame& frame, const float* row, const float* column,
                     cudaStream_t stream);

// Any size up to kMaxKernelSize, any bank, MultiChannel: reads global memory through borderIndex.
// deviceTaps: the plan's kernels concatenated (kernelCount × kw × kh floats) in device memory.
void launchGeneric(SampleType type, ConvolveMode mode, int kernelCount, int kw, int kh, const ConvFrame& frame,
                   const float* deviceTaps, cudaStream_t stream);

}  // namespace cudafilters::cuda_detail

namespace cudafilters::cuda_detail {

// Per sample type; false when no kernel is compiled for (k, bank).
bool launchDirectU8(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);
bool launchDirectU16(int k, int bank, const ConvFrame& frame, const float* taps, cudaStream_t stream);

// The path the CUDA backend takes for a plan: "copy", "direct", "separable" or "generic" (tests, benchmarks).
const char* pathName(const ConvolvePlan& plan);

}  // namespace cudafilters::cuda_detail
