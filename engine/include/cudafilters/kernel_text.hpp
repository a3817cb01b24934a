// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <cudafilters/convolve.hpp>

#include <string>
#include <vector>

namespace cudafilters {

// Parses the element's text form: rows separated by ';', values by spaces or commas, kernels of a bank by '|'.
//   "-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1"
// Values are decimal numbers (no hexadecimal, inf or nan) that a 32-bit float holds (kTapRange); an empty value
// (",,") is an error. Throws InvalidArgument naming the kernel, row and value at fault and what is accepted.
std::vector<Kernel2D> parseKernelText(const std::string& text);

// The numbers a tap can be, as errors and the element's documentation say it.
extern const char* const kTapRange;

std::string formatKernelText(const std::vector<Kernel2D>& kernels);

}  // namespace cudafilters
