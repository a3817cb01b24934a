// SPDX-License-Identifier: LGPL-2.1-or-later
// Histogram equalization on the CPU: reference and CPU backend against OpenCV and an independent oracle (0 differing
// pixels), 16-bit, colour modes, temporal smoothing, statistics and parameter validation.
#include "histeq_frames.hpp"
#include "histeq_oracle.hpp"
#include "reference.hpp"

#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <limits>

#ifdef CUDAFILTERS_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

using namespace cudafilters;
using namespace cudafilters::test;

namespace {

HostImage run(Equalizer& eq, HostImage& src, std::size_t extraPitch = 7) {
    HostImage dst(src.width(), src.height(), src.channels(), src.type(), extraPitch);
    dst.fillRows(0x5A);
    eq.process(src.view(), dst.view());
    EXPECT_TRUE(dst.paddingIntact()) << "padding after the rows was written";
    return dst;
}

HostImage run(const EqualizePlan& plan, reference::Impl impl, HostImage& src) {
    auto eq = reference::makeEqualizer(plan, impl);
    return run(*eq, src);
}

EqualizeDesc clahe(double clip, int tx, int ty) {
    EqualizeDesc d;
    d.mode = EqualizeMode::Clahe;
    d.clipLimit = clip;
    d.tilesX = tx;
    d.tilesY = ty;
    return d;
}

const std::vector<Size2> kSizes{{64, 48}, {333, 177}, {97, 61}, {16, 16}, {1, 1}, {640, 360}};
const std::vector<double> kClips{0, 1, 2, 4, 40};
const std::vector<std::pair<int, int>> kGrids{{1, 1}, {2, 3}, {8, 8}, {16, 16}};

}  // namespace

#ifdef CUDAFILTERS_HAVE_OPENCV

namespace {

cv::Mat wrap(HostImage& img) {
    const int depth = img.type() == SampleType::U8 ? CV_8U : CV_16U;
    return cv::Mat(img.height(), img.width(), CV_MAKETYPE(depth, img.channels()), img.bytes(), img.pitch());
}

HostImage fromMat(const cv::Mat& m, SampleType type) {
    HostImage out(m.cols, m.rows, m.channels(), type, 5);
    for (int y = 0; y < m.rows; ++y) std::memcpy(out.bytes() + y * out.pitch(), m.ptr(y), out.rowBytes());
    return out;
}

HostImage openCvEqualize(HostImage& src, const EqualizeDesc& d) {
    cv::Mat out;
    if (d.mode == EqualizeMode::Global) cv::equalizeHist(wrap(src), out);
    else cv::createCLAHE(d.clipLimit, cv::Size(d.tilesX, d.tilesY))->apply(wrap(src), out);
    return fromMat(out, src.type());
}

void expectExact(HostImage& expected, HostImage& actual, const std::string& what) {
    const Difference d = compareImages(expected, actual);
    EXPECT_EQ(d.differing, 0) << what << ": " << describe(d);
}

}  // namespace

TEST(HisteqOpenCV, GlobalGray8ReferenceAndCpuMatchEqualizeHist) {
    for (Size2 s : kSizes)
        for (Pattern p : allPatterns()) {
            HostImage src(s.w, s.h, 1, SampleType::U8);
            fillPattern(src, p, 11 + s.w);
            EqualizeDesc d;
            HostImage expected = openCvEqualize(src, d);
            const auto plan = EqualizePlan::make(d, SampleType::U8, 1);
            for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                HostImage out = run(plan, b, src);
                expectExact(expected, out,
                            std::string(reference::implName(b)) + " " + sizeName(s) + " " + patternName(p));
            }
        }
}

TEST(HisteqOpenCV, ClaheGray8ReferenceAndCpuMatchCreateClahe) {
    for (Size2 s : kSizes)
        for (auto [tx, ty] : kGrids) {
            if (tx > s.w || ty > s.h) continue;
            for (double clip : kClips)
                for (Pattern p : allPatterns()) {
                    HostImage src(s.w, s.h, 1, SampleType::U8);
                    fillPattern(src, p, 3 + s.h);
                    const EqualizeDesc d = clahe(clip, tx, ty);
                    HostImage expected = openCvEqualize(src, d);
                    const auto plan = EqualizePlan::make(d, SampleType::U8, 1);
                    for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                        HostImage out = run(plan, b, src);
                        expectExact(expected, out,
                                    std::string(reference::implName(b)) + " " + sizeName(s) + " grid " +
                                        std::to_string(tx) + "x" + std::to_string(ty) + " clip " +
                                        std::to_string(clip) + " " + patternName(p));
                    }
                }
        }
}

TEST(HisteqOpenCV, ClaheGridAsLargeAsTheFrameMatches) {
    // tiles == width with a height not divisible by the grid: OpenCV pads a whole tile width, reflected twice.
    HostImage src(8, 13, 1, SampleType::U8);
    fillPattern(src, Pattern::Random, 5);
    const EqualizeDesc d = clahe(2, 8, 4);
    HostImage expected = openCvEqualize(src, d);
    HostImage out = run(EqualizePlan::make(d, SampleType::U8, 1), reference::Impl::Reference, src);
    expectExact(expected, out, "8x13 grid 8x4");
}

TEST(HisteqOpenCV, ClaheGray16ReferenceMatchesCreateClahe) {
    for (Size2 s : std::vector<Size2>{{64, 48}, {97, 61}})
        for (auto [tx, ty] : std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {8, 8}})
            for (double clip : {0.0, 2.0, 40.0})
                for (Pattern p : {Pattern::Random, Pattern::Blobs, Pattern::TwoLevel}) {
                    HostImage src(s.w, s.h, 1, SampleType::U16);
                    fillPattern(src, p, 99);
                    const EqualizeDesc d = clahe(clip, tx, ty);
                    HostImage expected = openCvEqualize(src, d);
                    const auto plan = EqualizePlan::make(d, SampleType::U16, 1);
                    for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                        HostImage out = run(plan, b, src);
                        expectExact(expected, out,
                                    std::string(reference::implName(b)) + " u16 " + sizeName(s) + " clip " +
                                        std::to_string(clip) + " " + patternName(p));
                    }
                }
}

namespace {

// The luma pipeline spelled out with OpenCV: cvtColor to YCrCb, equalize Y, cvtColor back, alpha copied.
HostImage openCvLuma(HostImage& src, const EqualizeDesc& d, ChannelOrder order) {
    cv::Mat in = wrap(src);
    const int depth = src.type() == SampleType::U8 ? CV_8U : CV_16U;
    cv::Mat bgr(in.rows, in.cols, CV_MAKETYPE(depth, 3));
    const int toBgr[] = {order.blue, 0, order.green, 1, order.red, 2};
    cv::mixChannels(&in, 1, &bgr, 1, toBgr, 3);
    cv::Mat ycc;
    cv::cvtColor(bgr, ycc, cv::COLOR_BGR2YCrCb);
    std::vector<cv::Mat> parts;
    cv::split(ycc, parts);
    cv::Mat y;
    if (d.mode == EqualizeMode::Global) cv::equalizeHist(parts[0], y);
    else cv::createCLAHE(d.clipLimit, cv::Size(d.tilesX, d.tilesY))->apply(parts[0], y);
    parts[0] = y;
    cv::merge(parts, ycc);
    cv::cvtColor(ycc, bgr, cv::COLOR_YCrCb2BGR);
    cv::Mat out = in.clone();
    const int fromBgr[] = {0, order.blue, 1, order.green, 2, order.red};
    cv::mixChannels(&bgr, 1, &out, 1, fromBgr, 3);
    return fromMat(out, src.type());
}

HostImage openCvPerChannel(HostImage& src, const EqualizeDesc& d, ChannelOrder order) {
    cv::Mat in = wrap(src);
    cv::Mat out = in.clone();
    for (int c : {order.red, order.green, order.blue}) {
        cv::Mat plane, eq;
        cv::extractChannel(in, plane, c);
        if (d.mode == EqualizeMode::Global) cv::equalizeHist(plane, eq);
        else cv::createCLAHE(d.clipLimit, cv::Size(d.tilesX, d.tilesY))->apply(plane, eq);
        cv::insertChannel(eq, out, c);
    }
    return fromMat(out, src.type());
}

struct Layout { int channels; ChannelOrder order; const char* name; };
const std::vector<Layout> kLayouts{{3, ChannelOrder::rgb(), "RGB"},
                                   {3, ChannelOrder::bgr(), "BGR"},
                                   {4, ChannelOrder::rgb(), "RGBA"},
                                   {4, ChannelOrder::bgr(), "BGRA"},
                                   {4, ChannelOrder::argb(), "ARGB"},
                                   {4, ChannelOrder::abgr(), "ABGR"}};

}  // namespace

TEST(HisteqOpenCV, LumaModeMatchesCvtColorRoundTrip) {
    for (const Layout& l : kLayouts)
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(4, 3, 2)})
            for (Pattern p : {Pattern::Random, Pattern::Blobs}) {
                HostImage src(101, 67, l.channels, SampleType::U8);
                fillPattern(src, p, 17);
                d.colorMode = ColorMode::Luma;
                HostImage expected = openCvLuma(src, d, l.order);
                const auto plan = EqualizePlan::make(d, SampleType::U8, l.channels, l.order);
                for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                    HostImage out = run(plan, b, src);
                    expectExact(expected, out, std::string(reference::implName(b)) + " luma " + l.name + " " +
                                                   equalizeModeName(d.mode) + " " + patternName(p));
                }
            }
}

TEST(HisteqOpenCV, ColorOracleMatchesCvtColorRoundTripAndSplitEqualizeMerge) {
    // The packed-RGB oracle the element tests use (histeq_oracle.hpp) agrees with OpenCV itself.
    for (const Layout& l : kLayouts)
        for (ColorMode m : {ColorMode::Luma, ColorMode::PerChannel})
            for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(4, 3, 2)}) {
                HostImage src(101, 67, l.channels, SampleType::U8);
                fillPattern(src, Pattern::Random, 31);
                d.colorMode = m;
                HostImage expected = m == ColorMode::Luma ? openCvLuma(src, d, l.order) : openCvPerChannel(src, d, l.order);
                HostImage got = OracleColorEqualizer(d, l.order).process(src);
                expectExact(expected, got, std::string("oracle ") + colorModeName(m) + " " + l.name + " " +
                                               equalizeModeName(d.mode));
            }
}

TEST(HisteqOpenCV, LumaMode16BitMatchesCvtColorRoundTrip) {
    for (const Layout& l : {kLayouts[0], kLayouts[3]}) {
        HostImage src(64, 40, l.channels, SampleType::U16);
        fillPattern(src, Pattern::Blobs, 4);
        EqualizeDesc d = clahe(2, 4, 4);
        HostImage expected = openCvLuma(src, d, l.order);
        HostImage out =
            run(EqualizePlan::make(d, SampleType::U16, l.channels, l.order), reference::Impl::Reference, src);
        expectExact(expected, out, std::string("u16 luma ") + l.name);
    }
}

TEST(HisteqOpenCV, PerChannelModeMatchesSplitEqualizeMerge) {
    for (const Layout& l : kLayouts)
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
            HostImage src(77, 50, l.channels, SampleType::U8);
            fillPattern(src, Pattern::Blobs, 23);
            d.colorMode = ColorMode::PerChannel;
            HostImage expected = openCvPerChannel(src, d, l.order);
            const auto plan = EqualizePlan::make(d, SampleType::U8, l.channels, l.order);
            for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                HostImage out = run(plan, b, src);
                expectExact(expected, out, std::string(reference::implName(b)) + " per-channel " + l.name);
            }
        }
}

TEST(HisteqOpenCV, InPlaceMatches) {
    HostImage src(90, 70, 4, SampleType::U8);
    fillPattern(src, Pattern::Blobs, 8);
    EqualizeDesc d = clahe(2, 8, 8);
    HostImage expected = openCvLuma(src, d, ChannelOrder::rgb());
    for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
        HostImage img = src;
        reference::makeEqualizer(EqualizePlan::make(d, SampleType::U8, 4), b)->process(img.view(), img.view());
        expectExact(expected, img, std::string(reference::implName(b)) + " in place");
    }
}

#endif  // CUDAFILTERS_HAVE_OPENCV

TEST(HisteqCpu, BackendsMatchAnIndependentOracleEverywhere) {
    // Includes what OpenCV has no counterpart for (16-bit global, smoothing) and builds without OpenCV.
    for (SampleType t : {SampleType::U8, SampleType::U16})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 2, 3)})
            for (double alpha : {0.0, 0.7}) {
                d.smoothing = alpha;
                OracleEqualizer oracle(d, t);
                auto ref = reference::makeEqualizer(d, t, 1);
                auto cpu = makeEqualizer(d, t, 1, Backend::Cpu);
                for (int frame = 0; frame < 3; ++frame) {
                    HostImage src(70, 45, 1, t);
                    fillPattern(src, frame % 2 ? Pattern::Blobs : Pattern::Random, 40 + frame);
                    const HostImage expected = oracle.process(src);
                    for (auto* eq : {ref.get(), cpu.get()}) {
                        const Difference diff = compareImages(expected, run(*eq, src));
                        EXPECT_EQ(diff.differing, 0) << (eq == cpu.get() ? "cpu " : "reference ") << sampleTypeName(t)
                                                     << " " << equalizeModeName(d.mode) << " alpha " << alpha
                                                     << " frame " << frame << ": " << describe(diff);
                    }
                }
            }
}

TEST(HisteqCpu, LumaPairsEqualizeOneChannelAndKeepTheOther) {
    // Packed 4:2:2 seen as Y/chroma pairs (YUY2, YVYU: Y at 0; UYVY: Y at 1): Y equalized as a plane of its own,
    // exactly as the oracle (bit-exact to OpenCV) does it on the extracted channel; chroma copied.
    for (int luma : {0, 1})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 3, 2)}) {
            HostImage src(98, 45, 2, SampleType::U8);
            fillPattern(src, Pattern::Blobs, 12);
            HostImage y(98, 45, 1, SampleType::U8);
            for (int r = 0; r < 45; ++r)
                for (int x = 0; x < 98; ++x) y.setSample(x, r, 0, src.sample(x, r, luma) * 0.5 + 40);
            HostImage pairs = src;
            for (int r = 0; r < 45; ++r)
                for (int x = 0; x < 98; ++x) pairs.setSample(x, r, luma, y.sample(x, r, 0));
            const HostImage equalized = OracleEqualizer(d, SampleType::U8).process(y);
            HostImage expected = pairs;
            for (int r = 0; r < 45; ++r)
                for (int x = 0; x < 98; ++x) expected.setSample(x, r, luma, equalized.sample(x, r, 0));
            const auto plan = EqualizePlan::make(d, SampleType::U8, 2, {}, {}, luma);
            for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
                const Difference diff = compareImages(expected, run(plan, b, pairs));
                EXPECT_EQ(diff.differing, 0) << reference::implName(b) << " Y at " << luma << " "
                                             << equalizeModeName(d.mode) << ": " << describe(diff);
            }
        }
    EXPECT_THROW(EqualizePlan::make({}, SampleType::U16, 2, {}, {}, 0), InvalidArgument);
    EXPECT_THROW(EqualizePlan::make({}, SampleType::U8, 2, {}, {}, 2), InvalidArgument);
}

TEST(HisteqCpu, TenBitSamplesUseOneBinPerLevel) {
    // I420_10LE (levels in the low bits) and P010_10LE (high bits): the oracle on 1024 levels, stored back in the
    // container's bits; the top level is 1023 whatever the layout.
    for (SampleBits bits : {SampleBits::low(10), SampleBits::high(10)})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 2, 3)})
            for (double alpha : {0.0, 0.7}) {
                d.smoothing = alpha;
                OracleEqualizer oracle(d, 1024);
                auto ref = reference::makeEqualizer(d, SampleType::U16, 1, {}, bits);
                auto cpu = makeEqualizer(d, SampleType::U16, 1, Backend::Cpu, {}, bits);
                for (int frame = 0; frame < 3; ++frame) {
                    HostImage src(70, 45, 1, SampleType::U16);
                    fillPattern(src, frame % 2 ? Pattern::Blobs : Pattern::Random, 40 + frame);
                    toTenBit(src, bits);
                    const HostImage expected = shiftedRight(oracle.process(shiftedRight(src, bits.shift)), -bits.shift);
                    for (auto* eq : {ref.get(), cpu.get()}) {
                        const HostImage out = run(*eq, src);
                        const Difference diff = compareImages(expected, out);
                        EXPECT_EQ(diff.differing, 0) << (eq == cpu.get() ? "cpu " : "reference ") << bits.shift
                                                     << " " << equalizeModeName(d.mode) << " alpha " << alpha
                                                     << " frame " << frame << ": " << describe(diff);
                        double top = 0;
                        for (int y = 0; y < out.height(); ++y)
                            for (int x = 0; x < out.width(); ++x) top = std::max(top, out.sample(x, y, 0));
                        if (d.mode == EqualizeMode::Global && frame != 1) EXPECT_EQ(top, double(1023 << bits.shift));
                    }
                }
            }
    EXPECT_THROW(EqualizePlan::make({}, SampleType::U16, 3, ChannelOrder::rgb(), SampleBits::low(10)),
                 InvalidArgument);
}

TEST(HisteqCpu, Global16BitUsesAFullLevelHistogram) {
    // 16-bit global = equalizeHist's formula over 65536 bins: a uniform frame is unchanged, the output is monotone
    // and spans 0..65535, and a frame of two levels maps to 0 and 65535.
    HostImage src(50, 30, 1, SampleType::U16);
    fillPattern(src, Pattern::Uniform, 1);
    HostImage out = run(EqualizePlan::make({}, SampleType::U16, 1), reference::Impl::Reference, src);
    EXPECT_EQ(compareImages(src, out).differing, 0);

    fillPattern(src, Pattern::TwoLevel, 1);
    out = run(EqualizePlan::make({}, SampleType::U16, 1), reference::Impl::Reference, src);
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 50; ++x) EXPECT_EQ(out.sample(x, y, 0), src.sample(x, y, 0) > 30000 ? 65535 : 0);

    fillPattern(src, Pattern::Random, 2);
    out = run(EqualizePlan::make({}, SampleType::U16, 1), reference::Impl::Reference, src);
    double lo = 65535, hi = 0;
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 50; ++x) {
            lo = std::min(lo, out.sample(x, y, 0));
            hi = std::max(hi, out.sample(x, y, 0));
            for (int x2 = 0; x2 < 50; ++x2)
                if (src.sample(x2, y, 0) > src.sample(x, y, 0)) {
                    EXPECT_GE(out.sample(x2, y, 0), out.sample(x, y, 0));
                }
        }
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 65535);
}

namespace {

// A textured frame whose brightness is shifted by `offset` (saturating), plus mild sensor noise.
HostImage flickerFrame(int offset, std::uint32_t seed) {
    HostImage f(160, 120, 1, SampleType::U8);
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 2.0);
    for (int y = 0; y < 120; ++y)
        for (int x = 0; x < 160; ++x) {
            const double base = 60 + 50 * std::sin(x * 0.05) * std::cos(y * 0.07) + 0.4 * x;
            f.setSample(x, y, 0, std::clamp(std::round(base + offset + noise(rng)), 0.0, 255.0));
        }
    return f;
}

// A lamp-lit scene: a static textured background, and the right quarter of the frame (the lamp's pool of light)
// swinging by ±80 levels, so that the frame's global brightness flickers by ±20 levels from frame to frame.
constexpr int kLampX = 120;
HostImage lampFrame(int t) {
    HostImage f = flickerFrame(0, 7000 + t);
    const int swing = t % 2 ? 80 : -80;
    for (int y = 0; y < 120; ++y)
        for (int x = kLampX; x < 160; ++x) f.setSample(x, y, 0, std::clamp(130.0 + swing + (x + y) % 7, 0.0, 255.0));
    return f;
}

double meanOf(const HostImage& img, int x0 = 0, int x1 = -1) {
    if (x1 < 0) x1 = img.width();
    double s = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = x0; x < x1; ++x) s += img.sample(x, y, 0);
    return s / (double(x1 - x0) * img.height());
}

struct Jitter { double frame, background, inputFrame; };

// Mean |Δ mean| between consecutive frames (after a warm-up): of the whole output, of the output's static
// background, and of the whole input.
Jitter outputJitter(const EqualizeDesc& d, int frames) {
    auto eq = makeEqualizer(d, SampleType::U8, 1, Backend::Cpu);
    std::vector<double> whole, background, input;
    for (int t = 0; t < frames; ++t) {
        HostImage src = lampFrame(t);
        HostImage out = run(*eq, src);
        whole.push_back(meanOf(out));
        background.push_back(meanOf(out, kLampX - 40, kLampX));  // the static band next to the lamp
        input.push_back(meanOf(src));
    }
    Jitter j{0, 0, 0};
    int n = 0;
    for (int t = frames / 3; t < frames; ++t, ++n) {
        j.frame += std::abs(whole[t] - whole[t - 1]);
        j.background += std::abs(background[t] - background[t - 1]);
        j.inputFrame += std::abs(input[t] - input[t - 1]);
    }
    return {j.frame / n, j.background / n, j.inputFrame / n};
}

}  // namespace

// Pumping: per-frame equalization re-maps the frame (global) or the lamp's tiles and their neighbours (CLAHE) whenever
// part of it changes, so the static background next to the lamp jumps with it. The smoothed equalizer must hold the background steady (≥ 5× less jitter at
// α = 0.9). The whole frame's mean is reported too: it cannot drop, because the lamp itself really changes (and
// per-frame equalization flattens every frame's mean towards mid-grey, which is why a pure global offset flicker
// is already cancelled at α = 0 -- see HisteqSmoothing.PureOffsetFlickerIsCancelledPerFrame).
TEST(HisteqSmoothing, FlickerJitterDropsAtAlpha09) {
    for (SmoothTarget target : {SmoothTarget::Histogram, SmoothTarget::Lut})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
            d.smoothTarget = target;
            d.smoothing = 0;
            const Jitter perFrame = outputJitter(d, 60);
            d.smoothing = 0.9;
            const Jitter smoothed = outputJitter(d, 60);
            std::printf("jitter %-6s %-13s input %.1f | background: alpha 0 %.2f, alpha 0.9 %.2f (%.1fx) | "
                        "whole frame: alpha 0 %.2f, alpha 0.9 %.2f\n",
                        equalizeModeName(d.mode), target == SmoothTarget::Lut ? "lut-ema" : "histogram-ema",
                        perFrame.inputFrame, perFrame.background, smoothed.background,
                        perFrame.background / smoothed.background, perFrame.frame, smoothed.frame);
            EXPECT_NEAR(perFrame.inputFrame, 40.0, 2.0);  // ±20 levels of global brightness
            if (d.mode == EqualizeMode::Global) {
                EXPECT_GE(perFrame.background / smoothed.background, 5.0);
            } else {
                // CLAHE barely pumps (its tiles are local and clip-limited): under a level per frame at α = 0.
                EXPECT_LT(perFrame.background, 1.0);
                EXPECT_LE(smoothed.background, perFrame.background);
                EXPECT_LT(smoothed.background, 0.25);
            }
        }
}

TEST(HisteqSmoothing, PureOffsetFlickerIsCancelledPerFrame) {
    // A frame shifted by ±20 levels as a whole equalizes to (nearly) the same output: nothing left to smooth.
    auto eq = makeEqualizer(EqualizeDesc{}, SampleType::U8, 1, Backend::Cpu);
    HostImage dark = flickerFrame(-20, 1), bright = flickerFrame(20, 1);
    EXPECT_LT(std::abs(meanOf(run(*eq, dark)) - meanOf(run(*eq, bright))), 2.0);
}

TEST(HisteqSmoothing, StaticClipConvergesToThePerFrameResult) {
    for (SmoothTarget target : {SmoothTarget::Histogram, SmoothTarget::Lut})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
            HostImage first = flickerFrame(-20, 1), still = flickerFrame(10, 2);
            HostImage expected = run(EqualizePlan::make(d, SampleType::U8, 1), reference::Impl::Reference, still);
            d.smoothing = 0.9;
            d.smoothTarget = target;
            auto eq = makeEqualizer(d, SampleType::U8, 1, Backend::Cpu);
            run(*eq, first);
            HostImage out;
            for (int t = 0; t < 200; ++t) out = run(*eq, still);
            EXPECT_EQ(compareImages(expected, out).differing, 0) << equalizeModeName(d.mode);
        }
}

TEST(HisteqSmoothing, AlphaZeroIsExactlyPerFrameAndResetForgets) {
    EqualizeDesc d = clahe(2, 4, 4);
    auto eq = makeEqualizer(d, SampleType::U8, 1, Backend::Cpu);
    for (int t = 0; t < 3; ++t) {
        HostImage src = flickerFrame(t * 10, t);
        HostImage fresh = run(EqualizePlan::make(d, SampleType::U8, 1), reference::Impl::Reference, src);
        EXPECT_EQ(compareImages(fresh, run(*eq, src)).differing, 0);
    }
    d.smoothing = 0.95;
    auto smooth = reference::makeEqualizer(d, SampleType::U8, 1);
    HostImage a = flickerFrame(-20, 1), b = flickerFrame(20, 2);
    run(*smooth, a);
    smooth->reset();
    HostImage afterReset = run(*smooth, b);
    HostImage fresh = run(EqualizePlan::make(d, SampleType::U8, 1), reference::Impl::Reference, b);
    EXPECT_EQ(compareImages(fresh, afterReset).differing, 0);
}

TEST(HisteqStatistics, HistogramMeanMinMaxOfTheEqualizedInput) {
    EqualizeDesc d;
    d.statistics = true;
    for (reference::Impl b : {reference::Impl::Reference, reference::Impl::Cpu}) {
        auto eq = reference::makeEqualizer(EqualizePlan::make(d, SampleType::U8, 1), b);
        FrameStatistics s;
        EXPECT_FALSE(eq->statistics(s));
        HostImage src(33, 21, 1, SampleType::U8);
        fillPattern(src, Pattern::Random, 3);
        run(*eq, src);
        ASSERT_TRUE(eq->statistics(s));
        std::array<std::uint32_t, 256> h{};
        double sum = 0, lo = 255, hi = 0;
        for (int y = 0; y < 21; ++y)
            for (int x = 0; x < 33; ++x) {
                const double v = src.sample(x, y, 0);
                ++h[int(v)];
                sum += v;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        EXPECT_EQ(s.histogram, h);
        EXPECT_EQ(s.samples, 33u * 21u);
        EXPECT_DOUBLE_EQ(s.mean, sum / (33 * 21));
        EXPECT_EQ(s.min, lo);
        EXPECT_EQ(s.max, hi);
        EXPECT_EQ(s.frame, 0u);
        EXPECT_FALSE(eq->statistics(s, 1));
    }
    d.statistics = false;
    auto off = reference::makeEqualizer(d, SampleType::U8, 1);
    HostImage src(8, 8, 1, SampleType::U8);
    run(*off, src);
    FrameStatistics s;
    EXPECT_FALSE(off->statistics(s));
}

TEST(HisteqStatistics, LumaStatisticsAreOfY) {
    EqualizeDesc d;
    d.statistics = true;
    HostImage src(20, 10, 3, SampleType::U8);
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 20; ++x) {
            src.setSample(x, y, 0, 255);  // pure red: Y = 76
            src.setSample(x, y, 1, 0);
            src.setSample(x, y, 2, 0);
        }
    auto eq = reference::makeEqualizer(d, SampleType::U8, 3);
    run(*eq, src);
    FrameStatistics s;
    ASSERT_TRUE(eq->statistics(s));
    EXPECT_EQ(s.min, 76u);
    EXPECT_EQ(s.max, 76u);
    EXPECT_EQ(s.histogram[76], 200u);
}

namespace {

void expectRejected(const EqualizeDesc& d, const char* needle, SampleType t = SampleType::U8, int channels = 1,
                    ChannelOrder order = {}) {
    try {
        EqualizePlan::make(d, t, channels, order);
        ADD_FAILURE() << "accepted; expected a message containing '" << needle << "'";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(HisteqValidation, RejectsZeroTilesX) { expectRejected(clahe(2, 0, 8), "tile grid"); }
TEST(HisteqValidation, RejectsZeroTilesY) { expectRejected(clahe(2, 8, 0), "tile grid"); }
TEST(HisteqValidation, RejectsNegativeTiles) { expectRejected(clahe(2, -1, 8), "tile grid"); }
TEST(HisteqValidation, RejectsTooManyTiles) { expectRejected(clahe(2, kMaxTiles + 1, 8), "tile grid"); }
TEST(HisteqValidation, Rejects16BitGridBeyondTheTableLimit) {
    expectRejected(clahe(2, 17, 16), "at most 256 tiles", SampleType::U16);
    EXPECT_NO_THROW(EqualizePlan::make(clahe(2, 16, 16), SampleType::U16, 1));
    EXPECT_NO_THROW(EqualizePlan::make(clahe(2, kMaxTiles, kMaxTiles), SampleType::U8, 1));
    EqualizeDesc global = clahe(2, 64, 64);
    global.mode = EqualizeMode::Global;  // tiles only matter for CLAHE
    EXPECT_NO_THROW(EqualizePlan::make(global, SampleType::U16, 1));
}
TEST(HisteqValidation, RejectsNegativeClip) { expectRejected(clahe(-1, 8, 8), "clip limit"); }
TEST(HisteqValidation, RejectsNaNClip) {
    expectRejected(clahe(std::numeric_limits<double>::quiet_NaN(), 8, 8), "clip limit");
}
TEST(HisteqValidation, RejectsInfiniteClip) {
    expectRejected(clahe(std::numeric_limits<double>::infinity(), 8, 8), "clip limit");
}
TEST(HisteqValidation, RejectsNegativeSmoothing) {
    EqualizeDesc d;
    d.smoothing = -0.1;
    expectRejected(d, "smoothing");
}
TEST(HisteqValidation, RejectsSmoothingOfOne) {
    EqualizeDesc d;
    d.smoothing = 1.0;
    expectRejected(d, "smoothing");
}
TEST(HisteqValidation, RejectsNaNSmoothing) {
    EqualizeDesc d;
    d.smoothing = std::numeric_limits<double>::quiet_NaN();
    expectRejected(d, "smoothing");
}
TEST(HisteqValidation, RejectsFiveChannels) { expectRejected({}, "1 to 4", SampleType::U8, 5); }
// Two channels are Y/chroma pairs of packed 4:2:2: 8-bit only.
TEST(HisteqValidation, RejectsSixteenBitPairs) { expectRejected({}, "Y/chroma pair", SampleType::U16, 2); }
TEST(HisteqValidation, RejectsChannelIndexOutsidePixel) {
    expectRejected({}, "outside", SampleType::U8, 3, ChannelOrder::argb());
}
TEST(HisteqValidation, RejectsRepeatedChannel) { expectRejected({}, "distinct", SampleType::U8, 3, {0, 0, 2}); }
TEST(HisteqValidation, RejectsTilesWiderThanTheFrame) {
    auto eq = reference::makeEqualizer(clahe(2, 8, 2), SampleType::U8, 1);
    HostImage src(7, 20, 1, SampleType::U8), dst(7, 20, 1, SampleType::U8);
    try {
        eq->process(src.view(), dst.view());
        ADD_FAILURE() << "accepted an 8-tile grid on a 7-pixel-wide frame";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos) << e.what();
    }
}
TEST(HisteqValidation, RejectsTilesTallerThanTheFrame) {
    auto eq = makeEqualizer(clahe(2, 2, 8), SampleType::U8, 1, Backend::Cpu);
    HostImage src(20, 5, 1, SampleType::U8), dst(20, 5, 1, SampleType::U8);
    EXPECT_THROW(eq->process(src.view(), dst.view()), InvalidArgument);
}
TEST(HisteqValidation, RejectsMismatchedImages) {
    auto eq = reference::makeEqualizer(EqualizeDesc{}, SampleType::U8, 1);
    HostImage src(20, 5, 1, SampleType::U8), dst(20, 6, 1, SampleType::U8), rgb(20, 5, 3, SampleType::U8);
    EXPECT_THROW(eq->process(src.view(), dst.view()), InvalidArgument);
    EXPECT_THROW(eq->process(rgb.view(), rgb.view()), InvalidArgument);
}
TEST(HisteqValidation, CudaBackendWithoutCudaIsACudaError) {
    if (backendAvailable(Backend::Cuda)) GTEST_SKIP() << "a CUDA device is present";
    EXPECT_THROW(makeCudaEqualizer(EqualizePlan::make({}, SampleType::U8, 1)), CudaError);
}

namespace {

// Equalizer::retune on the host backends.
class HostEqualizerRetune : public ::testing::TestWithParam<reference::Impl> {};

// A sequence whose content changes from frame to frame, so that a smoothed state and a restarted one differ.
HostImage sequenceFrame(int t, int channels = 1) {
    HostImage img(97, 61, channels, SampleType::U8, 9);
    fillPattern(img, allPatterns()[std::size_t(t) % allPatterns().size()], 100 + t);
    return img;
}

void expectPlanValues(const EqualizePlan& actual, const EqualizePlan& expected) {
    EXPECT_EQ(actual.clipLimit, expected.clipLimit);
    EXPECT_EQ(actual.tilesX, expected.tilesX);
    EXPECT_EQ(actual.tilesY, expected.tilesY);
    EXPECT_EQ(actual.smoothing, expected.smoothing);
    EXPECT_EQ(actual.mode, expected.mode);
}

}  // namespace

// Without smoothing: a new clip limit and a smaller grid are taken, and the output is that of a fresh equalizer.
TEST_P(HostEqualizerRetune, ValuesOnlyGiveTheFreshResult) {
    const EqualizePlan a = EqualizePlan::make(clahe(2, 8, 8), SampleType::U8, 3, ChannelOrder::bgr());
    const EqualizePlan b = EqualizePlan::make(clahe(4.5, 4, 6), SampleType::U8, 3, ChannelOrder::bgr());
    auto eq = reference::makeEqualizer(a, GetParam());
    HostImage f0 = sequenceFrame(0, 3), f1 = sequenceFrame(1, 3);
    HostImage before = run(*eq, f0);
    ASSERT_TRUE(eq->retune(b));
    expectPlanValues(eq->plan(), b);
    HostImage after = run(*eq, f1);
    EXPECT_EQ(compareImages(after, run(b, GetParam(), f1)).differing, 0);
    EXPECT_GT(compareImages(run(a, GetParam(), f1), after).differing, 0) << "the new values changed nothing";
    EXPECT_EQ(eq->frameCount(), 2u);

    EqualizeDesc global;
    global.clipLimit = 9;  // unused by the global mode, but the plan says what was asked
    const EqualizePlan g = EqualizePlan::make(EqualizeDesc{}, SampleType::U8, 1);
    const EqualizePlan g2 = EqualizePlan::make(global, SampleType::U8, 1);
    auto geq = reference::makeEqualizer(g, GetParam());
    ASSERT_TRUE(geq->retune(g2));
    expectPlanValues(geq->plan(), g2);
    HostImage plane = sequenceFrame(2);
    EXPECT_EQ(compareImages(run(*geq, plane), run(g, GetParam(), plane)).differing, 0);
}

// Clip limit ramped under smoothing: the histogram EMA is not restarted. Independent model: an equalizer made with
// the new clip limit and fed the same earlier frames (the histogram state does not depend on the clip limit).
TEST_P(HostEqualizerRetune, ClipLimitKeepsTheSmoothedState) {
    EqualizeDesc d = clahe(2, 4, 4);
    d.smoothing = 0.9;
    const EqualizePlan a = EqualizePlan::make(d, SampleType::U8, 1);
    d.clipLimit = 6;
    const EqualizePlan b = EqualizePlan::make(d, SampleType::U8, 1);
    auto eq = reference::makeEqualizer(a, GetParam());
    auto model = reference::makeEqualizer(b, GetParam());
    for (int t = 0; t < 4; ++t) {
        HostImage f = sequenceFrame(t);
        run(*eq, f);
        run(*model, f);
    }
    ASSERT_TRUE(eq->retune(b));
    expectPlanValues(eq->plan(), b);
    for (int t = 4; t < 7; ++t) {
        HostImage f = sequenceFrame(t);
        HostImage out = run(*eq, f);
        EXPECT_EQ(compareImages(out, run(*model, f)).differing, 0) << "frame " << t;
        if (t == 4) EXPECT_GT(compareImages(out, run(b, GetParam(), f)).differing, 0) << "the state was restarted";
    }
}

// Another grid within the tables: taken, and the state restarts (its tile histograms belong to the old grid).
TEST_P(HostEqualizerRetune, AnotherGridRestartsTheState) {
    EqualizeDesc d = clahe(2, 8, 8);
    d.smoothing = 0.8;
    auto eq = reference::makeEqualizer(EqualizePlan::make(d, SampleType::U8, 1), GetParam());
    for (int t = 0; t < 3; ++t) {
        HostImage f = sequenceFrame(t);
        run(*eq, f);
    }
    d.tilesX = 16;
    d.tilesY = 4;  // 64 tiles, as many as 8 x 8
    const EqualizePlan b = EqualizePlan::make(d, SampleType::U8, 1);
    ASSERT_TRUE(eq->retune(b));
    expectPlanValues(eq->plan(), b);
    auto restarted = reference::makeEqualizer(b, GetParam());
    for (int t = 3; t < 5; ++t) {
        HostImage f = sequenceFrame(t);
        EXPECT_EQ(compareImages(run(*eq, f), run(*restarted, f)).differing, 0) << "frame " << t;
    }
}

// A larger grid, another mode, smoothing switched on or off, statistics, colour mode, target: refused, and the
// equalizer goes on exactly as if nothing had been asked (state kept).
TEST_P(HostEqualizerRetune, OtherShapesAreRefusedAndChangeNothing) {
    EqualizeDesc d = clahe(3, 4, 4);
    d.smoothing = 0.7;
    const EqualizePlan a = EqualizePlan::make(d, SampleType::U8, 3);
    std::vector<std::pair<std::string, EqualizePlan>> others;
    EqualizeDesc o = d;
    o.tilesX = 5;
    others.emplace_back("larger grid", EqualizePlan::make(o, SampleType::U8, 3));
    o = d;
    o.mode = EqualizeMode::Global;
    others.emplace_back("mode", EqualizePlan::make(o, SampleType::U8, 3));
    o = d;
    o.smoothing = 0;
    others.emplace_back("smoothing off", EqualizePlan::make(o, SampleType::U8, 3));
    o = d;
    o.statistics = true;
    others.emplace_back("statistics", EqualizePlan::make(o, SampleType::U8, 3));
    o = d;
    o.colorMode = ColorMode::PerChannel;
    others.emplace_back("colour mode", EqualizePlan::make(o, SampleType::U8, 3));
    o = d;
    o.smoothTarget = SmoothTarget::Lut;
    others.emplace_back("smoothing target", EqualizePlan::make(o, SampleType::U8, 3));
    others.emplace_back("channels", EqualizePlan::make(d, SampleType::U8, 4));
    others.emplace_back("order", EqualizePlan::make(d, SampleType::U8, 3, ChannelOrder::bgr()));
    others.emplace_back("sample type", EqualizePlan::make(d, SampleType::U16, 3));

    auto eq = reference::makeEqualizer(a, GetParam());
    auto model = reference::makeEqualizer(a, GetParam());
    for (std::size_t i = 0; i < others.size(); ++i) {
        HostImage f = sequenceFrame(int(i), 3);
        EXPECT_FALSE(eq->retune(others[i].second)) << others[i].first;
        expectPlanValues(eq->plan(), a);
        EXPECT_EQ(compareImages(run(*eq, f), run(*model, f)).differing, 0) << others[i].first;
    }

    EqualizeDesc plain = clahe(3, 4, 4);
    auto unsmoothed = reference::makeEqualizer(EqualizePlan::make(plain, SampleType::U8, 1), GetParam());
    plain.smoothing = 0.5;
    EXPECT_FALSE(unsmoothed->retune(EqualizePlan::make(plain, SampleType::U8, 1))) << "smoothing on";
}

INSTANTIATE_TEST_SUITE_P(Backends, HostEqualizerRetune,
                         ::testing::Values(reference::Impl::Cpu, reference::Impl::Reference),
                         [](const auto& info) { return std::string(reference::implName(info.param)); });
