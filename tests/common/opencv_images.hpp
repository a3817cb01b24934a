// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Test images as OpenCV sees them, for the suites that compare the engine with OpenCV's functions.
#include "test_images.hpp"

#include <cudafilters/border.hpp>

#include <cstdint>

#include <opencv2/core.hpp>

namespace cudafilters::test {

// A cv::Mat header over the image's samples (its pitch as the step).
inline cv::Mat matOf(HostImage& image) {
    const int depth = image.type() == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(image.height(), image.width(), CV_MAKETYPE(depth, image.channels()), image.bytes(), image.pitch());
}

inline int cvBorder(Border b) {
    switch (b) {
    case Border::Replicate: return cv::BORDER_REPLICATE;
    case Border::Reflect: return cv::BORDER_REFLECT;
    case Border::Reflect101: return cv::BORDER_REFLECT_101;
    case Border::Wrap: return cv::BORDER_WRAP;
    default: return cv::BORDER_CONSTANT;
    }
}

// Samples of `out` that differ from what is expected: `want` in the channels of `mask`, `original` in the others.
struct Mismatch {
    long count = 0;
    int x = -1, y = -1, c = -1;  // the first
};

inline Mismatch mismatch(const HostImage& out, const cv::Mat& want, const HostImage& original, unsigned mask) {
    Mismatch m;
    const int channels = out.channels();
    for (int y = 0; y < out.height(); ++y)
        for (int x = 0; x < out.width(); ++x)
            for (int c = 0; c < channels; ++c) {
                double w = original.sample(x, y, c);
                if (mask >> c & 1u)
                    w = want.depth() == CV_8U ? want.ptr<std::uint8_t>(y)[x * channels + c]
                                              : want.ptr<std::uint16_t>(y)[x * channels + c];
                if (out.sample(x, y, c) != w && m.count++ == 0) m.x = x, m.y = y, m.c = c;
            }
    return m;
}

}  // namespace cudafilters::test
