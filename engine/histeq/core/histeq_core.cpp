// SPDX-License-Identifier: LGPL-2.1-or-later
#include "histeq_core.hpp"
#include "histeq_formula.hpp"

#include <cudafilters/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudafilters::core {
namespace {

constexpr int kShift = 14;  // OpenCV's yuv_shift
constexpr int kR2Y = 4899, kG2Y = 9617, kB2Y = 1868, kYCr = 11682, kYCb = 9241;
constexpr int kCr2R = 22987, kCr2G = -11698, kCb2G = -5636, kCb2B = 29049;

std::int64_t descale(std::int64_t v) { return (v + (std::int64_t(1) << (kShift - 1))) >> kShift; }

int saturate(std::int64_t v, int maxValue) { return int(std::clamp<std::int64_t>(v, 0, maxValue)); }

// cv::saturate_cast<uchar/ushort>(float): round half to even, then clamp.
int saturateRound(float v, int maxValue) {
    const float r = std::nearbyint(v);
    if (!(r >= 0.0f)) return 0;
    return r > float(maxValue) ? maxValue : int(r);
}

template <typename T> T readSample(const ImageView& v, int x, int y, int c) {
    return v.row<const T>(y)[std::size_t(x) * v.channels + c];
}
template <typename T> void writeSample(const ImageView& v, int x, int y, int c, int value) {
    v.row<T>(y)[std::size_t(x) * v.channels + c] = static_cast<T>(value);
}
int sampleAt(const ImageView& v, int x, int y, int c) {
    return v.type == SampleType::U8 ? readSample<std::uint8_t>(v, x, y, c) : readSample<std::uint16_t>(v, x, y, c);
}
void setSampleAt(const ImageView& v, int x, int y, int c, int value) {
    if (v.type == SampleType::U8) writeSample<std::uint8_t>(v, x, y, c, value);
    else writeSample<std::uint16_t>(v, x, y, c, value);
}

int alphaChannel(const EqualizePlan& plan) {
    for (int c = 0; c < plan.channels; ++c)
        if (c != plan.order.red && c != plan.order.green && c != plan.order.blue) return c;
    return -1;
}

}  // namespace

int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

YCrCb rgbToYCrCb(int r, int g, int b, int maxValue) {
    const std::int64_t delta = std::int64_t((maxValue + 1) / 2) << kShift;
    const std::int64_t y = descale(std::int64_t(r) * kR2Y + std::int64_t(g) * kG2Y + std::int64_t(b) * kB2Y);
    const std::int64_t cr = descale((r - y) * kYCr + delta);
    const std::int64_t cb = descale((b - y) * kYCb + delta);
    return {saturate(y, maxValue), saturate(cr, maxValue), saturate(cb, maxValue)};
}

void yCrCbToRgb(int y, int cr, int cb, int maxValue, int& r, int& g, int& b) {
    const int delta = (maxValue + 1) / 2;
    b = saturate(y + descale(std::int64_t(cb - delta) * kCb2B), maxValue);
    g = saturate(y + descale(std::int64_t(cb - delta) * kCb2G + std::int64_t(cr - delta) * kCr2G), maxValue);
    r = saturate(y + descale(std::int64_t(cr - delta) * kCr2R), maxValue);
}

void equalizeLut(const std::uint32_t* hist, int bins, std::uint16_t* lut) {
    std::uint32_t total = 0;
    for (int i = 0; i < bins; ++i) total += hist[i];
    int first = 0;
    while (first < bins && hist[first] == 0) ++first;
    const EqualizeTerms terms = equalizeTerms(bins, first, first < bins ? hist[first] : 0u, total);
    std::uint32_t cumulative = 0;
    for (int v = 0; v < bins; ++v) {
        cumulative += hist[v];
        lut[v] = std::uint16_t(equalizedLevel(terms, bins, v, cumulative));
    }
}

ClaheGrid claheGrid(int width, int height, int tilesX, int tilesY, int bins, double clipLimit) {
    ClaheGrid g;
    g.tilesX = tilesX;
    g.tilesY = tilesY;
    g.padded = width % tilesX != 0 || height % tilesY != 0;
    const int paddedW = g.padded ? width + tilesX - width % tilesX : width;
    const int paddedH = g.padded ? height + tilesY - height % tilesY : height;
    g.tileWidth = paddedW / tilesX;
    g.tileHeight = paddedH / tilesY;
    const int area = g.tileWidth * g.tileHeight;
    g.lutScale = float(bins - 1) / float(area);
    if (clipLimit > 0.0) g.clipLimit = std::max(int(clipLimit * area / bins), 1);
    return g;
}

void claheLut(std::uint32_t* hist, int bins, const ClaheGrid& grid, std::uint16_t* lut) {
    if (grid.clipLimit > 0) {
        const std::uint32_t limit = std::uint32_t(grid.clipLimit);
        std::uint32_t clipped = 0;
        for (int i = 0; i < bins; ++i)
            if (hist[i] > limit) {
                clipped += hist[i] - limit;
                hist[i] = limit;
            }
        const std::uint32_t batch = clipped / std::uint32_t(bins);
        int residual = int(clipped - batch * std::uint32_t(bins));
        for (int i = 0; i < bins; ++i) hist[i] += batch;
        if (residual != 0) {
            const int step = std::max(bins / residual, 1);
            for (int i = 0; i < bins && residual > 0; i += step, --residual) ++hist[i];
        }
    }
    std::uint32_t sum = 0;
    for (int i = 0; i < bins; ++i) {
        sum += hist[i];
        lut[i] = std::uint16_t(saturateRound(float(sum) * grid.lutScale, bins - 1));
    }
}

int claheInterpolate(const std::uint16_t* luts, int bins, const ClaheGrid& grid, int x, int y, int value) {
    const float invW = 1.0f / float(grid.tileWidth);
    const float invH = 1.0f / float(grid.tileHeight);
    const float txf = float(x) * invW - 0.5f;
    const float tyf = float(y) * invH - 0.5f;
    int tx1 = int(std::floor(txf));
    int ty1 = int(std::floor(tyf));
    const float xa = txf - float(tx1), xa1 = 1.0f - xa;
    const float ya = tyf - float(ty1), ya1 = 1.0f - ya;
    const int tx2 = std::min(tx1 + 1, grid.tilesX - 1);
    const int ty2 = std::min(ty1 + 1, grid.tilesY - 1);
    tx1 = std::max(tx1, 0);
    ty1 = std::max(ty1, 0);
    auto lut = [&](int tx, int ty) { return float(luts[(std::size_t(ty) * grid.tilesX + tx) * bins + value]); };
    // Each product and sum rounded separately, as OpenCV's scalar and SSE code.
    volatile float top = lut(tx1, ty1) * xa1;
    top = top + lut(tx2, ty1) * xa;
    volatile float bottom = lut(tx1, ty2) * xa1;
    bottom = bottom + lut(tx2, ty2) * xa;
    volatile float a = top * ya1;
    volatile float b = bottom * ya;
    return saturateRound(a + b, bins - 1);
}

std::uint32_t smoothingFactor(float alpha) { return std::uint32_t(std::lround(double(alpha) * 65536.0)); }

void smoothHistogram(std::uint64_t* state, std::uint32_t* hist, int n, std::uint32_t a, bool first) {
    for (int i = 0; i < n; ++i) {
        const std::uint64_t x = std::uint64_t(hist[i]) << 16;
        state[i] = first ? x : (std::uint64_t(a) * state[i] + std::uint64_t(65536 - a) * x + 32768) >> 16;
        hist[i] = std::uint32_t((state[i] + 32768) >> 16);
    }
}

void smoothLut(std::uint32_t* state, std::uint16_t* lut, int n, std::uint32_t a, bool first) {
    for (int i = 0; i < n; ++i) {
        const std::uint64_t x = std::uint64_t(lut[i]) << 16;
        state[i] = std::uint32_t(first ? x : (std::uint64_t(a) * state[i] + std::uint64_t(65536 - a) * x + 32768) >> 16);
        lut[i] = std::uint16_t((state[i] + 32768) >> 16);
    }
}

void planeStatistics(const std::vector<std::vector<std::uint16_t>>& planes, int bins, FrameStatistics& out) {
    int depth = 0;
    while ((1 << depth) < bins) ++depth;
    const int shift = depth - 8;
    out.histogram.fill(0);
    std::uint64_t sum = 0, count = 0;
    std::uint32_t lo = std::uint32_t(bins - 1), hi = 0;
    for (const auto& plane : planes)
        for (std::uint16_t v : plane) {
            ++out.histogram[v >> shift];
            sum += v;
            lo = std::min<std::uint32_t>(lo, v);
            hi = std::max<std::uint32_t>(hi, v);
            ++count;
        }
    out.samples = count;
    out.mean = count ? double(sum) / double(count) : 0.0;
    out.min = count ? lo : 0;
    out.max = hi;
}

void equalizePlanes(const EqualizePlan& plan, int width, int height, std::vector<std::vector<std::uint16_t>>& planes,
                    SmoothingState& state, FrameScratch& scratch) {
    const int bins = plan.bins();
    const bool clahe = plan.mode == EqualizeMode::Clahe;
    const ClaheGrid grid = clahe ? claheGrid(width, height, plan.tilesX, plan.tilesY, bins, plan.clipLimit)
                                 : ClaheGrid{};
    const int tiles = clahe ? plan.tilesX * plan.tilesY : 1;
    const std::size_t perPlane = std::size_t(tiles) * bins;
    const bool smooth = plan.smoothing > 0.0f;
    const bool first = !state.valid;
    const std::uint32_t a = smoothingFactor(plan.smoothing);
    if (smooth) {
        if (plan.smoothTarget == SmoothTarget::Histogram) state.hist.resize(perPlane * planes.size());
        else state.lut.resize(perPlane * planes.size());
        state.valid = true;
    }

    std::vector<std::uint32_t>& hist = scratch.hist;
    std::vector<std::uint16_t>& luts = scratch.luts;
    hist.resize(perPlane);
    luts.resize(perPlane);
    for (std::size_t k = 0; k < planes.size(); ++k) {
        std::vector<std::uint16_t>& plane = planes[k];
        std::fill(hist.begin(), hist.end(), 0u);
        if (!clahe) {
            for (std::uint16_t v : plane) ++hist[v];
        } else {
            for (int ty = 0; ty < plan.tilesY; ++ty)
                for (int tx = 0; tx < plan.tilesX; ++tx) {
                    std::uint32_t* h = &hist[(std::size_t(ty) * plan.tilesX + tx) * bins];
                    for (int y = ty * grid.tileHeight; y < (ty + 1) * grid.tileHeight; ++y)
                        for (int x = tx * grid.tileWidth; x < (tx + 1) * grid.tileWidth; ++x)
                            ++h[plane[std::size_t(reflect101(y, height)) * width + reflect101(x, width)]];
                }
        }
        if (smooth && plan.smoothTarget == SmoothTarget::Histogram)
            smoothHistogram(&state.hist[k * perPlane], hist.data(), int(perPlane), a, first);
        for (int t = 0; t < tiles; ++t) {
            if (clahe) claheLut(&hist[std::size_t(t) * bins], bins, grid, &luts[std::size_t(t) * bins]);
            else equalizeLut(hist.data(), bins, luts.data());
        }
        if (smooth && plan.smoothTarget == SmoothTarget::Lut)
            smoothLut(&state.lut[k * perPlane], luts.data(), int(perPlane), a, first);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                std::uint16_t& v = plane[std::size_t(y) * width + x];
                v = std::uint16_t(clahe ? claheInterpolate(luts.data(), bins, grid, x, y, v) : luts[v]);
            }
    }
}

void extractPlanes(const EqualizePlan& plan, const ImageView& src, std::vector<std::vector<std::uint16_t>>& planes) {
    const int k = plan.equalizedChannels();
    const int maxValue = plan.bins() - 1;
    const std::size_t count = std::size_t(src.width) * src.height;
    planes.resize(k);
    for (auto& p : planes) p.resize(count);
    const int rgb[3] = {plan.order.red, plan.order.green, plan.order.blue};
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            const std::size_t i = std::size_t(y) * src.width + x;
            if (plan.channels == 1) {
                planes[0][i] = std::uint16_t(std::min(sampleAt(src, x, y, 0) >> plan.bits.shift, maxValue));
            } else if (plan.channels == 2) {
                planes[0][i] = std::uint16_t(sampleAt(src, x, y, plan.lumaChannel));
            } else if (k == 1) {
                planes[0][i] = std::uint16_t(rgbToYCrCb(sampleAt(src, x, y, rgb[0]), sampleAt(src, x, y, rgb[1]),
                                                        sampleAt(src, x, y, rgb[2]), maxValue).y);
            } else {
                for (int c = 0; c < 3; ++c) planes[c][i] = std::uint16_t(sampleAt(src, x, y, rgb[c]));
            }
        }
}

void rebuildFrame(const EqualizePlan& plan, const ImageView& src, const std::vector<std::vector<std::uint16_t>>& planes,
                  const ImageView& dst) {
    const int maxValue = plan.bins() - 1;
    const int rgb[3] = {plan.order.red, plan.order.green, plan.order.blue};
    const int alpha = alphaChannel(plan);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            const std::size_t i = std::size_t(y) * src.width + x;
            if (plan.channels == 1) {
                setSampleAt(dst, x, y, 0, planes[0][i] << plan.bits.shift);
                continue;
            }
            if (plan.channels == 2) {
                const int chroma = 1 - plan.lumaChannel;
                setSampleAt(dst, x, y, chroma, sampleAt(src, x, y, chroma));
                setSampleAt(dst, x, y, plan.lumaChannel, planes[0][i]);
                continue;
            }
            const int a = alpha >= 0 ? sampleAt(src, x, y, alpha) : 0;
            if (planes.size() == 1) {
                const YCrCb ycc = rgbToYCrCb(sampleAt(src, x, y, rgb[0]), sampleAt(src, x, y, rgb[1]),
                                             sampleAt(src, x, y, rgb[2]), maxValue);
                int r, g, b;
                yCrCbToRgb(planes[0][i], ycc.cr, ycc.cb, maxValue, r, g, b);
                setSampleAt(dst, x, y, rgb[0], r);
                setSampleAt(dst, x, y, rgb[1], g);
                setSampleAt(dst, x, y, rgb[2], b);
            } else {
                for (int c = 0; c < 3; ++c) setSampleAt(dst, x, y, rgb[c], planes[c][i]);
            }
            if (alpha >= 0) setSampleAt(dst, x, y, alpha, a);
        }
}

Retune retuneKind(const EqualizePlan& current, const EqualizePlan& next, int tileCapacity) {
    if (!current.sameShape(next) || next.tiles() > tileCapacity) return Retune::Refused;
    const bool newGrid =
        current.mode == EqualizeMode::Clahe && (current.tilesX != next.tilesX || current.tilesY != next.tilesY);
    return newGrid ? Retune::ResetState : Retune::KeepState;
}

}  // namespace cudafilters::core
