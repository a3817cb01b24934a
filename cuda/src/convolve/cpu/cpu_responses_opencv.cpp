// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_responses.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace cudafilters::cpu {
namespace {

// The image's region inside the padded plane; OpenCV reads the padding around a non-isolated ROI as its border,
// so the backend's own border rules (all five, constant value included) hold.
cv::Mat imageRegion(const PaddedPlane& plane) {
    cv::Mat whole(plane.height, plane.width, CV_32F, const_cast<float*>(plane.data.data()));
    return whole(cv::Rect(plane.padLeft, plane.padTop, plane.imageWidth, plane.imageHeight));
}

}  // namespace

void correlate(const PaddedPlane& plane, const Kernel2D& kernel, std::vector<float>& out) {
    out.resize(std::size_t(plane.imageWidth) * plane.imageHeight);
    cv::Mat dst(plane.imageHeight, plane.imageWidth, CV_32F, out.data());
    const cv::Mat taps(kernel.height, kernel.width, CV_32F, const_cast<float*>(kernel.taps.data()));
    cv::filter2D(imageRegion(plane), dst, CV_32F, taps, cv::Point(kernel.width / 2, kernel.height / 2), 0,
                 cv::BORDER_REPLICATE);
}

void correlateSeparable(const PaddedPlane& plane, const std::vector<float>& row, const std::vector<float>& column,
                        std::vector<float>& out) {
    out.resize(std::size_t(plane.imageWidth) * plane.imageHeight);
    cv::Mat dst(plane.imageHeight, plane.imageWidth, CV_32F, out.data());
    const cv::Mat rowTaps(1, int(row.size()), CV_32F, const_cast<float*>(row.data()));
    const cv::Mat columnTaps(int(column.size()), 1, CV_32F, const_cast<float*>(column.data()));
    cv::sepFilter2D(imageRegion(plane), dst, CV_32F, rowTaps, columnTaps,
                    cv::Point(int(row.size()) / 2, int(column.size()) / 2), 0, cv::BORDER_REPLICATE);
}

}  // namespace cudafilters::cpu
