// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Correlation of a border-padded float plane with one kernel, for the CPU backend. Two implementations:
// OpenCV's filter2D / sepFilter2D, or the project's own loops when OpenCV is not built in.
#include <cudafilters/convolve.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace cudafilters::cpu {

// A single-channel float plane padded by the kernel's reach on every side: sample (x, y) of the image is at
// (x + padLeft, y + padTop).
struct PaddedPlane {
    std::vector<float> data;
    int width = 0;   // padded
    int height = 0;
    int padLeft = 0, padTop = 0;
    int imageWidth = 0, imageHeight = 0;
    float at(int x, int y) const { return data[std::size_t(y) * width + x]; }
};

// out[y * imageWidth + x] = sum k(i, j) * padded(x + i, y + j) over the kernel, anchored as the plan says.
void correlate(const PaddedPlane& plane, const Kernel2D& kernel, std::vector<float>& out);
void correlateSeparable(const PaddedPlane& plane, const std::vector<float>& row, const std::vector<float>& column,
                        std::vector<float>& out);

// Calls body(band, y0, y1) for bandCount() bands of rows covering [0, rows), side by side on the CPU's cores; bands
// of at least a few kernel heights, so that the rows padded above and below each band stay a small share of its
// work. `band` (0 … bandCount() - 1) picks the caller's scratch for it. An exception from any band is rethrown once
// all have ended.
int bandCount(int rows, int kernelHeight);
void forEachBand(int rows, int kernelHeight, const std::function<void(int, int, int)>& body);

// True when the two views share any byte.
inline bool overlapping(const ImageView& a, const ImageView& b) {
    const auto* a0 = static_cast<const std::uint8_t*>(a.data);
    const auto* b0 = static_cast<const std::uint8_t*>(b.data);
    const std::uint8_t* a1 = a0 + a.pitch * std::size_t(a.height - 1) + a.rowBytes();
    const std::uint8_t* b1 = b0 + b.pitch * std::size_t(b.height - 1) + b.rowBytes();
    return a0 < b1 && b0 < a1;
}

// A kernel's spectrum for padded planes of one size, kept by the caller between frames.
struct KernelSpectrum {
    int planeWidth = 0, planeHeight = 0;  // the padded plane it was made for (0: none yet)
    std::vector<float> data;              // implementation-defined layout
};

// Makes `spectrum` for padded planes of planeWidth × planeHeight unless it already is.
void prepareSpectrum(const Kernel2D& kernel, int planeWidth, int planeHeight, KernelSpectrum& spectrum);

// The same correlation as correlate(), through the discrete Fourier transform with OpenCV (the project's own code has
// no DFT and sums directly). `spectrum` is prepared for the plane's size on first use.
void correlateDft(const PaddedPlane& plane, const Kernel2D& kernel, KernelSpectrum& spectrum, std::vector<float>& out);

}  // namespace cudafilters::cpu
