// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Where the FFT overtakes direct summation: the table algorithm=auto reads, per backend, sample type and frame size.
//
// Direct summation costs width × height × kw × kh multiply-adds per channel; the FFT costs about the same at any
// kernel size (transforms of the frame padded by the kernel's reach). So per (backend, sample type, frame size) a
// kernel size marks the crossover: kernels of at least that area (kw × kh ≥ K²) take the FFT. The CUDA backend's
// direct summation has two costs, not one: compiled kernels for square K ∈ {3, 5, 7, 9, 15, 31} and a generic kernel
// several times slower per tap for every other shape, so its rows hold a crossover for each. Shapes up to 31 × 31 run
// the compiled kernels of the next size up, zero-padded, and are compared at that size (CUDA backend, padded_plan.hpp;
// those padded to 31 × 31 keep the generic kernel's crossover, cuda_convolver.cpp).
//
// Both sets of rows were measured (crossover.cpp says how): the CUDA rows with `bench-convolve --fft`, which times
// both paths per size, type and K and prints the rows to paste there.
#include <cudafilters/backend.hpp>
#include <cudafilters/convolve.hpp>

#include <vector>

namespace cudafilters {

struct FftCrossover {
    Backend backend;
    SampleType type;
    long long maxPixels;  // the row holds for frames of at most this many pixels (rows in increasing order)
    int kernelSize;       // FFT for kernels with kw × kh ≥ kernelSize² whose direct path is a compiled kernel; 0 = never
    int genericKernelSize;  // the same where the direct path is the generic kernel (CPU: as kernelSize)
};

const std::vector<FftCrossover>& fftCrossoverTable();

// The crossover kernel size for a frame of width × height on a backend (0: never the FFT), against a compiled
// direct kernel or the generic one.
int fftCrossoverSize(Backend backend, SampleType type, int width, int height, bool genericDirect = false);

// Whether a backend computes the plan's frames of width × height through the FFT: algorithm=fft always,
// algorithm=direct never, algorithm=auto by the table (never for the identity, nor for a separable kernel that runs as
// two 1-D passes costing 2K per sample). genericDirect: the backend's direct path for the plan is its generic kernel
// (on CUDA, also for a separable kernel of a size without compiled passes).
bool fftChosen(Backend backend, const ConvolvePlan& plan, int width, int height, bool genericDirect = false);

}  // namespace cudafilters
