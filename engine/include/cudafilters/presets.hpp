// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
#include <cudafilters/convolve.hpp>

#include <string>
#include <vector>

namespace cudafilters {

enum class Preset {
    Identity, Box, Gaussian, Sharpen,
    SobelX, SobelY, SobelMagnitude,
    ScharrX, ScharrY, ScharrMagnitude,
    PrewittX, PrewittY, PrewittMagnitude,
    Laplacian, Emboss,
};

struct PresetInfo {
    Preset preset;
    const char* name;  // kebab-case, as the element's enum nick
    const char* description;
};

const std::vector<PresetInfo>& presetTable();
Preset presetFromName(const std::string& name);  // throws InvalidArgument listing the names

// size: box any K ≥ 1; gaussian odd K ≥ 1; sobel 3, 5, 7; laplacian 1, 3, 5 (cv::Laplacian's ksize; 1 and 3 are
// both 3x3 kernels); the others 3 (0 = the preset's default: box 3, gaussian 5, laplacian 1, the others 3).
// sigma: gaussian only, 0 = from K as cv::getGaussianKernel.
ConvolveDesc presetDesc(Preset preset, int size = 0, double sigma = 0);

// As cv::getGaussianKernel(k, sigma, CV_32F) (including its fixed tables for k ≤ 9 and sigma ≤ 0).
std::vector<float> gaussianTaps(int k, double sigma);
// As cv::getDerivKernels' Sobel factors: smoothing (order 0) or derivative (order 1, 2) of size k.
std::vector<float> sobelTaps(int k, int order);

Kernel2D outerProduct(const std::vector<float>& column, const std::vector<float>& row);

}  // namespace cudafilters
