// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_integer_filter.hpp"
#include "cpu_opencv_mats.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudafilters::cpu {
namespace {

// cv::filter2D switches to a DFT (not exact) from 50 taps into float sums; below that it sums directly.
constexpr int kFilter2DDirectTaps = 50;
// Float sums of integers are exact below 2^24.
constexpr double kExactInFloat = 16777216.0;

// The taps times 2^shift, when they are all integers for some shift up to 16.
bool integerTaps(const std::vector<float>& taps, int& shift, std::vector<float>& scaled) {
    for (shift = 0; shift <= 16; ++shift) {
        const double scale = std::ldexp(1.0, shift);
        bool integral = true;
        for (float t : taps) integral = integral && double(t) * scale == std::floor(double(t) * scale);
        if (!integral) continue;
        scaled.clear();
        for (float t : taps) scaled.push_back(float(double(t) * scale));
        return true;
    }
    return false;
}

double absSum(const std::vector<float>& taps) {
    double sum = 0;
    for (float t : taps) sum += std::fabs(t);
    return sum;
}

// What the filter needs: integer kernels (separable as a row and a column, or whole), the shift that made them
// integers, and the type of the sums.
struct IntegerKernel {
    bool separable = false;
    std::vector<float> row, column, whole;
    int shift = 0;
    int sumType = CV_16S;
};

bool integerKernel(const ConvolvePlan& plan, IntegerKernel& k) {
    double bound = 0;  // the largest |sum| over 8-bit samples, and of the row pass's partial sums
    if (plan.separable) {
        int rowShift = 0, columnShift = 0;
        if (!integerTaps(plan.row, rowShift, k.row) || !integerTaps(plan.column, columnShift, k.column)) return false;
        k.separable = true;
        k.shift = rowShift + columnShift;
        bound = 255.0 * absSum(k.row) * absSum(k.column);
    } else {
        if (plan.kernelWidth * plan.kernelHeight >= kFilter2DDirectTaps) return false;
        if (!integerTaps(plan.kernels[0].taps, k.shift, k.whole)) return false;
        bound = 255.0 * absSum(k.whole);
    }
    if (bound >= kExactInFloat) return false;
    k.sumType = bound <= 32767 ? CV_16S : CV_32F;
    return true;
}

}  // namespace

bool filterIntegerTaps(const ConvolvePlan& plan, const ImageView& src, const ImageView& dst,
                       IntegerFilterScratch& scratch) {
    if (plan.type != SampleType::U8 || plan.mode != ConvolveMode::Filter || plan.kernels.size() != 1 ||
        plan.combine != Combine::Sum)
        return false;
    int border = cv::BORDER_DEFAULT;
    if (!openCvBorder(plan, border)) return false;
    IntegerKernel k;
    if (!integerKernel(plan, k)) return false;

    const cv::Mat in = matOf(src);
    const int sumType = CV_MAKETYPE(CV_MAT_DEPTH(k.sumType), plan.inputChannels);
    const bool direct = writesDstDirectly(plan, src, dst);
    cv::Mat stored = direct ? matOf(dst) : matIn(scratch.filtered, in.rows, in.cols, in.type());
    const cv::Point anchor(plan.kernelWidth / 2, plan.kernelHeight / 2);
    const double scale = std::ldexp(1.0, -k.shift), bias = plan.bias;
    // Bands of rows of the frame as regions of it: OpenCV reads the rows around a region from the frame and applies
    // the border only at the frame's own edges, so every band gives what the whole frame would. Each band's sums
    // stay in a buffer of its own, in cache, and are finished as value = sum / 2^shift + bias, made absolute if
    // asked, rounded half to even and saturated: finishSample's arithmetic, as convertScaleAbs and convertTo compute
    // it (the scaling by 2^-shift is exact).
    cv::Mat rowTaps, columnTaps, wholeTaps;
    if (k.separable) {
        rowTaps = cv::Mat(1, int(k.row.size()), CV_32F, k.row.data());
        columnTaps = cv::Mat(int(k.column.size()), 1, CV_32F, k.column.data());
    } else {
        wholeTaps = cv::Mat(plan.kernelHeight, plan.kernelWidth, CV_32F, k.whole.data());
    }
    const int chunk = std::max(32, 2 * plan.kernelHeight);  // rows whose sums stay in cache
    scratch.sums.resize(std::max<std::size_t>(scratch.sums.size(), bandCount(in.rows, plan.kernelHeight)));
    forEachBand(in.rows, plan.kernelHeight, [&](int band, int y0, int y1) {
        for (int c0 = y0; c0 < y1; c0 += chunk) {
            const int c1 = std::min(y1, c0 + chunk);
            const cv::Mat part = in.rowRange(c0, c1);
            cv::Mat sums = matIn(scratch.sums[std::size_t(band)], c1 - c0, in.cols, sumType);
            if (k.separable)
                cv::sepFilter2D(part, sums, k.sumType, rowTaps, columnTaps, anchor, 0, border);
            else
                cv::filter2D(part, sums, k.sumType, wholeTaps, anchor, 0, border);
            cv::Mat out = stored.rowRange(c0, c1);
            if (plan.absolute) cv::convertScaleAbs(sums, out, scale, bias);
            else sums.convertTo(out, CV_8U, scale, bias);
        }
    });
    if (direct) restoreCopied(plan, src, dst);
    else mixFiltered(plan, src, stored, dst);
    return true;
}

}  // namespace cudafilters::cpu
