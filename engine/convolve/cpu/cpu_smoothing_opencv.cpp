// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_smoothing.hpp"
#include "cpu_opencv_mats.hpp"

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudafilters::cpu {
namespace {

void apply(const Smoothing& s, const cv::Mat& in, cv::Mat& out, int border) {
    if (s.function == Smoothing::Function::GaussianBlur)
        cv::GaussianBlur(in, out, cv::Size(s.size, s.size), s.sigma, s.sigma, border);
    else
        cv::blur(in, out, cv::Size(s.size, s.size), cv::Point(-1, -1), border);
}

}  // namespace

bool smooth(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst, SmoothingScratch& scratch) {
    const Smoothing& s = plan.smoothing;
    const cv::Mat in = matOf(src);
    cv::Mat out = matOf(dst);
    const bool direct = writesDstDirectly(plan, src, dst);
    cv::Mat filtered = direct ? out : matIn(scratch.filtered, in.rows, in.cols, in.type());

    int border = cv::BORDER_DEFAULT;
    if (openCvBorder(plan, border)) {
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
    if (direct) restoreCopied(plan, src, dst);
    else mixFiltered(plan, src, filtered, dst);
    return true;
}

}  // namespace cudafilters::cpu
