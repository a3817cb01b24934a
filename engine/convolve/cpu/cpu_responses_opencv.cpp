// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_responses.hpp"

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
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

// Overlap-save tiling: each output tile reads (tile + kernel - 1) samples of the padded plane, transformed at the DFT
// size, so no output reads a wrapped sample. Transforms of about 4 kernel reaches (at least 256 samples) keep them in
// cache and the overlap at most a quarter, and let the tiles run in parallel; a plane smaller than that is one tile.
struct DftTiling {
    cv::Size dft;
    cv::Size tile;  // output samples per tile
};

int dftLength(int kernel, int image) {
    const int whole = cv::getOptimalDFTSize(image + kernel - 1);
    return std::min(whole, cv::getOptimalDFTSize(std::max(4 * (kernel - 1), 256)));
}

DftTiling dftTiling(int kernelWidth, int kernelHeight, int imageWidth, int imageHeight) {
    DftTiling t;
    t.dft = {dftLength(kernelWidth, imageWidth), dftLength(kernelHeight, imageHeight)};
    t.tile = {t.dft.width - kernelWidth + 1, t.dft.height - kernelHeight + 1};
    return t;
}

}  // namespace

// The spectrum (CCS-packed, as cv::dft writes it) of the kernel placed at the origin of a zero plane of the tiles' DFT
// size.
void prepareSpectrum(const Kernel2D& kernel, int planeWidth, int planeHeight, KernelSpectrum& spectrum) {
    if (spectrum.planeWidth == planeWidth && spectrum.planeHeight == planeHeight) return;
    const cv::Size size = dftTiling(kernel.width, kernel.height, planeWidth - 2 * (kernel.width / 2),
                                    planeHeight - 2 * (kernel.height / 2)).dft;
    cv::Mat padded = cv::Mat::zeros(size, CV_32F);
    cv::Mat(kernel.height, kernel.width, CV_32F, const_cast<float*>(kernel.taps.data()))
        .copyTo(padded(cv::Rect(0, 0, kernel.width, kernel.height)));
    spectrum.data.resize(std::size_t(size.area()));
    cv::Mat out(size, CV_32F, spectrum.data.data());
    cv::dft(padded, out, 0, kernel.height);
    spectrum.planeWidth = planeWidth;
    spectrum.planeHeight = planeHeight;
}

// Circular cross-correlation of each tile's region of the plane (the plane's mean subtracted, which keeps the
// single-precision transforms' error small; the mean × the taps' sum is added back) with the kernel.
void correlateDft(const PaddedPlane& plane, const Kernel2D& kernel, KernelSpectrum& spectrum, std::vector<float>& out) {
    prepareSpectrum(kernel, plane.width, plane.height, spectrum);
    const DftTiling tiling = dftTiling(kernel.width, kernel.height, plane.imageWidth, plane.imageHeight);
    const cv::Mat whole(plane.height, plane.width, CV_32F, const_cast<float*>(plane.data.data()));
    const cv::Mat kernelSpectrum(tiling.dft, CV_32F, spectrum.data.data());
    const double mean = cv::mean(whole)[0];
    double tapSum = 0;
    for (float t : kernel.taps) tapSum += t;
    out.resize(std::size_t(plane.imageWidth) * plane.imageHeight);
    cv::Mat dst(plane.imageHeight, plane.imageWidth, CV_32F, out.data());
    const int ox = plane.padLeft - kernel.width / 2, oy = plane.padTop - kernel.height / 2;
    const int columns = (plane.imageWidth + tiling.tile.width - 1) / tiling.tile.width;
    const int rows = (plane.imageHeight + tiling.tile.height - 1) / tiling.tile.height;
    cv::parallel_for_(cv::Range(0, columns * rows), [&](const cv::Range& range) {
        cv::Mat region(tiling.dft, CV_32F), regionSpectrum, product, correlation;
        for (int i = range.start; i < range.end; ++i) {
            const int x0 = (i % columns) * tiling.tile.width, y0 = (i / columns) * tiling.tile.height;
            const int w = std::min(tiling.tile.width, plane.imageWidth - x0);
            const int h = std::min(tiling.tile.height, plane.imageHeight - y0);
            const int readWidth = w + kernel.width - 1, readHeight = h + kernel.height - 1;
            region.setTo(0);
            whole(cv::Rect(x0 + ox, y0 + oy, readWidth, readHeight))
                .convertTo(region(cv::Rect(0, 0, readWidth, readHeight)), CV_32F, 1.0, -mean);
            cv::dft(region, regionSpectrum, 0, readHeight);
            cv::mulSpectrums(regionSpectrum, kernelSpectrum, product, 0, true);
            cv::dft(product, correlation, cv::DFT_INVERSE | cv::DFT_REAL_OUTPUT | cv::DFT_SCALE, h);
            correlation(cv::Rect(0, 0, w, h)).convertTo(dst(cv::Rect(x0, y0, w, h)), CV_32F, 1.0, mean * tapSum);
        }
    });
}

}  // namespace cudafilters::cpu
