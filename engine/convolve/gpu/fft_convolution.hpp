// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// The CUDA backend's FFT path for one frame size: cuFFT plans, their shared work area, the planes and the kernels'
// spectra, all made by the constructor (on a stream of its own, waited for once); enqueue() then
// allocates nothing and runs on the caller's stream (pad, R2C, multiply, C2R, finish).
#include "cufft_library.hpp"
#include "fft_launch.hpp"

#include <cudafilters/cuda_raii.hpp>

namespace cudafilters::cuda_detail {

// Whether the plan fits the FFT path's tables (a bank of more than 16 responses, or 32 products, does not).
bool fftSupports(const ConvolvePlan& plan);

class FftConvolution {
public:
    // Throws CudaError (cuFFT missing or failing, out of memory) or InvalidArgument (a plan fftSupports refuses).
    FftConvolution(const ConvolvePlan& plan, int width, int height);

    int width() const { return width_; }
    int height() const { return height_; }
    const FftGeometry& geometry() const { return geometry_; }

    // frame: the plan's src/dst pair of width() × height() (makeFrame); bias, |x| and border value are its own.
    void enqueue(SampleType type, const ConvFrame& frame, cudaStream_t stream);

private:
    int width_, height_;
    FftGeometry geometry_;
    FftTables tables_;
    // Destroying it frees its memory without waiting for the device (stream-ordered, on memory_): the owner waits for
    // the frames it enqueued first (CudaConvolver's LastUse), so no transform is running when its plan goes.
    CufftPlan forward_;
    CufftPlan inverse_;
    Stream memory_;  // allocates and frees the buffers below; computes the kernels' spectra
    DeviceBuffer work_;
    DeviceBuffer planes_;         // max(inputs, responses, kernels) real planes: forward input, inverse output
    DeviceBuffer inputSpectra_;   // inputs spectra
    DeviceBuffer kernelSpectra_;  // one spectrum per kernel of the plan
    DeviceBuffer products_;       // responses spectra
};

}  // namespace cudafilters::cuda_detail
