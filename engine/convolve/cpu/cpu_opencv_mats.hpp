// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Frames as OpenCV sees them, for the CPU backend's OpenCV paths: views as cv::Mat headers, scratch matrices kept
// between frames, OpenCV's name of a border rule, and the channels a plan filters mixed back into the output.
#include "cpu_responses.hpp"

#include <cudafilters/convolve.hpp>

#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

namespace cudafilters::cpu {

inline cv::Mat matOf(const ImageView& image) {
    const int depth = image.type == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(image.height, image.width, CV_MAKETYPE(depth, image.channels), image.data, image.pitch);
}

// A matrix over `buffer`, grown when needed and reused by the next frame.
inline cv::Mat matIn(std::vector<std::uint8_t>& buffer, int rows, int cols, int type) {
    buffer.resize(std::size_t(rows) * cols * CV_ELEM_SIZE(type));
    return cv::Mat(rows, cols, type, buffer.data());
}

// OpenCV's border for the plan's, and whether OpenCV's filters take it as it is: they have no wrap, and their
// constant border is 0.
inline bool openCvBorder(const ConvolvePlan& plan, int& border) {
    switch (plan.border) {
    case Border::Replicate: border = cv::BORDER_REPLICATE; return true;
    case Border::Reflect: border = cv::BORDER_REFLECT; return true;
    case Border::Reflect101: border = cv::BORDER_REFLECT_101; return true;
    case Border::Constant: border = cv::BORDER_CONSTANT; return plan.borderValue == 0;
    case Border::Wrap: border = cv::BORDER_WRAP; return false;
    }
    return false;
}

// Whether the filter can write dst itself: dst does not overlap src, and each channel is filtered or copied from src
// (a channel filtered and then copied over costs less than a scratch frame). Otherwise it writes a scratch frame
// and mixFiltered() puts it in place.
inline bool writesDstDirectly(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst) {
    const unsigned all = (1u << plan.inputChannels) - 1;
    return ((plan.channelMask | plan.copyMask) & all) == all && !overlapping(src, dst);
}

// After a filter wrote every channel of dst directly: the channels the plan copies, copied back from src.
inline void restoreCopied(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst) {
    std::vector<int> pairs;
    for (int c = 0; c < plan.inputChannels; ++c)
        if (!(plan.channelMask >> c & 1u)) pairs.insert(pairs.end(), {c, c});
    if (pairs.empty()) return;
    const cv::Mat in = matOf(src);
    cv::Mat out = matOf(dst);
    cv::mixChannels(&in, 1, &out, 1, pairs.data(), pairs.size() / 2);
}

// dst channel c = filtered c where the plan filters it, src c where it copies it; the others stay as they are. In
// place, the channels not filtered are already where they belong.
inline void mixFiltered(const ConvolvePlan& plan, const ImageView& src, const cv::Mat& filtered, const ImageView& dst) {
    const bool inPlace = src.data == dst.data && src.pitch == dst.pitch;
    const cv::Mat in = matOf(src);
    cv::Mat out = matOf(dst);
    std::vector<int> fromFiltered, fromSrc;
    for (int c = 0; c < plan.inputChannels; ++c) {
        if (plan.channelMask >> c & 1u) fromFiltered.insert(fromFiltered.end(), {c, c});
        else if (!inPlace && (plan.copyMask >> c & 1u)) fromSrc.insert(fromSrc.end(), {c, c});
    }
    if (!fromSrc.empty()) cv::mixChannels(&in, 1, &out, 1, fromSrc.data(), fromSrc.size() / 2);
    if (!fromFiltered.empty()) cv::mixChannels(&filtered, 1, &out, 1, fromFiltered.data(), fromFiltered.size() / 2);
}

}  // namespace cudafilters::cpu
