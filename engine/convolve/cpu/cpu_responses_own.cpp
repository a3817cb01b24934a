// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_responses.hpp"

#include <algorithm>

namespace cudafilters::cpu {

// Sums in double: thousands of taps over 16-bit samples (a 63 x 63 kernel, as the DFT path without OpenCV comes here)
// drift by more than one level when accumulated in float.
void correlate(const PaddedPlane& plane, const Kernel2D& kernel, std::vector<float>& out) {
    const int w = plane.imageWidth, h = plane.imageHeight;
    const int ox = plane.padLeft - kernel.width / 2, oy = plane.padTop - kernel.height / 2;
    out.assign(std::size_t(w) * h, 0.f);
    std::vector<double> row(static_cast<std::size_t>(w));
    for (int y = 0; y < h; ++y) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int ky = 0; ky < kernel.height; ++ky) {
            const float* src = &plane.data[std::size_t(y + ky + oy) * plane.width + ox];
            for (int kx = 0; kx < kernel.width; ++kx) {
                const double tap = kernel.at(kx, ky);
                if (tap == 0.0) continue;
                for (int x = 0; x < w; ++x) row[std::size_t(x)] += tap * double(src[x + kx]);
            }
        }
        float* dst = &out[std::size_t(y) * w];
        for (int x = 0; x < w; ++x) dst[x] = float(row[std::size_t(x)]);
    }
}

void correlateSeparable(const PaddedPlane& plane, const std::vector<float>& row, const std::vector<float>& column,
                        std::vector<float>& out) {
    const int w = plane.imageWidth, h = plane.imageHeight;
    const int kw = int(row.size()), kh = int(column.size());
    const int ox = plane.padLeft - kw / 2, oy = plane.padTop - kh / 2;
    // Horizontal pass over every padded row the vertical pass needs.
    std::vector<float> rows(std::size_t(w) * (h + kh - 1), 0.f);
    for (int y = 0; y < h + kh - 1; ++y) {
        const float* src = &plane.data[std::size_t(y + oy) * plane.width + ox];
        float* dst = &rows[std::size_t(y) * w];
        for (int kx = 0; kx < kw; ++kx)
            for (int x = 0; x < w; ++x) dst[x] += row[kx] * src[x + kx];
    }
    out.assign(std::size_t(w) * h, 0.f);
    for (int y = 0; y < h; ++y)
        for (int ky = 0; ky < kh; ++ky) {
            const float* src = &rows[std::size_t(y + ky) * w];
            float* dst = &out[std::size_t(y) * w];
            for (int x = 0; x < w; ++x) dst[x] += column[ky] * src[x];
        }
}

// Without OpenCV large kernels are summed directly: no spectrum is kept.
void prepareSpectrum(const Kernel2D&, int, int, KernelSpectrum&) {}

void correlateDft(const PaddedPlane& plane, const Kernel2D& kernel, KernelSpectrum&, std::vector<float>& out) {
    correlate(plane, kernel, out);
}

}  // namespace cudafilters::cpu
