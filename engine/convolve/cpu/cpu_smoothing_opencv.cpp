// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_smoothing.hpp"

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudafilters::cpu {
namespace {

cv::Mat matOf(const ImageView& image) {
    const int depth = image.type == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(image.height, image.width, CV_MAKETYPE(depth, image.channels), image.data, image.pitch);
}

cv::Mat matIn(std::vector<std::uint8_t>& buffer, int rows, int cols, int type) {
    buffer.resize(std::size_t(rows) * cols * CV_ELEM_SIZE(type));
    return cv::Mat(rows, cols, type, buffer.data());
}

// The borders GaussianBlur and blur take themselves; wrap and a non-zero constant are padded first.
bool ownBorder(const ConvolvePlan& plan, int& border) {
    switch (plan.border) {
    case Border::Replicate: border = cv::BORDER_REPLICATE; return true;
    case Border::Reflect: border = cv::BORDER_REFLECT; return true;
    case Border::Reflect101: border = cv::BORDER_REFLECT_101; return true;
    case Border::Constant: border = cv::BORDER_CONSTANT; return plan.borderValue == 0;
    case Border::Wrap: border = cv::BORDER_WRAP; return false;
    }
    return false;
}

void apply(const Smoothing& s, const cv::Mat& in, cv::Mat& out, int border) {
    if (s.function == Smoothing::Function::GaussianBlur)
        cv::GaussianBlur(in, out, cv::Size(s.size, s.size), s.sigma, s.sigma, border);
    else
        cv::blur(in, out, cv::Size(s.size, s.size), cv::Point(-1, -1), border);
}

bool overlaps(const ImageView& a, const ImageView& b) {
    const auto* a0 = static_cast<const std::uint8_t*>(a.data);
    const auto* b0 = static_cast<const std::uint8_t*>(b.data);
    const std::uint8_t* a1 = a0 + a.pitch * (a.height - 1) + a.rowBytes();
    const std::uint8_t* b1 = b0 + b.pitch * (b.height - 1) + b.rowBytes();
    return a0 < b1 && b0 < a1;
}

// dst channel c = filtered c where the plan filters it, src c where it copies it; the others stay as they are.
// In place, the channels not filtered are already where they belong.
void mixChannels(const ConvolvePlan& plan, const cv::Mat& src, const cv::Mat& filtered, cv::Mat& dst, bool inPlace) {
    std::vector<int> fromFiltered, fromSrc;
    for (int c = 0; c < plan.inputChannels; ++c) {
        if (plan.channelMask >> c & 1u) fromFiltered.insert(fromFiltered.end(), {c, c});
        else if (!inPlace && (plan.copyMask >> c & 1u)) fromSrc.insert(fromSrc.end(), {c, c});
    }
    if (!fromSrc.empty()) cv::mixChannels(&src, 1, &dst, 1, fromSrc.data(), fromSrc.size() / 2);
    if (!fromFiltered.empty()) cv::mixChannels(&filtered, 1, &dst, 1, fromFiltered.data(), fromFiltered.size() / 2);
}

}  // namespace

bool smooth(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch) {
    const Smoothing& s = plan.smoothing;
    const cv::Mat in = matOf(src);
    cv::Mat out = matOf(dst);
    const unsigned all = (1u << plan.inputChannels) - 1;
    const bool inPlace = overlaps(src, dst);
    const bool direct = (plan.channelMask & all) == all && !inPlace;
    cv::Mat filtered = direct ? out : matIn(scratch.filtered, in.rows, in.cols, in.type());

    int border = cv::BORDER_DEFAULT;
    if (ownBorder(plan, border)) {
        apply(s, in, filtered, border);
    } else {
        // The window reaches K/2 before a sample and K - 1 - K/2 after it. The frame padded by that much is filtered
        // whole and its inner region kept: each kept sample's window lies inside the padding, whatever the function
        // does at the padded frame's own edges. (Filtering only the inner region would not do: the 8-bit GaussianBlur
        // treats a region as isolated.)
        const int before = s.size / 2, after = s.size - 1 - before;
        cv::Mat padded = matIn(scratch.padded, in.rows + s.size - 1, in.cols + s.size - 1, in.type());
        cv::copyMakeBorder(in, padded, before, after, before, after, border, cv::Scalar::all(plan.borderValue));
        cv::Mat paddedOut = matIn(scratch.paddedOut, padded.rows, padded.cols, in.type());
        apply(s, padded, paddedOut, cv::BORDER_REPLICATE);
        paddedOut(cv::Rect(before, before, in.cols, in.rows)).copyTo(filtered);
    }
    if (!direct) mixChannels(plan, in, filtered, out, src.data == dst.data && src.pitch == dst.pitch);
    return true;
}

}  // namespace cudafilters::cpu
