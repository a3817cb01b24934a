// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Where the FFT overtakes direct summation: the table algorithm=auto reads, per backend, sample type and frame size.
//
// Direct summation costs width × height × kw × kh multiply-adds per channel; the FFT costs about the same at any
// kernel size (transforms of the frame padded by the kernel's reach). So per (backend, sample type, frame size) one
// kernel size marks the crossover: kernels of at least that area (kw × kh ≥ K²) take the FFT.
//
// The CUDA rows are to be replaced by figures measured on the GPU: `bench-convolve --fft` times both paths
// per size, type and K and prints the rows to paste here. Until then they hold a conservative model (see
// convolve_crossover.cpp): the FFT only where direct summation falls back to the generic kernel and its cost is
// several times the FFT's estimate. The CPU rows were measured (convolve_crossover.cpp says where and how).
#include <cudafilters/backend.hpp>
#include <cudafilters/convolve.hpp>

#include <vector>

namespace cudafilters {

struct FftCrossover {
    Backend backend;
    SampleType type;
    long long maxPixels;  // the row holds for frames of at most this many pixels (rows in increasing order)
    int kernelSize;       // FFT for kernels with kw × kh ≥ kernelSize²; 0 = never
};

const std::vector<FftCrossover>& fftCrossoverTable();

// The crossover kernel size for a frame of width × height on a backend (0: never the FFT).
int fftCrossoverSize(Backend backend, SampleType type, int width, int height);

// Whether a backend computes the plan's frames of width × height through the FFT: algorithm=fft always,
// algorithm=direct never, algorithm=auto by the table (and never for the identity or a separable kernel, whose
// two 1-D passes cost 2K per sample).
bool fftChosen(Backend backend, const ConvolvePlan& plan, int width, int height);

}  // namespace cudafilters
