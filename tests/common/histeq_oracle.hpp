// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// Independent oracles for histogram equalization, written from the definitions without the engine's core
// (engine/histeq/core/histeq_core.*): OracleEqualizer for one plane (cv::equalizeHist / cv::createCLAHE with temporal
// smoothing) and OracleColorEqualizer for packed 8-bit RGB (per-channel, or luma through OpenCV's fixed-point BT.601
// YCrCb conversion). Shared by the histeq unit tests and the element tests.
#include "test_images.hpp"

#include <cudafilters/histeq.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace cudafilters::test {

// An independent single-plane equalizer written from the definitions, without the engine's core: cv::equalizeHist's
// LUT, cv::createCLAHE (reflect-101 padding of the right and bottom when the grid does not divide the frame, clip and
// redistribute, bilinear blend of four tile LUTs in float) and the 16.16 temporal smoothing of the histograms
// documented in histeq.hpp. The oracle for what OpenCV has no answer to (16-bit global, smoothing, builds without
// OpenCV).
class OracleEqualizer {
public:
    OracleEqualizer(const EqualizeDesc& d, SampleType t) : d_(d), bins_(t == SampleType::U8 ? 256 : 65536) {}
    // Samples of fewer levels than their type holds (10-bit data in u16): one bin per level, LUT scaled to bins − 1.
    OracleEqualizer(const EqualizeDesc& d, int bins) : d_(d), bins_(bins) {}

    HostImage process(const HostImage& src) {
        const int w = src.width(), h = src.height(), maxv = bins_ - 1;
        const bool clahe = d_.mode == EqualizeMode::Clahe;
        const int tx = clahe ? d_.tilesX : 1, ty = clahe ? d_.tilesY : 1;
        const bool pad = clahe && (w % tx != 0 || h % ty != 0);
        const int pw = pad ? w + tx - w % tx : w, ph = pad ? h + ty - h % ty : h;
        const int tw = pw / tx, th = ph / ty, area = tw * th;

        // Histograms of the (padded) tiles.
        std::vector<std::uint64_t> hist(std::size_t(tx) * ty * bins_, 0);
        for (int y = 0; y < ph; ++y)
            for (int x = 0; x < pw; ++x) {
                const int v = int(src.sample(mirror(x, w), mirror(y, h), 0));
                ++hist[(std::size_t(y / th) * tx + x / tw) * bins_ + v];
            }
        // Temporal smoothing: state = (a·state + (65536 − a)·(x << 16) + 32768) >> 16, used = round(state).
        if (d_.smoothing > 0) {
            const std::uint64_t a = std::uint64_t(std::lround(double(float(d_.smoothing)) * 65536.0));
            if (state_.empty()) state_.assign(hist.size(), 0);
            for (std::size_t i = 0; i < hist.size(); ++i) {
                const std::uint64_t x = hist[i] << 16;
                state_[i] = first_ ? x : (a * state_[i] + (65536 - a) * x + 32768) >> 16;
                hist[i] = (state_[i] + 32768) >> 16;
            }
            first_ = false;
        }
        // One LUT per tile.
        std::vector<int> lut(hist.size(), 0);
        for (int t = 0; t < tx * ty; ++t) {
            std::uint64_t* hh = &hist[std::size_t(t) * bins_];
            int* l = &lut[std::size_t(t) * bins_];
            if (!clahe) {
                std::uint64_t total = 0;
                for (int v = 0; v < bins_; ++v) total += hh[v];
                int first = 0;
                while (first < bins_ && hh[first] == 0) ++first;
                if (first == bins_) {
                    for (int v = 0; v < bins_; ++v) l[v] = v;
                } else if (hh[first] == total) {
                    for (int v = 0; v < bins_; ++v) l[v] = first;
                } else {
                    const float scale = float(maxv) / float(total - hh[first]);
                    std::uint64_t sum = 0;
                    for (int v = first + 1; v < bins_; ++v) {
                        sum += hh[v];
                        l[v] = roundSat(float(sum) * scale, maxv);
                    }
                }
            } else {
                if (d_.clipLimit > 0) {
                    const std::uint64_t limit = std::uint64_t(std::max(int(d_.clipLimit * area / bins_), 1));
                    std::uint64_t excess = 0;
                    for (int v = 0; v < bins_; ++v)
                        if (hh[v] > limit) excess += hh[v] - limit, hh[v] = limit;
                    const std::uint64_t each = excess / bins_;
                    std::uint64_t rest = excess % bins_;
                    for (int v = 0; v < bins_; ++v) hh[v] += each;
                    if (rest > 0)
                        for (int v = 0, step = std::max(int(bins_ / rest), 1); v < bins_ && rest > 0; v += step, --rest)
                            ++hh[v];
                }
                const float scale = float(maxv) / float(area);
                std::uint64_t sum = 0;
                for (int v = 0; v < bins_; ++v) {
                    sum += hh[v];
                    l[v] = roundSat(float(sum) * scale, maxv);
                }
            }
        }
        // Apply: global through its LUT, CLAHE as the bilinear blend of the four nearest tiles' LUTs.
        HostImage out(w, h, 1, src.type());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int v = int(src.sample(x, y, 0));
                if (!clahe) {
                    out.setSample(x, y, 0, lut[v]);
                    continue;
                }
                const float fx = float(x) * (1.0f / float(tw)) - 0.5f, fy = float(y) * (1.0f / float(th)) - 0.5f;
                const int x1 = int(std::floor(fx)), y1 = int(std::floor(fy));
                const float wx = fx - float(x1), wy = fy - float(y1);
                const int cx1 = std::max(x1, 0), cx2 = std::min(x1 + 1, tx - 1);
                const int cy1 = std::max(y1, 0), cy2 = std::min(y1 + 1, ty - 1);
                auto at = [&](int cx, int cy) { return float(lut[(std::size_t(cy) * tx + cx) * bins_ + v]); };
                volatile float top = at(cx1, cy1) * (1.0f - wx);
                top = top + at(cx2, cy1) * wx;
                volatile float bottom = at(cx1, cy2) * (1.0f - wx);
                bottom = bottom + at(cx2, cy2) * wx;
                volatile float upper = top * (1.0f - wy);
                volatile float lower = bottom * wy;
                out.setSample(x, y, 0, roundSat(upper + lower, maxv));
            }
        return out;
    }

private:
    static int mirror(int p, int n) {  // reflect-101
        if (n == 1) return 0;
        while (p < 0 || p >= n) p = p < 0 ? -p : 2 * n - 2 - p;
        return p;
    }
    static int roundSat(float v, int maxv) {  // cv::saturate_cast from float: round half to even, clamp
        const float r = std::nearbyint(v);
        return r < 0.0f ? 0 : r > float(maxv) ? maxv : int(r);
    }

    EqualizeDesc d_;
    int bins_;
    bool first_ = true;
    std::vector<std::uint64_t> state_;
};

// Packed 8-bit RGB (3 or 4 channels, `order` naming R, G and B; the fourth channel copied). Per-channel: R, G and B
// each through their own OracleEqualizer. Luma: OpenCV's integer BGR2YCrCb (14-bit fixed point, BT.601 coefficients),
// Y through an OracleEqualizer, the equalized Y with the original Cr and Cb back through YCrCb2BGR, saturated.
class OracleColorEqualizer {
public:
    OracleColorEqualizer(const EqualizeDesc& d, ChannelOrder order)
        : d_(d), order_(order), luma_(d, SampleType::U8), red_(d, SampleType::U8), green_(d, SampleType::U8),
          blue_(d, SampleType::U8) {}

    HostImage process(const HostImage& src) {
        const int w = src.width(), h = src.height();
        HostImage out = src;
        auto channelPlane = [&](int c) {
            HostImage plane(w, h, 1, SampleType::U8);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) plane.setSample(x, y, 0, src.sample(x, y, c));
            return plane;
        };
        if (d_.colorMode == ColorMode::PerChannel) {
            const std::pair<int, OracleEqualizer*> parts[] = {{order_.red, &red_}, {order_.green, &green_},
                                                              {order_.blue, &blue_}};
            for (const auto& [c, eq] : parts) {
                const HostImage done = eq->process(channelPlane(c));
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) out.setSample(x, y, c, done.sample(x, y, 0));
            }
            return out;
        }
        constexpr int kShift = 14, kHalf = 1 << (kShift - 1), kDelta = 128;
        auto descale = [](int v) { return (v + kHalf) >> kShift; };  // CV_DESCALE: arithmetic shift (floor)
        auto sat = [](int v) { return std::clamp(v, 0, 255); };
        HostImage yPlane(w, h, 1, SampleType::U8);
        std::vector<int> cr(std::size_t(w) * h), cb(std::size_t(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int r = int(src.sample(x, y, order_.red)), g = int(src.sample(x, y, order_.green)),
                          b = int(src.sample(x, y, order_.blue));
                const int Y = descale(r * 4899 + g * 9617 + b * 1868);
                cr[std::size_t(y) * w + x] = sat(descale((r - Y) * 11682 + (kDelta << kShift)));
                cb[std::size_t(y) * w + x] = sat(descale((b - Y) * 9241 + (kDelta << kShift)));
                yPlane.setSample(x, y, 0, sat(Y));
            }
        const HostImage eq = luma_.process(yPlane);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int Y = int(eq.sample(x, y, 0));
                const int dr = cr[std::size_t(y) * w + x] - kDelta, db = cb[std::size_t(y) * w + x] - kDelta;
                out.setSample(x, y, order_.red, sat(Y + descale(dr * 22987)));
                out.setSample(x, y, order_.green, sat(Y + descale(db * -5636 + dr * -11698)));
                out.setSample(x, y, order_.blue, sat(Y + descale(db * 29049)));
            }
        return out;
    }

private:
    EqualizeDesc d_;
    ChannelOrder order_;
    OracleEqualizer luma_, red_, green_, blue_;
};

}  // namespace cudafilters::test
