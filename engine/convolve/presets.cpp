// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/presets.hpp>

#include "smoothing_arithmetic.hpp"

#include <cmath>
#include <string>

namespace cudafilters {
namespace {

Kernel2D kernel3x3(std::initializer_list<float> taps) { return Kernel2D{3, 3, std::vector<float>(taps)}; }

void requireSize(const char* preset, int size, std::initializer_list<int> allowed) {
    std::string list;
    for (int a : allowed) {
        if (a == size) return;
        list += (list.empty() ? "" : ", ") + std::to_string(a);
    }
    throw InvalidArgument(std::string("preset ") + preset + " has no size " + std::to_string(size) +
                          "; sizes: " + list);
}

ConvolveDesc gradientDesc(const std::vector<float>& smooth, const std::vector<float>& deriv, Preset preset) {
    const Kernel2D x = outerProduct(smooth, deriv);
    const Kernel2D y = outerProduct(deriv, smooth);
    ConvolveDesc desc;
    desc.divisor = 1;
    switch (preset) {
    case Preset::SobelX: case Preset::ScharrX: case Preset::PrewittX:
        desc.kernels = {x};
        desc.absolute = true;
        break;
    case Preset::SobelY: case Preset::ScharrY: case Preset::PrewittY:
        desc.kernels = {y};
        desc.absolute = true;
        break;
    default:
        desc.kernels = {x, y};
        desc.combine = Combine::Magnitude;
        break;
    }
    return desc;
}

}  // namespace

const std::vector<PresetInfo>& presetTable() {
    static const std::vector<PresetInfo> table = {
        {Preset::Identity, "identity", "Identity (passthrough)"},
        {Preset::Box, "box", "cv::blur: normalised box filter, size x size"},
        {Preset::Gaussian, "gaussian", "cv::GaussianBlur: size x size, sigma"},
        {Preset::Sharpen, "sharpen", "cv::filter2D of 0 -1 0; -1 5 -1; 0 -1 0"},
        {Preset::SobelX, "sobel-x", "cv::Sobel dx=1 (size 3, 5, 7), then cv::convertScaleAbs"},
        {Preset::SobelY, "sobel-y", "cv::Sobel dy=1 (size 3, 5, 7), then cv::convertScaleAbs"},
        {Preset::SobelMagnitude, "sobel", "Sobel gradient magnitude sqrt(dx^2 + dy^2), rounded half to even (3, 5, 7)"},
        {Preset::ScharrX, "scharr-x", "cv::Scharr dx=1, then cv::convertScaleAbs"},
        {Preset::ScharrY, "scharr-y", "cv::Scharr dy=1, then cv::convertScaleAbs"},
        {Preset::ScharrMagnitude, "scharr", "Scharr gradient magnitude sqrt(dx^2 + dy^2), rounded half to even"},
        {Preset::PrewittX, "prewitt-x", "|cv::filter2D of -1 0 1 on 3 rows| (Prewitt d/dx)"},
        {Preset::PrewittY, "prewitt-y", "|cv::filter2D of -1 0 1 on 3 columns| (Prewitt d/dy)"},
        {Preset::PrewittMagnitude, "prewitt", "Prewitt gradient magnitude sqrt(dx^2 + dy^2), rounded half to even"},
        {Preset::Laplacian, "laplacian", "cv::Laplacian ksize=size (1, 3, 5), then cv::convertScaleAbs"},
        {Preset::Emboss, "emboss", "cv::filter2D of -2 -1 0; -1 1 1; 0 1 2"},
    };
    return table;
}

Preset presetFromName(const std::string& name) {
    std::string names;
    for (const PresetInfo& info : presetTable()) {
        if (name == info.name) return info.preset;
        names += (names.empty() ? "" : ", ") + std::string(info.name);
    }
    throw InvalidArgument("unknown preset '" + name + "'; presets: " + names);
}

std::vector<float> gaussianTaps(int k, double sigma) {
    if (k < 1 || k % 2 == 0 || k > kMaxKernelSize)
        throw InvalidArgument("gaussian size must be odd and between 1 and " + std::to_string(kMaxKernelSize) +
                              ", not " + std::to_string(k));
    if (!std::isfinite(sigma) || sigma < 0)
        throw InvalidArgument("gaussian sigma must be 0 (from the size) or a positive number");
    // A sigma whose square underflows (1e-300) is the limit of ever narrower Gaussians: the centre tap alone.
    if (sigma > 0 && !std::isfinite(-0.5 / (sigma * sigma))) {
        std::vector<float> centre(std::size_t(k), 0.f);
        centre[std::size_t(k / 2)] = 1.f;
        return centre;
    }
    const std::vector<double> kernel = smoothing::gaussianKernel(k, sigma);
    return std::vector<float>(kernel.begin(), kernel.end());
}

std::vector<float> sobelTaps(int k, int order) {
    if (k < 3 || k % 2 == 0 || order < 0 || order >= k)
        throw InvalidArgument("sobel size must be odd and at least 3, not " + std::to_string(k));
    // Binomial smoothing raised (k - order - 1) times, then differenced `order` times (cv::getSobelKernels).
    std::vector<int> kernel(k + 1, 0);
    kernel[0] = 1;
    for (int i = 0; i < k - order - 1; ++i) {
        int previous = kernel[0];
        for (int j = 1; j <= k; ++j) {
            const int next = kernel[j] + kernel[j - 1];
            kernel[j - 1] = previous;
            previous = next;
        }
    }
    for (int i = 0; i < order; ++i) {
        int previous = -kernel[0];
        for (int j = 1; j <= k; ++j) {
            const int next = kernel[j - 1] - kernel[j];
            kernel[j - 1] = previous;
            previous = next;
        }
    }
    return std::vector<float>(kernel.begin(), kernel.begin() + k);
}

Kernel2D outerProduct(const std::vector<float>& column, const std::vector<float>& row) {
    Kernel2D k{int(row.size()), int(column.size()), {}};
    k.taps.reserve(row.size() * column.size());
    for (float c : column)
        for (float r : row) k.taps.push_back(c * r);
    return k;
}

ConvolveDesc presetDesc(Preset preset, int size, double sigma) {
    ConvolveDesc desc;
    switch (preset) {
    case Preset::Identity:
        desc.kernels = {Kernel2D{1, 1, {1.f}}};
        return desc;
    case Preset::Box: {
        const int k = size ? size : 3;
        if (k < 1 || k > kMaxKernelSize)
            throw InvalidArgument("box size must be between 1 and " + std::to_string(kMaxKernelSize));
        desc.kernels = {Kernel2D{k, k, std::vector<float>(std::size_t(k) * k, 1.f)}};
        desc.smoothing = {Smoothing::Function::Blur, k, 0};
        return desc;
    }
    case Preset::Gaussian: {
        const int k = size ? size : 5;
        const std::vector<float> g = gaussianTaps(k, sigma);
        desc.row = g;
        desc.column = g;
        desc.divisor = 1;
        // A sigma whose square underflows gives OpenCV NaN taps; the centre tap alone (above) is kept instead.
        if (sigma == 0 || std::isfinite(-0.5 / (sigma * sigma)))
            desc.smoothing = {Smoothing::Function::GaussianBlur, k, sigma};
        return desc;
    }
    case Preset::Sharpen:
        requireSize("sharpen", size ? size : 3, {3});
        desc.kernels = {kernel3x3({0, -1, 0, -1, 5, -1, 0, -1, 0})};
        return desc;
    case Preset::Emboss:
        requireSize("emboss", size ? size : 3, {3});
        desc.kernels = {kernel3x3({-2, -1, 0, -1, 1, 1, 0, 1, 2})};
        return desc;
    case Preset::SobelX: case Preset::SobelY: case Preset::SobelMagnitude: {
        const int k = size ? size : 3;
        requireSize("sobel", k, {3, 5, 7});
        return gradientDesc(sobelTaps(k, 0), sobelTaps(k, 1), preset);
    }
    case Preset::ScharrX: case Preset::ScharrY: case Preset::ScharrMagnitude:
        requireSize("scharr", size ? size : 3, {3});
        return gradientDesc({3, 10, 3}, {-1, 0, 1}, preset);
    case Preset::PrewittX: case Preset::PrewittY: case Preset::PrewittMagnitude:
        requireSize("prewitt", size ? size : 3, {3});
        return gradientDesc({1, 1, 1}, {-1, 0, 1}, preset);
    case Preset::Laplacian: {
        // cv::Laplacian's ksize: 1 and 3 are its fixed 3x3 kernels, 5 the sum of the second Sobel derivatives.
        const int k = size ? size : 1;
        requireSize("laplacian", k, {1, 3, 5});
        desc.divisor = 1;
        desc.absolute = true;
        if (k == 1) {
            desc.kernels = {kernel3x3({0, 1, 0, 1, -4, 1, 0, 1, 0})};
        } else if (k == 3) {
            desc.kernels = {kernel3x3({2, 0, 2, 0, -8, 0, 2, 0, 2})};
        } else {
            const Kernel2D xx = outerProduct(sobelTaps(5, 0), sobelTaps(5, 2));
            const Kernel2D yy = outerProduct(sobelTaps(5, 2), sobelTaps(5, 0));
            Kernel2D sum = xx;
            for (std::size_t i = 0; i < sum.taps.size(); ++i) sum.taps[i] += yy.taps[i];
            desc.kernels = {sum};
        }
        return desc;
    }
    }
    throw InvalidArgument("unknown preset");
}

}  // namespace cudafilters
