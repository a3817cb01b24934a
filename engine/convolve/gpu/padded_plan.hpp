// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Plans whose kernels have a size without compiled CUDA kernels (square K = 3, 5, 7, 9, 15, 31), run by the compiled
// kernels of the next size up: each kernel (and a separable plan's row and column) padded with zero taps, its anchor
// kept, so that a 13 × 13 Gaussian takes the K = 15 passes instead of summing 169 taps a sample in the generic kernel.
//
// The padded plan gives the same bytes as the unpadded one summed in the same order. Every kernel adds its taps'
// products into running float sums; a zero tap's product is ±0, which leaves a sum as it was but for the sign of a
// zero sum, and a zero of either sign rounds, biases and saturates alike. That holds while every value a zero tap meets
// is finite: source samples always are, the constant border value is unless it overflowed float, and a separable
// plan's intermediate rows (row sums, met by the column's zero taps) are unless the row's taps can overflow them. Plans
// where one of these may not hold are not padded.
#include <cudafilters/convolve.hpp>

#include <optional>

namespace cudafilters::cuda_detail {

// The smallest compiled size that holds a width × height kernel, or 0 where none does.
int compiledSizeFor(int width, int height);

// The plan padded to compiledSizeFor its kernels, where padding applies: a filter-mode plan of one or two kernels (up
// to four written to their own output channels, up to eight padded to 3 × 3 or 5 × 5: directBankSupported) whose
// size has no compiled kernel of its own; a separable plan whenever it fits (2 S multiply-adds a sample against
// width × height in the generic kernel), a full-rank one where the padded area is at most kMaxPaddedArea times the
// kernel's. Otherwise nothing (the plan runs as it is).
std::optional<ConvolvePlan> paddedToCompiledSize(const ConvolvePlan& plan);

// The generic kernel costs well over ten times as much a tap as a compiled direct kernel (compare the generic and
// compiled rows of `bench-convolve --fft` at 1080p u8, build-bench); 8 leaves a margin.
constexpr int kMaxPaddedArea = 8;

}  // namespace cudafilters::cuda_detail
