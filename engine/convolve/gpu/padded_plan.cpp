// SPDX-License-Identifier: LGPL-2.1-or-later
#include "padded_plan.hpp"

#include "convolve_launch.hpp"

#include <cudafilters/convolve_arithmetic.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>

namespace cudafilters::cuda_detail {
namespace {

// Taps of a kernel of `size` placed in one of `padded`, the anchor (size / 2) on the padded anchor (padded / 2).
std::vector<float> padTaps(const std::vector<float>& taps, int size, int padded) {
    std::vector<float> out(std::size_t(padded), 0.f);
    std::copy(taps.begin(), taps.end(), out.begin() + (padded / 2 - size / 2));
    return out;
}

Kernel2D padKernel(const Kernel2D& k, int padded) {
    Kernel2D out{padded, padded, std::vector<float>(std::size_t(padded) * padded, 0.f)};
    const int left = padded / 2 - k.width / 2, top = padded / 2 - k.height / 2;
    for (int y = 0; y < k.height; ++y)
        std::copy_n(k.taps.begin() + std::ptrdiff_t(y) * k.width, k.width,
                    out.taps.begin() + std::ptrdiff_t(top + y) * padded + left);
    return out;
}

// Whether no row sum of a separable plan can overflow float: |row sum| ≤ Σ |row tap| · the largest sample, and
// float's rounding adds at most a factor (1 + 2⁻²⁴)^K, far inside the margin of 2.
bool rowSumsFinite(const ConvolvePlan& plan) {
    double largest = maxSampleValue(plan.type);
    if (plan.border == Border::Constant) largest = std::max(largest, double(std::fabs(plan.borderValue)));
    double reach = 0;
    for (float t : plan.row) reach += std::fabs(double(t));
    return reach * largest <= double(FLT_MAX) / 2;
}

}  // namespace

int compiledSizeFor(int width, int height) {
    for (int k = std::max(width, height); k <= 31; ++k)
        if (directSizeSupported(k)) return k;
    return 0;
}

std::optional<ConvolvePlan> paddedToCompiledSize(const ConvolvePlan& plan) {
    const int w = plan.kernelWidth, h = plan.kernelHeight;
    const int size = compiledSizeFor(w, h);
    const std::size_t bank = plan.kernels.size();
    if (size == 0 || (w == size && h == size) || plan.mode != ConvolveMode::Filter || bank == 0 ||
        !(bank <= 2 || (plan.combine == Combine::Channels && bank <= 4) || directBankSupported(size, int(bank))) ||
        !std::isfinite(plan.borderValue))
        return std::nullopt;
    // A separable plan whose row sums might overflow is padded as the full-rank plan it also is (its own size has no
    // compiled passes: it runs in the generic kernel, in the direct kernels' order).
    const bool separable = plan.separable && plan.kernels.size() == 1 && plan.combine != Combine::Channels &&
                           int(plan.row.size()) == w && int(plan.column.size()) == h && rowSumsFinite(plan);
    if (!separable && size * size > kMaxPaddedArea * w * h) return std::nullopt;
    ConvolvePlan padded = plan;
    padded.kernelWidth = padded.kernelHeight = size;
    for (Kernel2D& k : padded.kernels) k = padKernel(k, size);
    padded.separable = separable;
    padded.row = separable ? padTaps(plan.row, w, size) : std::vector<float>{};
    padded.column = separable ? padTaps(plan.column, h, size) : std::vector<float>{};
    return padded;
}

}  // namespace cudafilters::cuda_detail
