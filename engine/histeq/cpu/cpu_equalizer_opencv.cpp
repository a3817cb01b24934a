// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU backend on OpenCV: per-frame equalization by the very functions the engine is specified against.
#include "cpu_equalizer.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

namespace cudafilters::detail {
namespace {

cv::Mat wrap(const ImageView& v) {
    const int depth = v.type == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(v.height, v.width, CV_MAKETYPE(depth, v.channels), v.data, v.pitch);
}

void equalizePlane(const EqualizePlan& plan, const cv::Mat& src, cv::Mat& dst) {
    if (plan.mode == EqualizeMode::Global) {
        cv::equalizeHist(src, dst);
        return;
    }
    cv::Ptr<cv::CLAHE> clahe = cv::createCLAHE(plan.clipLimit, cv::Size(plan.tilesX, plan.tilesY));
    clahe->apply(src, dst);
}

}  // namespace

bool equalizeWithLibrary(const EqualizePlan& plan, const ImageView& src, const ImageView& dst) {
    if (plan.mode == EqualizeMode::Global && plan.type != SampleType::U8) return false;  // equalizeHist is 8-bit only
    if (plan.bins() != 1 << (8 * int(sampleSize(plan.type)))) return false;  // OpenCV bins the whole container
    cv::Mat in = wrap(src), out = wrap(dst);
    if (plan.channels == 1) {
        equalizePlane(plan, in, out);
        return true;
    }
    if (plan.channels == 2) {  // Y/chroma pairs: Y extracted, equalized and put back, chroma kept
        cv::Mat y, equalized;
        cv::extractChannel(in, y, plan.lumaChannel);
        equalizePlane(plan, y, equalized);
        if (src.data != dst.data) in.copyTo(out);
        cv::insertChannel(equalized, out, plan.lumaChannel);
        return true;
    }
    const int depth = plan.type == SampleType::U8 ? CV_8U : CV_16U;
    cv::Mat rgb(in.rows, in.cols, CV_MAKETYPE(depth, 3));
    const int toRgb[] = {plan.order.red, 0, plan.order.green, 1, plan.order.blue, 2};
    cv::mixChannels(&in, 1, &rgb, 1, toRgb, 3);
    if (plan.channels == 4 && src.data != dst.data) {
        int alpha = 0;
        while (alpha == plan.order.red || alpha == plan.order.green || alpha == plan.order.blue) ++alpha;
        const int copyAlpha[] = {alpha, alpha};
        cv::mixChannels(&in, 1, &out, 1, copyAlpha, 1);
    }
    std::vector<cv::Mat> parts;
    if (plan.colorMode == ColorMode::Luma) {
        cv::Mat ycc;
        cv::cvtColor(rgb, ycc, cv::COLOR_RGB2YCrCb);
        cv::split(ycc, parts);
        cv::Mat y;
        equalizePlane(plan, parts[0], y);
        parts[0] = y;
        cv::merge(parts, ycc);
        cv::cvtColor(ycc, rgb, cv::COLOR_YCrCb2RGB);
    } else {
        cv::split(rgb, parts);
        for (cv::Mat& p : parts) {
            cv::Mat e;
            equalizePlane(plan, p, e);
            p = e;
        }
        cv::merge(parts, rgb);
    }
    const int fromRgb[] = {0, plan.order.red, 1, plan.order.green, 2, plan.order.blue};
    cv::mixChannels(&rgb, 1, &out, 1, fromRgb, 3);
    return true;
}

}  // namespace cudafilters::detail
