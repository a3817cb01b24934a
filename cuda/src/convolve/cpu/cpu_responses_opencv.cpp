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

namespace {

cv::Size dftSize(int planeWidth, int planeHeight) {
    return {cv::getOptimalDFTSize(planeWidth), cv::getOptimalDFTSize(planeHeight)};
}

}  // namespace

// The spectrum (CCS-packed, as cv::dft writes it) of the kernel placed at the origin of a zero plane of the DFT size.
void prepareSpectrum(const Kernel2D& kernel, int planeWidth, int planeHeight, KernelSpectrum& spectrum) {
    if (spectrum.planeWidth == planeWidth && spectrum.planeHeight == planeHeight) return;
    const cv::Size size = dftSize(planeWidth, planeHeight);
    cv::Mat padded = cv::Mat::zeros(size, CV_32F);
    cv::Mat(kernel.height, kernel.width, CV_32F, const_cast<float*>(kernel.taps.data()))
        .copyTo(padded(cv::Rect(0, 0, kernel.width, kernel.height)));
    spectrum.data.resize(std::size_t(size.area()));
    cv::Mat out(size, CV_32F, spectrum.data.data());
    cv::dft(padded, out, 0, kernel.height);
    spectrum.planeWidth = planeWidth;
    spectrum.planeHeight = planeHeight;
}

// Circular cross-correlation of the plane (its mean subtracted, which keeps the single-precision transforms' error
// small; the mean × the taps' sum is added back) with the kernel. The DFT size is at least the padded plane's, which
// already reaches kw - 1 and kh - 1 samples beyond the image, so no output reads a wrapped sample.
void correlateDft(const PaddedPlane& plane, const Kernel2D& kernel, KernelSpectrum& spectrum, std::vector<float>& out) {
    prepareSpectrum(kernel, plane.width, plane.height, spectrum);
    const cv::Size size = dftSize(plane.width, plane.height);
    const cv::Mat whole(plane.height, plane.width, CV_32F, const_cast<float*>(plane.data.data()));
    const double mean = cv::mean(whole)[0];
    cv::Mat padded = cv::Mat::zeros(size, CV_32F);
    whole.convertTo(padded(cv::Rect(0, 0, plane.width, plane.height)), CV_32F, 1.0, -mean);
    const int ox = plane.padLeft - kernel.width / 2, oy = plane.padTop - kernel.height / 2;
    cv::Mat planeSpectrum, product, correlation;
    cv::dft(padded, planeSpectrum, 0, plane.height);
    cv::mulSpectrums(planeSpectrum, cv::Mat(size, CV_32F, spectrum.data.data()), product, 0, true);
    cv::dft(product, correlation, cv::DFT_INVERSE | cv::DFT_REAL_OUTPUT | cv::DFT_SCALE, oy + plane.imageHeight);
    double tapSum = 0;
    for (float t : kernel.taps) tapSum += t;
    out.resize(std::size_t(plane.imageWidth) * plane.imageHeight);
    cv::Mat dst(plane.imageHeight, plane.imageWidth, CV_32F, out.data());
    correlation(cv::Rect(ox, oy, plane.imageWidth, plane.imageHeight)).convertTo(dst, CV_32F, 1.0, mean * tapSum);
}

}  // namespace cudafilters::cpu
