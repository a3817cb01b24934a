// SPDX-License-Identifier: LGPL-2.1-or-later
// Histogram equalization on CUDA: bit-exact against the reference (itself bit-exact against OpenCV, see
// test_histeq_cpu.cpp) and against the CPU backend (OpenCV when built with it), on pitched device images whose padding
// must stay untouched. Skipped without a CUDA device.
#include "histeq_frames.hpp"
#include "reference.hpp"

#include <cudafilters/device.hpp>
#include <cudafilters/error.hpp>
#include <cudafilters/histeq.hpp>

#include <gtest/gtest.h>

#ifdef CUDAFILTERS_HAVE_CUDA
#include "graph_kernels.hpp"
#include "histeq_launch.hpp"

#include <cudafilters/cuda_raii.hpp>
#endif

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace cudafilters;
using namespace cudafilters::test;

#define REQUIRE_GPU()                                                                  \
    do {                                                                               \
        if (cudafilters::cudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";     \
    } while (0)

#ifdef CUDAFILTERS_HAVE_CUDA

namespace {

constexpr std::uint8_t kDevicePoison = 0xC3;

// A device copy of a host image with its own pitch: `aligned` = 16-byte multiple (the vectorised paths), else an odd
// pitch; the view starts `offset` bytes into its allocation. The bytes around the rows are poisoned and checked on
// download.
struct DeviceFrame {
    DeviceBuffer buffer;
    std::size_t pitch = 0, rowBytes = 0, offset = 0;
    int width = 0, height = 0, channels = 1;
    SampleType type = SampleType::U8;

    // A destination: width × height samples of 0x5A (a poison no output matches by chance), laid out as above.
    DeviceFrame(int w, int h, int ch, SampleType t, bool aligned, std::size_t byteOffset = 0)
        : DeviceFrame(poisonImage(w, h, ch, t), aligned, byteOffset) {}
    static HostImage poisonImage(int w, int h, int ch, SampleType t) {
        HostImage poison(w, h, ch, t);
        poison.fillRows(0x5A);
        return poison;
    }
    DeviceFrame(const HostImage& img, bool aligned, std::size_t byteOffset = 0) : offset(byteOffset) {
        width = img.width();
        height = img.height();
        channels = img.channels();
        type = img.type();
        rowBytes = img.rowBytes();
        pitch = aligned ? (rowBytes + 15) / 16 * 16 + 32 : rowBytes + (type == SampleType::U16 ? 6 : 3);
        if (!aligned && pitch % 16 == 0) pitch += type == SampleType::U16 ? 2 : 1;  // never 16k (3 · (width + 1))
        buffer.reserve(offset + pitch * height);
        std::vector<std::uint8_t> staging(offset + pitch * height, kDevicePoison);
        for (int y = 0; y < height; ++y)
            std::memcpy(&staging[offset + y * pitch], img.bytes() + y * img.pitch(), rowBytes);
        CUDAFILTERS_CHECK(cudaMemcpy(buffer.data(), staging.data(), staging.size(), cudaMemcpyHostToDevice));
    }
    ImageView view() const {
        ImageView v;
        v.data = static_cast<std::uint8_t*>(buffer.data()) + offset;
        v.width = width;
        v.height = height;
        v.pitch = pitch;
        v.type = type;
        v.channels = channels;
        return v;
    }
    HostImage download() const {
        std::vector<std::uint8_t> staging(offset + pitch * height);
        CUDAFILTERS_CHECK(cudaMemcpy(staging.data(), buffer.data(), staging.size(), cudaMemcpyDeviceToHost));
        for (std::size_t b = 0; b < offset; ++b) EXPECT_EQ(staging[b], kDevicePoison) << "written before the view";
        for (int y = 0; y < height; ++y)
            for (std::size_t b = rowBytes; b < pitch; ++b)
                EXPECT_EQ(staging[offset + y * pitch + b], kDevicePoison) << "device padding written in row " << y;
        HostImage out(width, height, channels, type, 5);
        for (int y = 0; y < height; ++y)
            std::memcpy(out.bytes() + y * out.pitch(), &staging[offset + y * pitch], rowBytes);
        return out;
    }
};

HostImage runCuda(Equalizer& eq, HostImage& src, bool aligned, GpuStream stream = nullptr) {
    DeviceFrame in(src, aligned);
    DeviceFrame out(src.width(), src.height(), src.channels(), src.type(), aligned);
    // cudaMemcpy from pageable memory may return before its DMA has landed, and that copy is on the legacy stream,
    // which a non-blocking `stream` does not wait for.
    if (stream) CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    eq.process(in.view(), out.view(), stream);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    return out.download();
}

HostImage runHost(Equalizer& eq, HostImage& src) {
    HostImage dst(src.width(), src.height(), src.channels(), src.type(), 7);
    eq.process(src.view(), dst.view());
    return dst;
}

EqualizeDesc clahe(double clip, int tx, int ty) {
    EqualizeDesc d;
    d.mode = EqualizeMode::Clahe;
    d.clipLimit = clip;
    d.tilesX = tx;
    d.tilesY = ty;
    return d;
}

// CUDA against the reference and the CPU backend, aligned and odd pitches.
void expectCudaExact(const EqualizeDesc& d, SampleType t, int channels, ChannelOrder order, HostImage& src,
                     const std::string& what, SampleBits bits = {}, int lumaChannel = 0) {
    const auto plan = EqualizePlan::make(d, t, channels, order, bits, lumaChannel);
    auto ref = reference::makeEqualizer(plan);
    HostImage expected = runHost(*ref, src);
    if (d.smoothing == 0) {
        auto cpu = makeCpuEqualizer(plan);
        HostImage viaCpu = runHost(*cpu, src);
        const Difference dc = compareImages(expected, viaCpu);
        ASSERT_EQ(dc.differing, 0) << what << " reference vs cpu: " << describe(dc);
    }
    for (bool aligned : {true, false}) {
        auto eq = makeCudaEqualizer(plan);
        HostImage out = runCuda(*eq, src, aligned);
        const Difference diff = compareImages(expected, out);
        EXPECT_EQ(diff.differing, 0) << what << (aligned ? " aligned" : " odd pitch") << ": " << describe(diff);
    }
}

const std::vector<Size2> kSizes{{64, 48}, {333, 177}, {97, 61}, {16, 16}, {1, 1}, {1920, 1080}};

}  // namespace

TEST(HisteqGpu, GlobalGray8MatchesReference) {
    REQUIRE_GPU();
    for (Size2 s : kSizes)
        for (Pattern p : allPatterns()) {
            HostImage src(s.w, s.h, 1, SampleType::U8);
            fillPattern(src, p, 7 + s.w);
            expectCudaExact(EqualizeDesc{}, SampleType::U8, 1, {}, src, "global " + sizeName(s) + " " + patternName(p));
        }
}

TEST(HisteqGpu, ClaheGray8MatchesReference) {
    REQUIRE_GPU();
    for (Size2 s : kSizes)
        for (auto [tx, ty] : std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {8, 8}, {16, 16}}) {
            if (tx > s.w || ty > s.h) continue;
            for (double clip : {0.0, 1.0, 2.0, 4.0, 40.0})
                for (Pattern p : allPatterns()) {
                    if (s.w * s.h > 100000 && p != Pattern::Random && p != Pattern::Blobs) continue;
                    HostImage src(s.w, s.h, 1, SampleType::U8);
                    fillPattern(src, p, 5 + s.h);
                    expectCudaExact(clahe(clip, tx, ty), SampleType::U8, 1, {}, src,
                                    "clahe " + sizeName(s) + " grid " + std::to_string(tx) + "x" + std::to_string(ty) +
                                        " clip " + std::to_string(clip) + " " + patternName(p));
                }
        }
}

TEST(HisteqGpu, ClaheGridAsLargeAsTheFrame) {
    REQUIRE_GPU();
    HostImage src(8, 13, 1, SampleType::U8);
    fillPattern(src, Pattern::Random, 5);
    expectCudaExact(clahe(2, 8, 4), SampleType::U8, 1, {}, src, "8x13 grid 8x4");
}

TEST(HisteqGpu, Gray16MatchesReference) {
    REQUIRE_GPU();
    // 5 × 3: a row shorter than one 8-sample chunk, on tiles of a pixel or two (the vector kernel's columns past
    // the row end lie outside the grid: they must not be looked up; compute-sanitizer memcheck checks it).
    for (Size2 s : {Size2{211, 97}, Size2{5, 3}})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 2, 3), clahe(40, 3, 2)})
            for (Pattern p : {Pattern::Random, Pattern::Blobs, Pattern::Uniform, Pattern::TwoLevel}) {
                if (d.mode == EqualizeMode::Clahe && (d.tilesX > s.w || d.tilesY > s.h)) continue;
                HostImage src(s.w, s.h, 1, SampleType::U16);
                fillPattern(src, p, 31);
                expectCudaExact(d, SampleType::U16, 1, {}, src,
                                std::string("u16 ") + sizeName(s) + " " + equalizeModeName(d.mode) + " " +
                                    patternName(p));
            }
}

// I420_10LE and P010_10LE luma: 1024 bins at runtime in the u16 kernels, levels read as sample >> shift and stored
// back in the container's bits; statistics on levels.
TEST(HisteqGpu, TenBitMatchesReference) {
    REQUIRE_GPU();
    for (SampleBits bits : {SampleBits::low(10), SampleBits::high(10)})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 2, 3), clahe(40, 16, 16)})
            for (Pattern p : {Pattern::Random, Pattern::Blobs, Pattern::Uniform, Pattern::TwoLevel}) {
                HostImage src(211, 97, 1, SampleType::U16);
                fillPattern(src, p, 31);
                toTenBit(src, bits);
                expectCudaExact(d, SampleType::U16, 1, {}, src,
                                "10-bit at " + std::to_string(bits.shift) + " " + equalizeModeName(d.mode) + " " +
                                    patternName(p),
                                bits);
            }
    for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 7, 5)}) {
        d.statistics = true;
        d.smoothing = 0.5;
        auto ref = reference::makeEqualizer(d, SampleType::U16, 1, {}, SampleBits::high(10));
        auto gpu = makeEqualizer(d, SampleType::U16, 1, Backend::Cuda, {}, SampleBits::high(10));
        for (int frame = 0; frame < 3; ++frame) {
            HostImage src(203, 101, 1, SampleType::U16);
            fillPattern(src, frame == 1 ? Pattern::Uniform : Pattern::Blobs, frame);
            toTenBit(src, SampleBits::high(10));
            const HostImage expected = runHost(*ref, src);
            const Difference diff = compareImages(expected, runCuda(*gpu, src, frame != 2));
            EXPECT_EQ(diff.differing, 0) << "smoothed P010 frame " << frame << ": " << describe(diff);
            FrameStatistics e, g;
            ASSERT_TRUE(ref->statistics(e));
            ASSERT_TRUE(gpu->statistics(g));
            EXPECT_EQ(e.histogram, g.histogram);
            EXPECT_DOUBLE_EQ(e.mean, g.mean);
            EXPECT_EQ(e.min, g.min);
            EXPECT_EQ(e.max, g.max);
        }
    }
}

// Packed 4:2:2 as Y/chroma pairs (2 u8 channels, Y at 0 or 1): Y equalized, chroma kept.
TEST(HisteqGpu, LumaPairsMatchReference) {
    REQUIRE_GPU();
    for (Size2 s : std::vector<Size2>{{1, 1}, {98, 45}, {101, 7}, {1920, 1080}})
        for (int luma : {0, 1})
            for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8), clahe(0, 1, 1)}) {
                if (d.mode == EqualizeMode::Clahe && (d.tilesX > s.w || d.tilesY > s.h)) continue;
                HostImage src(s.w, s.h, 2, SampleType::U8);
                fillPattern(src, Pattern::Blobs, 3 + luma);
                expectCudaExact(d, SampleType::U8, 2, {}, src,
                                "pairs " + sizeName(s) + " Y at " + std::to_string(luma) + " " +
                                    equalizeModeName(d.mode),
                                {}, luma);
            }
}

TEST(HisteqGpu, ColourModesMatchReference) {
    REQUIRE_GPU();
    struct Layout { int channels; ChannelOrder order; const char* name; };
    const Layout layouts[] = {{3, ChannelOrder::rgb(), "RGB"}, {3, ChannelOrder::bgr(), "BGR"},
                              {4, ChannelOrder::rgb(), "RGBA"}, {4, ChannelOrder::argb(), "ARGB"},
                              {4, ChannelOrder::abgr(), "ABGR"}};
    for (SampleType t : {SampleType::U8, SampleType::U16})
        for (const Layout& l : layouts)
            for (ColorMode cm : {ColorMode::Luma, ColorMode::PerChannel})
                for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
                    d.colorMode = cm;
                    HostImage src(123, 71, l.channels, t);
                    fillPattern(src, Pattern::Blobs, 3);
                    expectCudaExact(d, t, l.channels, l.order, src,
                                    std::string(sampleTypeName(t)) + " " + l.name + " " + colorModeName(cm) + " " +
                                        equalizeModeName(d.mode));
                }
}

TEST(HisteqGpu, SmoothedSequencesMatchReferenceAcrossStreams) {
    REQUIRE_GPU();
    Stream a = Stream::create(), b = Stream::create();
    for (SmoothTarget target : {SmoothTarget::Histogram, SmoothTarget::Lut})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
            d.smoothing = 0.9;
            d.smoothTarget = target;
            auto ref = reference::makeEqualizer(d, SampleType::U8, 1);
            auto gpu = makeEqualizer(d, SampleType::U8, 1, Backend::Cuda);
            for (int t = 0; t < 8; ++t) {
                if (t == 5) {
                    ref->reset();
                    gpu->reset();
                }
                HostImage src(320, 180, 1, SampleType::U8);
                fillPattern(src, t % 2 ? Pattern::Blobs : Pattern::Random, 100 + t);
                HostImage expected = runHost(*ref, src);
                HostImage out = runCuda(*gpu, src, t % 3 != 0, t % 2 ? a.get() : b.get());
                const Difference diff = compareImages(expected, out);
                EXPECT_EQ(diff.differing, 0) << equalizeModeName(d.mode) << " frame " << t << ": " << describe(diff);
            }
        }
}

TEST(HisteqGpu, StatisticsMatchReference) {
    REQUIRE_GPU();
    for (int channels : {1, 3})
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 7, 5)})
            for (SampleType t : {SampleType::U8, SampleType::U16}) {
                d.statistics = true;
                d.colorMode = ColorMode::PerChannel;
                auto ref = reference::makeEqualizer(d, t, channels);
                auto gpu = makeEqualizer(d, t, channels, Backend::Cuda);
                for (int frame = 0; frame < 3; ++frame) {
                    HostImage src(203, 101, channels, t);
                    fillPattern(src, frame == 1 ? Pattern::Uniform : Pattern::Blobs, frame);
                    runHost(*ref, src);
                    runCuda(*gpu, src, frame != 2);
                    FrameStatistics e, g;
                    ASSERT_TRUE(ref->statistics(e));
                    ASSERT_TRUE(gpu->statistics(g));
                    EXPECT_EQ(e.histogram, g.histogram);
                    EXPECT_EQ(e.samples, g.samples);
                    EXPECT_DOUBLE_EQ(e.mean, g.mean);
                    EXPECT_EQ(e.min, g.min);
                    EXPECT_EQ(e.max, g.max);
                    EXPECT_EQ(g.frame, std::uint64_t(frame));
                }
            }
}

TEST(HisteqGpu, InPlace) {
    REQUIRE_GPU();
    for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
        HostImage src(257, 130, 1, SampleType::U8);
        fillPattern(src, Pattern::Blobs, 9);
        auto ref = reference::makeEqualizer(d, SampleType::U8, 1);
        HostImage expected = runHost(*ref, src);
        auto gpu = makeEqualizer(d, SampleType::U8, 1, Backend::Cuda);
        DeviceFrame frame(src, true);
        gpu->process(frame.view(), frame.view());
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        HostImage out = frame.download();
        EXPECT_EQ(compareImages(expected, out).differing, 0) << equalizeModeName(d.mode);
    }
}

// Stress of the frame-to-frame hand-offs (the last block per tile building the LUT and leaving the scratch zeroed for
// the next frame, the temporal state, the statistics): many smoothed frames enqueued back to back, with no host
// synchronisation between them, on three rotating non-blocking streams; in place and not; vectorised (16-byte aligned)
// and scalar (odd pitch) paths; global and CLAHE; a reset mid-sequence; every frame and its statistics against the
// reference. Timing-dependent races show best under compute-sanitizer (memcheck / racecheck / synccheck), which
// reorders warps and blocks.
TEST(HisteqGpu, StressSmoothedFramesAcrossStreamsInPlace) {
    REQUIRE_GPU();
    constexpr int kFrames = 7 * kStatisticsDepth;  // 56, in batches of the statistics the equalizers hold
    constexpr int kResetFrame = 29;
    constexpr int kStreams = 3;
    std::vector<Stream> streams;
    for (int i = 0; i < kStreams; ++i) streams.push_back(Stream::create());

    struct Config { Size2 size; int channels; };
    const Config configs[] = {{{333, 177}, 1}, {{1920, 1080}, 1}, {{333, 177}, 3}};
    const Pattern patterns[] = {Pattern::Random,  Pattern::Blobs,    Pattern::Uniform, Pattern::LowContrastGradient,
                                Pattern::Random,  Pattern::TwoLevel, Pattern::Blobs};
    for (const Config& cfg : configs) {
        std::vector<HostImage> pool;  // the frames' contents, cycled
        pool.reserve(std::size(patterns));
        for (int i = 0; i < int(std::size(patterns)); ++i) {
            pool.emplace_back(cfg.size.w, cfg.size.h, cfg.channels, SampleType::U8);
            fillPattern(pool.back(), patterns[i], 1000 + 17 * i);
        }
        auto sourceOf = [&](int t) -> HostImage& { return pool[(t * 3 + t / 7) % pool.size()]; };
        for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)})
            for (SmoothTarget target : {SmoothTarget::Histogram, SmoothTarget::Lut}) {
                d.smoothing = 0.75;
                d.smoothTarget = target;
                d.statistics = true;
                d.colorMode = ColorMode::PerChannel;
                const std::string what = std::string(equalizeModeName(d.mode)) + " " + sizeName(cfg.size) + " " +
                                         std::to_string(cfg.channels) + " ch, smoothing " +
                                         (target == SmoothTarget::Histogram ? "histogram" : "lut");
                auto ref = reference::makeEqualizer(d, SampleType::U8, cfg.channels);
                auto gpu = makeEqualizer(d, SampleType::U8, cfg.channels, Backend::Cuda);
                for (int batch = 0; batch < kFrames; batch += kStatisticsDepth) {
                    // Frame t: stream t % 3, in place when t is odd, aligned in runs of six frames (all 12
                    // combinations within 12 frames).
                    std::vector<std::unique_ptr<DeviceFrame>> ins, outs;
                    for (int t = batch; t < batch + kStatisticsDepth; ++t) {
                        const bool aligned = (t / 6) % 2 == 0;
                        ins.push_back(std::make_unique<DeviceFrame>(sourceOf(t), aligned));
                        if (t % 2) {
                            outs.push_back(nullptr);
                        } else {
                            outs.push_back(std::make_unique<DeviceFrame>(cfg.size.w, cfg.size.h, cfg.channels,
                                                                         SampleType::U8, aligned));
                        }
                    }
                    // The uploads (pageable cudaMemcpy on the legacy stream) have landed before the streams start.
                    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                    for (int i = 0; i < kStatisticsDepth; ++i) {
                        const int t = batch + i;
                        if (t == kResetFrame) gpu->reset();
                        const DeviceFrame& dst = outs[i] ? *outs[i] : *ins[i];
                        gpu->process(ins[i]->view(), dst.view(), streams[t % kStreams].get());
                    }
                    std::vector<HostImage> expected;  // computed while the GPU works
                    for (int t = batch; t < batch + kStatisticsDepth; ++t) {
                        if (t == kResetFrame) ref->reset();
                        expected.push_back(runHost(*ref, sourceOf(t)));
                    }
                    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                    for (int i = 0; i < kStatisticsDepth; ++i) {
                        const int t = batch + i;
                        const std::string frame = what + " frame " + std::to_string(t) +
                                                  (t % 2 ? " in place" : "") +
                                                  ((t / 6) % 2 == 0 ? " aligned" : " odd pitch") + " stream " +
                                                  std::to_string(t % kStreams);
                        const HostImage out = (outs[i] ? *outs[i] : *ins[i]).download();
                        const Difference diff = compareImages(expected[i], out);
                        EXPECT_EQ(diff.differing, 0) << frame << ": " << describe(diff);
                        FrameStatistics e, g;
                        ASSERT_TRUE(ref->statistics(e, std::uint64_t(t))) << frame;
                        ASSERT_TRUE(gpu->statistics(g, std::uint64_t(t))) << frame;
                        EXPECT_EQ(e.histogram, g.histogram) << frame;
                        EXPECT_EQ(e.samples, g.samples) << frame;
                        EXPECT_DOUBLE_EQ(e.mean, g.mean) << frame;
                        EXPECT_EQ(e.min, g.min) << frame;
                        EXPECT_EQ(e.max, g.max) << frame;
                    }
                    if (HasFailure()) return;  // one failing batch says enough
                }
            }
    }
}

TEST(HisteqGpu, RepeatedFramesGiveRepeatedResults) {
    // The scratch each pass leaves zeroed for the next frame really is zeroed.
    REQUIRE_GPU();
    for (EqualizeDesc d : {EqualizeDesc{}, clahe(2, 8, 8)}) {
        auto gpu = makeEqualizer(d, SampleType::U8, 1, Backend::Cuda);
        HostImage src(640, 360, 1, SampleType::U8);
        fillPattern(src, Pattern::Random, 1);
        HostImage first = runCuda(*gpu, src, true);
        for (int i = 0; i < 3; ++i) EXPECT_EQ(compareImages(first, runCuda(*gpu, src, i % 2)).differing, 0);
    }
}

namespace {

HostImage retuneFrame(int t, int channels = 1) {
    HostImage img(320, 180, channels, SampleType::U8);
    fillPattern(img, allPatterns()[std::size_t(t) % allPatterns().size()], 300 + t);
    return img;
}

void expectPlanValues(const EqualizePlan& actual, const EqualizePlan& expected) {
    EXPECT_EQ(actual.clipLimit, expected.clipLimit);
    EXPECT_EQ(actual.tilesX, expected.tilesX);
    EXPECT_EQ(actual.tilesY, expected.tilesY);
    EXPECT_EQ(actual.smoothing, expected.smoothing);
}

}  // namespace

// Without smoothing: a new clip limit and a smaller grid are taken in place; the output is that of a fresh CUDA
// equalizer and of the reference.
TEST(HisteqGpuRetune, ValuesOnlyMatchAFreshEqualizer) {
    REQUIRE_GPU();
    for (int channels : {1, 3}) {
        const EqualizePlan a = EqualizePlan::make(clahe(2, 8, 8), SampleType::U8, channels);
        const EqualizePlan b = EqualizePlan::make(clahe(4.5, 4, 6), SampleType::U8, channels);
        auto gpu = makeCudaEqualizer(a);
        HostImage f0 = retuneFrame(0, channels), f1 = retuneFrame(1, channels);
        runCuda(*gpu, f0, true);
        ASSERT_TRUE(gpu->retune(b));
        expectPlanValues(gpu->plan(), b);
        HostImage out = runCuda(*gpu, f1, channels == 1);
        auto fresh = makeCudaEqualizer(b);
        EXPECT_EQ(compareImages(out, runCuda(*fresh, f1, true)).differing, 0) << channels << " channels";
        auto ref = reference::makeEqualizer(b);
        EXPECT_EQ(compareImages(out, runHost(*ref, f1)).differing, 0) << channels << " channels";
    }
}

// clip-limit ramped every frame under smoothing = 0.9, frames alternating between two streams: the histogram EMA
// goes on. Independent model per frame t: a reference equalizer made with frame t's clip limit and fed frames 0..t.
TEST(HisteqGpuRetune, ClipLimitRampKeepsTheSmoothedState) {
    REQUIRE_GPU();
    Stream a = Stream::create(), b = Stream::create();
    EqualizeDesc d = clahe(1, 8, 8);
    d.smoothing = 0.9;
    auto gpu = makeCudaEqualizer(EqualizePlan::make(d, SampleType::U8, 1));
    const int frames = 8;
    for (int t = 0; t < frames; ++t) {
        d.clipLimit = 1 + 0.75 * t;
        const EqualizePlan plan = EqualizePlan::make(d, SampleType::U8, 1);
        ASSERT_TRUE(gpu->retune(plan)) << "frame " << t;
        expectPlanValues(gpu->plan(), plan);
        HostImage src = retuneFrame(t);
        HostImage out = runCuda(*gpu, src, t % 3 != 0, t % 2 ? a.get() : b.get());
        auto model = reference::makeEqualizer(plan);
        HostImage expected;
        for (int u = 0; u <= t; ++u) {
            HostImage earlier = retuneFrame(u);
            expected = runHost(*model, earlier);
        }
        EXPECT_EQ(compareImages(out, expected).differing, 0) << "frame " << t;
        if (t > 0) {
            auto restarted = reference::makeEqualizer(plan);
            EXPECT_GT(compareImages(out, runHost(*restarted, src)).differing, 0) << "frame " << t << ": restarted";
        }
    }
}

// Grids within the tables (smaller, then back to the allocated one): each change restarts the state, the tables
// the kernels leave zeroed stay right (a repeated frame gives the same result), and statistics stay right.
TEST(HisteqGpuRetune, GridChangesWithinTheTables) {
    REQUIRE_GPU();
    EqualizeDesc d = clahe(2, 8, 8);
    d.smoothing = 0.8;
    d.statistics = true;
    auto gpu = makeCudaEqualizer(EqualizePlan::make(d, SampleType::U8, 1));
    int t = 0;
    for (auto [tx, ty] : {std::pair{8, 8}, {3, 5}, {16, 4}, {1, 1}, {8, 8}}) {
        d.tilesX = tx;
        d.tilesY = ty;
        const EqualizePlan plan = EqualizePlan::make(d, SampleType::U8, 1);
        ASSERT_TRUE(gpu->retune(plan)) << tx << "x" << ty;
        auto model = reference::makeEqualizer(plan);
        for (int i = 0; i < 2; ++i, ++t) {
            HostImage src = retuneFrame(t);
            HostImage out = runCuda(*gpu, src, i == 0);
            EXPECT_EQ(compareImages(out, runHost(*model, src)).differing, 0) << tx << "x" << ty << " frame " << i;
            FrameStatistics got, want;
            ASSERT_TRUE(gpu->statistics(got));
            ASSERT_TRUE(model->statistics(want));
            EXPECT_EQ(got.samples, want.samples);
            EXPECT_EQ(got.histogram, want.histogram);
            EXPECT_EQ(got.min, want.min);
            EXPECT_EQ(got.max, want.max);
        }
    }
    d.tilesX = 9;  // 72 tiles > 64
    EXPECT_FALSE(gpu->retune(EqualizePlan::make(d, SampleType::U8, 1)));
    EXPECT_EQ(gpu->plan().tilesX, 8);
}

// A frame enqueued before a retune keeps its clip limit: frame 0 on stream a, retune, frame 1 on stream b, one
// synchronisation at the end.
TEST(HisteqGpuRetune, EnqueuedFramesKeepTheirValues) {
    REQUIRE_GPU();
    const EqualizePlan a = EqualizePlan::make(clahe(1.5, 8, 8), SampleType::U8, 1);
    const EqualizePlan b = EqualizePlan::make(clahe(8, 4, 4), SampleType::U8, 1);
    HostImage f0(1920, 1080, 1, SampleType::U8), f1(1920, 1080, 1, SampleType::U8);
    fillPattern(f0, Pattern::Blobs, 1);
    fillPattern(f1, Pattern::Random, 2);
    DeviceFrame in0(f0, true), in1(f1, true), out0(f0, true), out1(f1, true);
    Stream sa = Stream::create(), sb = Stream::create();
    auto gpu = makeCudaEqualizer(a);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    gpu->process(in0.view(), out0.view(), sa.get());
    ASSERT_TRUE(gpu->retune(b));
    gpu->process(in1.view(), out1.view(), sb.get());
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    auto refA = reference::makeEqualizer(a);
    auto refB = reference::makeEqualizer(b);
    EXPECT_EQ(compareImages(out0.download(), runHost(*refA, f0)).differing, 0) << "before the retune";
    EXPECT_EQ(compareImages(out1.download(), runHost(*refB, f1)).differing, 0) << "after the retune";
}

// With two devices: an equalizer made on device 1, called from a thread whose current device is 0, runs on device 1
// and leaves device 0 current.
TEST(HisteqGpu, ObjectsRunOnTheirDevice) {
    REQUIRE_GPU();
    if (cudaDeviceCount() < 2) GTEST_SKIP() << "needs two CUDA devices";
    const EqualizePlan plan = EqualizePlan::make(clahe(2, 8, 8), SampleType::U8, 1);
    HostImage src = retuneFrame(3);
    CUDAFILTERS_CHECK(cudaSetDevice(1));
    auto gpu = makeCudaEqualizer(plan);
    auto in = std::make_unique<DeviceFrame>(src, true);
    auto out = std::make_unique<DeviceFrame>(src, true);
    CUDAFILTERS_CHECK(cudaSetDevice(0));
    gpu->process(in->view(), out->view(), nullptr);
    EXPECT_EQ(currentDevice(), 0);
    CUDAFILTERS_CHECK(cudaSetDevice(1));
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    auto ref = reference::makeEqualizer(plan);
    EXPECT_EQ(compareImages(out->download(), runHost(*ref, src)).differing, 0);
    in.reset();
    out.reset();
    CUDAFILTERS_CHECK(cudaSetDevice(0));
    gpu.reset();
    EXPECT_EQ(currentDevice(), 0);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Global u8 equalization (the block-LUT kernels, overlapped where the device runs it), against the reference: odd sizes, widths that are not multiples
// of 16, views that start off a 16-byte boundary (src and dst differently), odd pitches, in place, statistics, and
// frames enqueued back to back on rotating streams (the histogram pair handed from frame to frame).
namespace {

std::unique_ptr<Equalizer> globalEqualizer(bool statistics = false) {
    EqualizeDesc d;
    d.statistics = statistics;
    return makeCudaEqualizer(EqualizePlan::make(d, SampleType::U8, 1));
}

struct Placement {
    bool aligned;  // pitch a multiple of 16
    std::size_t srcOffset, dstOffset;
};

const Placement kPlacements[] = {{true, 0, 0}, {false, 0, 0}, {true, 5, 5}, {true, 3, 0}, {false, 1, 14}};

std::string placementName(const Placement& p) {
    return std::string(p.aligned ? "pitch 16k" : "odd pitch") + " offsets " + std::to_string(p.srcOffset) + "/" +
           std::to_string(p.dstOffset);
}

HostImage runPlaced(Equalizer& eq, HostImage& src, const Placement& at, GpuStream stream = nullptr) {
    DeviceFrame in(src, at.aligned, at.srcOffset);
    DeviceFrame out(src.width(), src.height(), src.channels(), src.type(), at.aligned, at.dstOffset);
    if (stream) CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    eq.process(in.view(), out.view(), stream);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    return out.download();
}

}  // namespace

TEST(HisteqGpuGlobalGray8, MatchReference) {
    REQUIRE_GPU();
    const std::vector<Size2> sizes{{1, 1}, {2, 1}, {15, 3}, {16, 16}, {17, 5}, {31, 2}, {97, 61}, {333, 177},
                                   {1921, 1081}};
    {
        auto gpu = globalEqualizer();
        for (Size2 s : sizes)
            for (Pattern pattern : allPatterns()) {
                HostImage src(s.w, s.h, 1, SampleType::U8);
                fillPattern(src, pattern, 11 + s.w);
                auto ref = reference::makeEqualizer(EqualizeDesc{}, SampleType::U8, 1);
                const HostImage expected = runHost(*ref, src);
                for (const Placement& at : kPlacements) {
                    const Difference diff = compareImages(expected, runPlaced(*gpu, src, at));
                    EXPECT_EQ(diff.differing, 0) << "block LUT " << sizeName(s) << " "
                                                 << patternName(pattern) << " " << placementName(at) << ": "
                                                 << describe(diff);
                }
            }
    }
}

TEST(HisteqGpuGlobalGray8, LargeFramesMatchReference) {
    REQUIRE_GPU();
    for (Size2 s : {Size2{3840, 2160}, Size2{4001, 2203}}) {
        HostImage src(s.w, s.h, 1, SampleType::U8);
        fillPattern(src, Pattern::Blobs, 5);
        auto ref = reference::makeEqualizer(EqualizeDesc{}, SampleType::U8, 1);
        const HostImage expected = runHost(*ref, src);
        auto gpu = globalEqualizer();
        for (const Placement& at : {kPlacements[0], kPlacements[4]}) {
            const Difference diff = compareImages(expected, runPlaced(*gpu, src, at));
            EXPECT_EQ(diff.differing, 0) << "block LUT " << sizeName(s) << " "
                                         << placementName(at) << ": " << describe(diff);
        }
    }
}

TEST(HisteqGpuGlobalGray8, InPlace) {
    REQUIRE_GPU();
    for (std::size_t offset : {0, 9})
        for (bool aligned : {true, false}) {
            HostImage src(257, 130, 1, SampleType::U8);
            fillPattern(src, Pattern::Blobs, 9);
            auto ref = reference::makeEqualizer(EqualizeDesc{}, SampleType::U8, 1);
            const HostImage expected = runHost(*ref, src);
            auto gpu = globalEqualizer();
            DeviceFrame frame(src, aligned, offset);
            gpu->process(frame.view(), frame.view());
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            EXPECT_EQ(compareImages(expected, frame.download()).differing, 0)
                << "block LUT offset " << offset << (aligned ? " pitch 16k" : " odd pitch");
        }
}

TEST(HisteqGpuGlobalGray8, StatisticsMatchReference) {
    REQUIRE_GPU();
    EqualizeDesc d;
    d.statistics = true;
    {
        auto ref = reference::makeEqualizer(d, SampleType::U8, 1);
        auto gpu = globalEqualizer(true);
        for (int frame = 0; frame < 4; ++frame) {
            HostImage src(203, 101, 1, SampleType::U8);
            fillPattern(src, frame == 1 ? Pattern::Uniform : Pattern::Blobs, frame);
            const HostImage expected = runHost(*ref, src);
            EXPECT_EQ(compareImages(expected, runPlaced(*gpu, src, kPlacements[frame % 5])).differing, 0);
            FrameStatistics e, g;
            ASSERT_TRUE(ref->statistics(e));
            ASSERT_TRUE(gpu->statistics(g));
            EXPECT_EQ(e.histogram, g.histogram) << "block LUT frame " << frame;
            EXPECT_EQ(e.samples, g.samples);
            EXPECT_DOUBLE_EQ(e.mean, g.mean);
            EXPECT_EQ(e.min, g.min);
            EXPECT_EQ(e.max, g.max);
        }
    }
}

// Frames of different sizes and contents enqueued with no host synchronisation on three rotating streams: each
// frame's histogram starts from the zeroed half of the pair that the frame before left it.
TEST(HisteqGpuGlobalGray8, FramesBackToBackAcrossStreams) {
    REQUIRE_GPU();
    Stream streams[3] = {Stream::create(), Stream::create(), Stream::create()};
    constexpr int kFrames = 12;
    {
        auto gpu = globalEqualizer();
        std::vector<HostImage> expected;
        std::vector<std::unique_ptr<DeviceFrame>> ins, outs;
        for (int t = 0; t < kFrames; ++t) {
            const Size2 s = t % 3 == 0 ? Size2{640, 360} : t % 3 == 1 ? Size2{97, 61} : Size2{1280, 721};
            HostImage src(s.w, s.h, 1, SampleType::U8);
            fillPattern(src, allPatterns()[std::size_t(t) % allPatterns().size()], 40 + t);
            auto ref = reference::makeEqualizer(EqualizeDesc{}, SampleType::U8, 1);
            expected.push_back(runHost(*ref, src));
            ins.push_back(std::make_unique<DeviceFrame>(src, t % 2 == 0, std::size_t(t % 4)));
            outs.push_back(std::make_unique<DeviceFrame>(s.w, s.h, 1, SampleType::U8, t % 2 == 0, std::size_t(t % 5)));
        }
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        for (int t = 0; t < kFrames; ++t) gpu->process(ins[t]->view(), outs[t]->view(), streams[t % 3].get());
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        for (int t = 0; t < kFrames; ++t)
            EXPECT_EQ(compareImages(expected[t], outs[t]->download()).differing, 0)
                << "block LUT frame " << t;
    }
}

// Plans the block-LUT kernels do not take (temporal smoothing, colour, 16 bits, CLAHE) run the tile kernels.
TEST(HisteqGpuGlobalGray8, OtherPlansUnchanged) {
    REQUIRE_GPU();
    EqualizeDesc smoothed;
    smoothed.smoothing = 0.9;
    for (const EqualizeDesc& d : {smoothed, clahe(2, 8, 8)})
        for (int channels : {1, 3}) {
            const EqualizePlan plan = EqualizePlan::make(d, SampleType::U8, channels);
            auto ref = reference::makeEqualizer(plan);
            auto gpu = makeCudaEqualizer(plan);
            for (int t = 0; t < 3; ++t) {
                HostImage src(211, 97, channels, SampleType::U8);
                fillPattern(src, t == 1 ? Pattern::Random : Pattern::Blobs, 70 + t);
                const HostImage expected = runHost(*ref, src);
                EXPECT_EQ(compareImages(expected, runCuda(*gpu, src, t != 2)).differing, 0)
                    << "block LUT " << equalizeModeName(d.mode) << " " << channels;
            }
        }
    {
        const EqualizePlan plan = EqualizePlan::make(EqualizeDesc{}, SampleType::U16, 1);
        auto ref = reference::makeEqualizer(plan);
        auto gpu = makeCudaEqualizer(plan);
        HostImage src(131, 67, 1, SampleType::U16);
        fillPattern(src, Pattern::Blobs, 3);
        const HostImage expected = runHost(*ref, src);
        EXPECT_EQ(compareImages(expected, runCuda(*gpu, src, true)).differing, 0) << "block LUT";
    }
}

// CLAHE on u8 planes and Y/chroma pairs (either channel equalized): the band kernel on grids whose LUT pairs fit a
// band, the chunk kernel on grids that fall back (64 × 1 on a narrow frame), widths that end in a partial chunk, odd
// pitches (which take the one-pixel kernels) and in place.
TEST(HisteqGpuClahePlanes, MatchReference) {
    REQUIRE_GPU();
    struct Layout {
        int channels, luma;
    };
    const Layout layouts[] = {{1, 0}, {2, 0}, {2, 1}};
    const std::vector<Size2> sizes{{16, 16}, {17, 5}, {97, 61}, {333, 177}, {1921, 1081}, {4001, 2203}};
    const std::vector<std::pair<int, int>> grids{{1, 1}, {2, 3}, {8, 8}, {16, 4}, {64, 1}, {3, 21}};
    for (const Layout& layout : layouts)
        for (Size2 s : sizes)
            for (auto [tx, ty] : grids) {
                if (tx > s.w || ty > s.h || (s.w > 2000 && tx * ty < 64 && tx != 8)) continue;
                const EqualizePlan plan = EqualizePlan::make(clahe(2, tx, ty), SampleType::U8, layout.channels, {},
                                                             {}, layout.luma);
                HostImage src(s.w, s.h, layout.channels, SampleType::U8);
                fillPattern(src, (s.w + tx) % 2 ? Pattern::Random : Pattern::Blobs, 5 + tx + ty);
                auto ref = reference::makeEqualizer(plan);
                const HostImage expected = runHost(*ref, src);
                {
                    auto gpu = makeCudaEqualizer(plan);
                    const std::string what = std::to_string(layout.channels) +
                                             "ch Y at " + std::to_string(layout.luma) + " " + sizeName(s) + " grid " +
                                             std::to_string(tx) + "x" + std::to_string(ty);
                    for (bool aligned : {true, false})
                        EXPECT_EQ(compareImages(expected, runCuda(*gpu, src, aligned)).differing, 0)
                            << what << (aligned ? " aligned" : " odd pitch");
                    DeviceFrame frame(src, true);
                    gpu->process(frame.view(), frame.view(), nullptr);
                    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                    EXPECT_EQ(compareImages(expected, frame.download()).differing, 0) << what << " in place";
                }
            }
}

namespace {

// An executable graph per stream, updated with each capture as a caller that runs frames as graphs does.
struct StreamGraph {
    cudaGraphExec_t exec = nullptr;
    int instantiations = 0;
    ~StreamGraph() {
        if (exec) cudaGraphExecDestroy(exec);
    }
    void launchCaptureOf(const std::function<void(cudaStream_t)>& enqueue, cudaStream_t stream) {
        CUDAFILTERS_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        enqueue(stream);
        cudaGraph_t graph = nullptr;
        CUDAFILTERS_CHECK(cudaStreamEndCapture(stream, &graph));
        cudaGraphExecUpdateResultInfo info{};
        if (!exec || cudaGraphExecUpdate(exec, graph, &info) != cudaSuccess) {
            cudaGetLastError();
            if (exec) cudaGraphExecDestroy(exec);
            exec = nullptr;
            CUDAFILTERS_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            ++instantiations;
        }
        CUDAFILTERS_CHECK(cudaGraphDestroy(graph));
        CUDAFILTERS_CHECK(cudaGraphLaunch(exec, stream));
    }
};

}  // namespace

// Frames captured into CUDA graphs and launched on two streams in turn, with no host synchronisation between them
// (the first frame launched directly): the same pixels and statistics as the reference frame by frame, so the graphs'
// event nodes keep the frame order that the temporal state, the global kernels' histogram pair and the statistics
// need; one instantiation per stream, every later frame an update of it; a reset() between frames reaches the next
// graph.
TEST(HisteqGpu, CapturedFramesMatchTheReference) {
    REQUIRE_GPU();
    struct Case {
        const char* what;
        EqualizeDesc desc;
        int channels;
    };
    EqualizeDesc global;
    EqualizeDesc globalStatistics;
    globalStatistics.statistics = true;
    EqualizeDesc smoothed = clahe(2, 8, 8);
    smoothed.smoothing = 0.9;
    EqualizeDesc smoothedLuts = clahe(3, 5, 3);
    smoothedLuts.smoothing = 0.6;
    smoothedLuts.smoothTarget = SmoothTarget::Lut;
    smoothedLuts.statistics = true;
    EqualizeDesc globalSmoothed;
    globalSmoothed.smoothing = 0.8;
    globalSmoothed.statistics = true;
    const Case cases[] = {{"global (block LUT)", global, 1},
                          {"global, statistics", globalStatistics, 1},
                          {"CLAHE 8x8 smoothing 0.9", smoothed, 1},
                          {"CLAHE 5x3 LUT smoothing 0.6, statistics, RGBA luma", smoothedLuts, 4},
                          {"global RGBA luma (16-byte chunks), statistics", globalStatistics, 4},
                          {"global RGBA luma (16-byte chunks), smoothing 0.8, statistics", globalSmoothed, 4}};
    Stream streams[2] = {Stream::create(), Stream::create()};
    constexpr int kFrames = kStatisticsDepth;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const EqualizePlan plan = EqualizePlan::make(c.desc, SampleType::U8, c.channels);
        auto ref = reference::makeEqualizer(plan);
        auto gpu = makeCudaEqualizer(plan);
        ASSERT_TRUE(gpu->capturable());
        std::vector<HostImage> expected;
        std::vector<std::unique_ptr<DeviceFrame>> ins, outs;
        for (int t = 0; t < kFrames; ++t) {
            HostImage src(333, 177, c.channels, SampleType::U8);
            fillPattern(src, allPatterns()[std::size_t(t) % allPatterns().size()], 70 + t);
            if (t == 5) ref->reset();
            expected.push_back(runHost(*ref, src));
            ins.push_back(std::make_unique<DeviceFrame>(src, true));
            outs.push_back(std::make_unique<DeviceFrame>(src.width(), src.height(), c.channels, SampleType::U8, true));
        }
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        StreamGraph graphs[2];
        for (int t = 0; t < kFrames; ++t) {
            if (t == 5) gpu->reset();
            cudaStream_t stream = streams[t % 2].get();
            auto enqueue = [&](cudaStream_t s) { gpu->process(ins[t]->view(), outs[t]->view(), s); };
            if (t == 0) enqueue(stream);
            else graphs[t % 2].launchCaptureOf(enqueue, stream);
        }
        CUDAFILTERS_CHECK(cudaDeviceSynchronize());
        EXPECT_EQ(graphs[0].instantiations, 1);
        EXPECT_EQ(graphs[1].instantiations, 1);
        for (int t = 0; t < kFrames; ++t) {
            EXPECT_EQ(compareImages(expected[t], outs[t]->download()).differing, 0) << "frame " << t;
            if (!plan.statistics) continue;
            FrameStatistics e, g;
            ASSERT_TRUE(ref->statistics(e, std::uint64_t(t)));
            ASSERT_TRUE(gpu->statistics(g, std::uint64_t(t)));
            EXPECT_EQ(e.histogram, g.histogram) << "frame " << t;
            EXPECT_EQ(e.samples, g.samples) << "frame " << t;
            EXPECT_EQ(e.min, g.min) << "frame " << t;
            EXPECT_EQ(e.max, g.max) << "frame " << t;
        }
    }
}


// Global equalization of 4- and 3-channel u8 frames in luma mode: the luma chunk kernels (16 bytes of 4
// pixels, 48 bytes of 16 pixels of 3 channels), taken where both views start on 16 bytes with pitches of 16k, and the tile kernels they replaced (every other placement: pixel words
// where rows are 4-byte aligned, else bytes), against the reference byte for byte, on every channel order, with the
// output poisoned and its padding and the bytes before the view checked.
namespace {

struct LumaLayout {
    ChannelOrder order;
    const char* name;
    int kept;  // the fourth channel: -1 as the content fills it (alpha), else this constant (x formats' padding)
    int channels = 4;
};

const LumaLayout kLumaLayouts[] = {{ChannelOrder::rgb(), "RGBA", -1},  {ChannelOrder::bgr(), "BGRA", -1},
                                   {ChannelOrder::argb(), "ARGB", -1}, {ChannelOrder::abgr(), "ABGR", -1},
                                   {ChannelOrder::rgb(), "RGBx", 0},   {ChannelOrder::bgr(), "BGRx", 0xFF},
                                   {ChannelOrder::argb(), "xRGB", 0},  {ChannelOrder::abgr(), "xBGR", 0x80},
                                   {ChannelOrder{2, 0, 3}, "BxRG (R at 2, G at 0, B at 3)", -1},
                                   {ChannelOrder::rgb(), "RGB", -1, 3},
                                   {ChannelOrder::bgr(), "BGR", -1, 3}};
// The 3-channel layouts (packed RGB and BGR: rows of 3 · width bytes, mostly not 16k).
constexpr std::size_t kRgb = 9, kBgr = 10;

// Chunks where both views start on 16 bytes and both pitches are 16k; the tile kernels otherwise.
const Placement kLumaPlacements[] = {{true, 0, 0}, {true, 16, 48}, {true, 4, 0},
                                     {true, 0, 8}, {false, 0, 0},  {false, 1, 2}};

bool chunksExpected(const Placement& at) { return at.aligned && at.srcOffset % 16 == 0 && at.dstOffset % 16 == 0; }

// Contents: the patterns (random, flat, two levels, a low-contrast gradient, blobs) and colour bars.
constexpr int kLumaContents = 6;

std::string lumaContentName(int content) {
    return content < 5 ? patternName(allPatterns()[std::size_t(content)]) : "colour bars";
}

HostImage lumaFrame(Size2 s, int content, const LumaLayout& layout, std::uint32_t seed) {
    HostImage img(s.w, s.h, layout.channels, SampleType::U8);
    if (content < 5) fillPattern(img, allPatterns()[std::size_t(content)], seed);
    else fillColourBars(img);
    const int kept = 6 - layout.order.red - layout.order.green - layout.order.blue;
    if (layout.channels == 4 && layout.kept >= 0)
        for (int y = 0; y < s.h; ++y)
            for (int x = 0; x < s.w; ++x) img.setSample(x, y, kept, layout.kept);
    return img;
}

EqualizePlan lumaPlan(const LumaLayout& layout, EqualizeDesc d = {}) {
    d.colorMode = ColorMode::Luma;
    return EqualizePlan::make(d, SampleType::U8, layout.channels, layout.order);
}

// The decision function of one chunk path: whether the equalizer takes its chunk kernels for src → dst.
using ChunksApply = bool (*)(const EqualizePlan&, const ImageView&, const ImageView&);

// runPlaced, also asking `applies` about the frame's views.
HostImage runLuma(Equalizer& eq, ChunksApply applies, HostImage& src, const Placement& at, bool& chunks,
                  GpuStream stream = nullptr) {
    DeviceFrame in(src, at.aligned, at.srcOffset);
    DeviceFrame out(src.width(), src.height(), src.channels(), SampleType::U8, at.aligned, at.dstOffset);
    chunks = applies(eq.plan(), in.view(), out.view());
    if (stream) CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    eq.process(in.view(), out.view(), stream);
    CUDAFILTERS_CHECK(cudaDeviceSynchronize());
    return out.download();
}

// The names of the kernels process() enqueues for one frame: the frame captured into a graph (the equalizer is
// capturable), which is then launched (the equalizer counts the frame).
std::vector<std::string> kernelsOfFrame(Equalizer& eq, const ImageView& src, const ImageView& dst) {
    Stream stream = Stream::create();
    CUDAFILTERS_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
    eq.process(src, dst, stream.get());
    cudaGraph_t graph = nullptr;
    CUDAFILTERS_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    const std::vector<std::string> names = kernelNamesOf(graph);
    cudaGraphExec_t exec = nullptr;
    CUDAFILTERS_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDAFILTERS_CHECK(cudaGraphLaunch(exec, stream.get()));
    CUDAFILTERS_CHECK(cudaStreamSynchronize(stream.get()));
    CUDAFILTERS_CHECK(cudaGraphExecDestroy(exec));
    CUDAFILTERS_CHECK(cudaGraphDestroy(graph));
    return names;
}

bool anyNameHolds(const std::vector<std::string>& names, const char* part) {
    for (const std::string& n : names)
        if (n.find(part) != std::string::npos) return true;
    return false;
}

// Every name is that of a kernel whose first template argument is `channels` (mangled or not).
bool kernelsOfChannels(const std::vector<std::string>& names, int channels) {
    const std::string c = std::to_string(channels);
    for (const std::string& n : names)
        if (n.find("<" + c + ",") == std::string::npos && n.find("<" + c + ">") == std::string::npos &&
            n.find("ILi" + c + "E") == std::string::npos)
            return false;
    return !names.empty();
}

std::string joined(const std::vector<std::string>& names) {
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
    return all;
}

// A captured frame's two kernels: the chunk path's pair (instantiated for `channels`) where `chunks`, else the tile
// kernels.
void expectFrameKernels(const std::vector<std::string>& names, const std::array<const char*, 2>& chunkKernels,
                        bool chunks, int channels, const std::string& what) {
    EXPECT_EQ(names.size(), 2u) << what;
    for (const char* kernel : chunkKernels) EXPECT_EQ(anyNameHolds(names, kernel), chunks) << what;
    EXPECT_TRUE(!chunks || kernelsOfChannels(names, channels)) << what;
    EXPECT_EQ(anyNameHolds(names, "histogramKernel"), !chunks) << what;
    EXPECT_EQ(anyNameHolds(names, "applyKernel"), !chunks) << what;
}

// Plans outside a chunk path: its decision says no, and a captured frame of 64 × 32 holds none of its kernels.
template <std::size_t N>
void expectNotTaken(const EqualizePlan (&plans)[N], ChunksApply applies, std::initializer_list<const char*> kernels) {
    for (const EqualizePlan& plan : plans) {
        HostImage src(64, 32, plan.channels, plan.type);
        fillPattern(src, Pattern::Blobs, 1);
        DeviceFrame in(src, true), out(src, true);
        EXPECT_FALSE(applies(plan, in.view(), out.view()));
        auto gpu = makeCudaEqualizer(plan);
        const std::vector<std::string> names = kernelsOfFrame(*gpu, in.view(), out.view());
        for (const char* kernel : kernels) EXPECT_FALSE(anyNameHolds(names, kernel)) << kernel << ": " << joined(names);
    }
}

void expectSameStatistics(const Equalizer& expected, const Equalizer& actual, std::uint64_t frame,
                          const std::string& what) {
    FrameStatistics e, g;
    ASSERT_TRUE(expected.statistics(e, frame)) << what;
    ASSERT_TRUE(actual.statistics(g, frame)) << what;
    EXPECT_EQ(e.histogram, g.histogram) << what;
    EXPECT_EQ(e.samples, g.samples) << what;
    EXPECT_DOUBLE_EQ(e.mean, g.mean) << what;
    EXPECT_EQ(e.min, g.min) << what;
    EXPECT_EQ(e.max, g.max) << what;
}

}  // namespace

TEST(HisteqGpuGlobalLuma, MatchesReference) {
    REQUIRE_GPU();
    const std::vector<Size2> sizes{{1, 1}, {2, 1}, {3, 5}, {4, 4}, {7, 3}, {16, 16}, {17, 9}, {385, 289}};
    for (const LumaLayout& layout : kLumaLayouts) {
        const EqualizePlan plan = lumaPlan(layout);
        auto ref = reference::makeEqualizer(plan);
        {
            auto gpu = makeCudaEqualizer(plan);
            for (Size2 s : sizes)
                for (int content = 0; content < kLumaContents; ++content) {
                    HostImage src = lumaFrame(s, content, layout, 11 + s.w);
                    const HostImage expected = runHost(*ref, src);
                    for (const Placement& at : kLumaPlacements) {
                        const std::string what = std::string(layout.name) + " " + sizeName(s) + " " + lumaContentName(content) + " " +
                                                 placementName(at);
                        bool chunks = false;
                        const Difference diff = compareImages(expected, runLuma(*gpu, detail::globalLumaChunksApply, src, at, chunks));
                        EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                        EXPECT_EQ(chunks, chunksExpected(at)) << what;
                    }
                }
        }
        if (HasFailure()) return;  // one layout's failures say enough
    }
}

TEST(HisteqGpuGlobalLuma, LargeFramesMatchReference) {
    REQUIRE_GPU();
    const LumaLayout layouts[] = {kLumaLayouts[0], kLumaLayouts[3], kLumaLayouts[5], kLumaLayouts[kRgb],
                                  kLumaLayouts[kBgr]};  // RGBA, ABGR, BGRx, RGB, BGR
    for (const LumaLayout& layout : layouts)
        for (Size2 s : {Size2{1921, 1081}, Size2{3840, 2160}}) {
            const EqualizePlan plan = lumaPlan(layout);
            auto ref = reference::makeEqualizer(plan);
            auto gpu = makeCudaEqualizer(plan);
            for (int content : {0, 4, 5}) {  // random, blobs, colour bars
                HostImage src = lumaFrame(s, content, layout, 5);
            const HostImage expected = runHost(*ref, src);
            for (const Placement& at : {kLumaPlacements[0], kLumaPlacements[1], kLumaPlacements[5]}) {
                bool chunks = false;
                const Difference diff = compareImages(expected, runLuma(*gpu, detail::globalLumaChunksApply, src, at, chunks));
                EXPECT_EQ(diff.differing, 0) << layout.name << " " << sizeName(s) << " "
                                             << lumaContentName(content) << " " << placementName(at) << ": "
                                             << describe(diff);
                EXPECT_EQ(chunks, chunksExpected(at));
            }
            }
        }
}

// The kernels a frame runs, read back from a captured graph: the chunk kernels (without smoothing and with it) where
// the rows are 16-byte aligned and the plan is global u8 luma of 4 or 3 channels (the kernels of that many), the tile
// kernels elsewhere; the pixels of the captured frame against the reference.
TEST(HisteqGpuGlobalLuma, ChunkKernelsRunWhereRowsAreAligned) {
    REQUIRE_GPU();
    EqualizeDesc smoothed;
    smoothed.smoothing = 0.5;
    EqualizeDesc statistics;
    statistics.statistics = true;
    for (const LumaLayout& layout : {kLumaLayouts[1], kLumaLayouts[kRgb]})
    for (const EqualizeDesc& d : {EqualizeDesc{}, statistics, smoothed})
        for (const Placement& at : kLumaPlacements) {
            const EqualizePlan plan = lumaPlan(layout, d);
            auto gpu = makeCudaEqualizer(plan);
            auto ref = reference::makeEqualizer(plan);
            HostImage src = lumaFrame({97, 61}, 4, layout, 3);
            const HostImage expected = runHost(*ref, src);
            DeviceFrame in(src, at.aligned, at.srcOffset);
            DeviceFrame out(src.width(), src.height(), layout.channels, SampleType::U8, at.aligned, at.dstOffset);
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            const std::vector<std::string> names = kernelsOfFrame(*gpu, in.view(), out.view());
            const bool chunks = chunksExpected(at);
            const std::string what = std::string(layout.name) + " " + (d.smoothing > 0 ? "smoothed " : "") +
                                     (d.statistics ? "statistics " : "") +
                                     placementName(at) + ": " + joined(names);
            expectFrameKernels(names, {"globalHistogramLuma8", "globalApplyLuma8"}, chunks, layout.channels, what);
            EXPECT_EQ(compareImages(expected, out.download()).differing, 0) << what;
        }
    // Other plans never take them: CLAHE, per-channel (4 and 3 channels), u16 (4 and 3 channels).
    EqualizeDesc perChannel;
    perChannel.colorMode = ColorMode::PerChannel;
    const EqualizePlan others[] = {EqualizePlan::make(clahe(2, 4, 4), SampleType::U8, 4),
                                   EqualizePlan::make(clahe(2, 4, 4), SampleType::U8, 3),
                                   EqualizePlan::make(perChannel, SampleType::U8, 4),
                                   EqualizePlan::make(perChannel, SampleType::U8, 3),
                                   EqualizePlan::make(EqualizeDesc{}, SampleType::U16, 4),
                                   EqualizePlan::make(EqualizeDesc{}, SampleType::U16, 3)};
    expectNotTaken(others, detail::globalLumaChunksApply,
                   {"globalHistogramLuma8", "globalApplyLuma8"});
}

// CLAHE of 4- and 3-channel u8 frames in luma mode: the CLAHE luma chunk kernels (claheHistogramLuma8, claheBandsLuma8),
// taken where both views start on 16 bytes with pitches of 16k and a band's LUT quads fit, and the tile kernels they
// replaced, against the reference byte for byte on every channel order, tile grids from 1 × 1 to one tile per pixel,
// clip limits, widths that end in a partial chunk, padded tiles, statistics, temporal smoothing, in place.
namespace {

EqualizePlan claheLumaPlan(const LumaLayout& layout, double clip, int tx, int ty, EqualizeDesc d = {}) {
    d.mode = EqualizeMode::Clahe;
    d.clipLimit = clip;
    d.tilesX = tx;
    d.tilesY = ty;
    return lumaPlan(layout, d);
}

// Tiles of at least 16 × 8 pixels: a band's LUT quads always fit, so aligned frames take the chunk kernels.
bool coarseTiles(Size2 s, int tx, int ty) { return s.w / tx >= 16 && s.h / ty >= 8; }

const std::pair<int, int> kClaheGrids[] = {{8, 8}, {5, 3}, {1, 1}, {16, 9}, {3, 21}};

}  // namespace

// Small and odd frames (1 × 1 to 97 × 61: grids as large as the frame, widths of 1 to 3 pixels past a chunk, padded
// tiles), every channel order and grid, at every placement (the chunk kernels where the rows are aligned, else the tile
// kernels).
TEST(HisteqGpuClaheLuma, MatchesReference) {
    REQUIRE_GPU();
    const std::vector<Size2> sizes{{1, 1}, {5, 3}, {8, 8}, {16, 9}, {17, 11}, {31, 21}, {97, 61}};
    int combination = 0;
    for (const LumaLayout& layout : kLumaLayouts) {
        for (Size2 s : sizes)
            for (auto [tx, ty] : kClaheGrids) {
                if (tx > s.w || ty > s.h) continue;
                const int content = combination++ % kLumaContents;
                const double clip = combination % 3 == 0 ? 0.0 : 2.0;
                const EqualizePlan plan = claheLumaPlan(layout, clip, tx, ty);
                auto ref = reference::makeEqualizer(plan);
                HostImage src = lumaFrame(s, content, layout, std::uint32_t(7 + s.w + tx));
                const HostImage expected = runHost(*ref, src);
                {
                    auto gpu = makeCudaEqualizer(plan);
                    for (const Placement& at : kLumaPlacements) {
                        const std::string what = std::string(layout.name) + " " + sizeName(s) + " grid " +
                                                 std::to_string(tx) + "x" + std::to_string(ty) + " clip " +
                                                 std::to_string(clip) + " " + lumaContentName(content) + " " +
                                                 placementName(at);
                        bool chunks = false;
                        const Difference diff = compareImages(expected, runLuma(*gpu, detail::claheLumaChunksApply, src, at, chunks));
                        EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                        if (!chunksExpected(at)) {
                            EXPECT_FALSE(chunks) << what;
                        } else if (coarseTiles(s, tx, ty)) {
                            EXPECT_TRUE(chunks) << what;
                        }
                    }
                }
            }
        if (HasFailure()) return;  // one layout's failures say enough
    }
}

// Clip limits from none to one that clips nothing, on flat, random and colour-bar frames with padded tiles.
TEST(HisteqGpuClaheLuma, ClipLimitsMatchReference) {
    REQUIRE_GPU();
    for (double clip : {0.0, 0.01, 1.0, 2.0, 4.0, 40.0})
        for (int content : {0, 1, 5})  // random, uniform, colour bars
            for (auto [tx, ty] : {std::pair{8, 8}, std::pair{5, 3}}) {
                const EqualizePlan plan = claheLumaPlan(kLumaLayouts[0], clip, tx, ty);
                HostImage src = lumaFrame({389, 203}, content, kLumaLayouts[0], 13);
                auto ref = reference::makeEqualizer(plan);
                const HostImage expected = runHost(*ref, src);
                {
                    auto gpu = makeCudaEqualizer(plan);
                    bool chunks = false;
                    const std::string what = "clip " + std::to_string(clip) +
                                             " " + lumaContentName(content) + " grid " + std::to_string(tx) + "x" +
                                             std::to_string(ty);
                    const Difference diff =
                        compareImages(expected, runLuma(*gpu, detail::claheLumaChunksApply, src, kLumaPlacements[0], chunks));
                    EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                    EXPECT_TRUE(chunks) << what;
                }
            }
}

TEST(HisteqGpuClaheLuma, LargeFramesMatchReference) {
    REQUIRE_GPU();
    const Size2 sizes[] = {{1921, 1081}, {3840, 2160}, {4001, 2203}, {4001, 2203}, {1921, 1081}};
    const LumaLayout layouts[] = {kLumaLayouts[0], kLumaLayouts[3], kLumaLayouts[5], kLumaLayouts[kRgb],
                                  kLumaLayouts[kBgr]};  // RGBA, ABGR, BGRx, RGB, BGR
    for (std::size_t i = 0; i < std::size(sizes); ++i)
        for (auto [tx, ty] : {std::pair{8, 8}, std::pair{16, 9}})
            for (int content : {0, 5}) {  // random, colour bars
                const LumaLayout& layout = layouts[i];
                const EqualizePlan plan = claheLumaPlan(layout, 2.0, tx, ty);
                auto ref = reference::makeEqualizer(plan);
                HostImage src = lumaFrame(sizes[i], content, layout, 5);
                const HostImage expected = runHost(*ref, src);
                auto gpu = makeCudaEqualizer(plan);
                for (const Placement& at : {kLumaPlacements[0], kLumaPlacements[1], kLumaPlacements[5]}) {
                    bool chunks = false;
                    const std::string what = std::string(layout.name) + " " + sizeName(sizes[i]) + " grid " +
                                             std::to_string(tx) + "x" + std::to_string(ty) + " " +
                                             lumaContentName(content) + " " + placementName(at);
                    const Difference diff = compareImages(expected, runLuma(*gpu, detail::claheLumaChunksApply, src, at, chunks));
                    EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                    EXPECT_EQ(chunks, chunksExpected(at)) << what;
                }
            }
}

// The kernels a frame runs, read back from a captured graph: the chunk kernels (plain, with statistics, smoothed)
// where the rows are 16-byte aligned and the plan is CLAHE u8 luma of 4 or 3 channels (the kernels of that many), the
// tile kernels elsewhere and on a grid of one tile per pixel (whose band quads do not fit; for 3 channels, whose strips
// are 512 pixels wide, neither on 16 tile columns); the pixels of the captured frame against the reference.
TEST(HisteqGpuClaheLuma, ChunkKernelsRunWhereRowsAreAligned) {
    REQUIRE_GPU();
    EqualizeDesc statistics;
    statistics.statistics = true;
    EqualizeDesc smoothed;
    smoothed.smoothing = 0.5;
    smoothed.smoothTarget = SmoothTarget::Lut;
    struct Grid {
        Size2 size;
        int tx, ty;
        bool fits4, fits3;  // a band's quads fit: strips of 128 pixels (4 channels), of 512 (3 channels)
    };
    const Grid grids[] = {{{97, 61}, 8, 8, true, true},
                          {{256, 64}, 16, 4, true, false},  // 3 channels: 17 tile columns × 3 rows of quads
                          {{256, 64}, 4, 4, true, true},
                          {{64, 64}, 64, 64, false, false}};
    for (const LumaLayout& layout : {kLumaLayouts[1], kLumaLayouts[kBgr]})
    for (const EqualizeDesc& d : {EqualizeDesc{}, statistics, smoothed})
        for (const Grid& g : grids)
            for (const Placement& at : kLumaPlacements) {
                const EqualizePlan plan = claheLumaPlan(layout, 2.0, g.tx, g.ty, d);
                auto gpu = makeCudaEqualizer(plan);
                auto ref = reference::makeEqualizer(plan);
                HostImage src = lumaFrame(g.size, 4, layout, 3);
                const HostImage expected = runHost(*ref, src);
                DeviceFrame in(src, at.aligned, at.srcOffset);
                DeviceFrame out(src.width(), src.height(), layout.channels, SampleType::U8, at.aligned,
                                at.dstOffset);
                CUDAFILTERS_CHECK(cudaDeviceSynchronize());
                const bool chunks =
                    chunksExpected(at) && (layout.channels == 3 ? g.fits3 : g.fits4);
                EXPECT_EQ(detail::claheLumaChunksApply(plan, in.view(), out.view()), chunks);
                const std::vector<std::string> names = kernelsOfFrame(*gpu, in.view(), out.view());
                const std::string what = std::string(layout.name) + " " + (d.smoothing > 0 ? "smoothed " : "") +
                                         (d.statistics ? "statistics " : "") +
                                         sizeName(g.size) + " grid " + std::to_string(g.tx) + "x" +
                                         std::to_string(g.ty) + " " + placementName(at) + ": " + joined(names);
                expectFrameKernels(names, {"claheHistogramLuma8", "claheBandsLuma8"}, chunks, layout.channels, what);
                EXPECT_EQ(compareImages(expected, out.download()).differing, 0) << what;
            }
    // Other plans never take them: global luma, per-channel CLAHE (4 and 3 channels), u16 (4 and 3 channels).
    EqualizeDesc perChannel = clahe(2, 4, 4);
    perChannel.colorMode = ColorMode::PerChannel;
    const EqualizePlan others[] = {EqualizePlan::make(EqualizeDesc{}, SampleType::U8, 4),
                                   EqualizePlan::make(EqualizeDesc{}, SampleType::U8, 3),
                                   EqualizePlan::make(perChannel, SampleType::U8, 4),
                                   EqualizePlan::make(perChannel, SampleType::U8, 3),
                                   EqualizePlan::make(clahe(2, 4, 4), SampleType::U16, 4),
                                   EqualizePlan::make(clahe(2, 4, 4), SampleType::U16, 3)};
    expectNotTaken(others, detail::claheLumaChunksApply,
                   {"claheHistogramLuma8", "claheBandsLuma8"});
}

// What the two chunk paths of 4- and 3-channel u8 luma frames share, tested on both: global equalization and CLAHE
// 5 × 3, clip 3 (its statistics count the frame's pixels, not the tiles' padding).
namespace {

struct LumaPath {
    const char* name;
    bool clahe;
    ChunksApply applies;  // the equalizer's decision

    EqualizePlan plan(const LumaLayout& layout, EqualizeDesc d = {}) const {
        return clahe ? claheLumaPlan(layout, 3.0, 5, 3, d) : lumaPlan(layout, d);
    }
};

const LumaPath kLumaPaths[] = {
    {"global", false, detail::globalLumaChunksApply},
    {"CLAHE 5x3", true, detail::claheLumaChunksApply},
};

}  // namespace

// Statistics frame by frame, the placements cycling so that chunk and tile kernels alternate.
TEST(HisteqGpuLumaChunks, StatisticsMatchReference) {
    REQUIRE_GPU();
    EqualizeDesc d;
    d.statistics = true;
    for (const LumaPath& path : kLumaPaths)
        for (const LumaLayout& layout : {kLumaLayouts[0], kLumaLayouts[3], kLumaLayouts[8], kLumaLayouts[kRgb]}) {
            const EqualizePlan plan = path.plan(layout, d);
            auto ref = reference::makeEqualizer(plan);
            auto gpu = makeCudaEqualizer(plan);
            for (int frame = 0; frame < 2 * kStatisticsDepth; ++frame) {
                HostImage src = lumaFrame(frame % 3 ? Size2{203, 101} : Size2{385, 289}, frame % kLumaContents,
                                          layout, std::uint32_t(frame));
                const HostImage expected = runHost(*ref, src);
                const Placement& at = kLumaPlacements[std::size_t(frame) % std::size(kLumaPlacements)];
                bool chunks = false;
                const std::string what = std::string(path.name) + " " + layout.name + " frame " +
                                         std::to_string(frame) + " " + lumaContentName(frame % kLumaContents) + " " +
                                         placementName(at);
                const HostImage out = runLuma(*gpu, path.applies, src, at, chunks);
                EXPECT_EQ(compareImages(expected, out).differing, 0) << what;
                EXPECT_EQ(chunks, chunksExpected(at)) << what;
                expectSameStatistics(*ref, *gpu, std::uint64_t(frame), what);
            }
        }
}

// Temporal smoothing (histogram and LUT EMA) over a sequence whose frames alternate between the chunk kernels and the
// tile kernels (one temporal state), on two streams, with a reset mid-sequence and statistics.
TEST(HisteqGpuLumaChunks, SmoothedFramesMatchReference) {
    REQUIRE_GPU();
    Stream a = Stream::create(), b = Stream::create();
    for (const LumaPath& path : kLumaPaths)
        for (const LumaLayout& layout : {kLumaLayouts[1], kLumaLayouts[kBgr]})
        for (SmoothTarget target : {SmoothTarget::Histogram, SmoothTarget::Lut})
            for (double alpha : {0.5, 0.9}) {
                EqualizeDesc d;
                d.smoothing = alpha;
                d.smoothTarget = target;
                d.statistics = true;
                const EqualizePlan plan = path.plan(layout, d);
                auto ref = reference::makeEqualizer(plan);
                auto gpu = makeCudaEqualizer(plan);
                for (int t = 0; t < 12; ++t) {
                    if (t == 7) {
                        ref->reset();
                        gpu->reset();
                    }
                    HostImage src = lumaFrame({385, 289}, (t * 5) % kLumaContents, layout, 100 + t);
                    const HostImage expected = runHost(*ref, src);
                    // Chunks on frames 0-3 (a run of them), then alternating with the tile kernels.
                    const Placement& at = t < 4 ? kLumaPlacements[t % 2] : kLumaPlacements[std::size_t(t) % 6];
                    bool chunks = false;
                    const std::string what = std::string(path.name) + " " + layout.name + " " +
                                             (target == SmoothTarget::Histogram ? "histogram" : "lut") +
                                             " EMA alpha " + std::to_string(alpha) + " frame " + std::to_string(t) +
                                             " " + placementName(at);
                    const Difference diff = compareImages(
                        expected, runLuma(*gpu, path.applies, src, at, chunks, t % 2 ? a.get() : b.get()));
                    EXPECT_EQ(diff.differing, 0) << what << ": " << describe(diff);
                    EXPECT_EQ(chunks, chunksExpected(at)) << what;
                    expectSameStatistics(*ref, *gpu, std::uint64_t(t), what);
                }
            }
}

// Frames of different sizes enqueued with no host synchronisation on three rotating streams, odd frames in place:
// the histogram pair (global without smoothing) and the temporal state (smoothing) handed from frame to frame.
TEST(HisteqGpuLumaChunks, FramesBackToBackAcrossStreams) {
    REQUIRE_GPU();
    Stream streams[3] = {Stream::create(), Stream::create(), Stream::create()};
    constexpr int kFrames = kStatisticsDepth;
    EqualizeDesc smoothed;
    smoothed.smoothing = 0.75;
    smoothed.statistics = true;
    for (const LumaPath& path : kLumaPaths)
        for (const LumaLayout& layout : {kLumaLayouts[0], kLumaLayouts[kRgb]})
        for (const EqualizeDesc& d : {EqualizeDesc{}, smoothed}) {
            const EqualizePlan plan = path.plan(layout, d);
            auto ref = reference::makeEqualizer(plan);
            auto gpu = makeCudaEqualizer(plan);
            std::vector<HostImage> expected;
            std::vector<std::unique_ptr<DeviceFrame>> ins, outs;
            for (int t = 0; t < kFrames; ++t) {
                const Size2 s = t % 3 == 0 ? Size2{640, 360} : t % 3 == 1 ? Size2{97, 61} : Size2{1280, 721};
                HostImage src = lumaFrame(s, t % kLumaContents, layout, 40 + t);
                expected.push_back(runHost(*ref, src));
                const Placement& at = kLumaPlacements[std::size_t(t) % 3];  // chunks, chunks, pixel words
                ins.push_back(std::make_unique<DeviceFrame>(src, at.aligned, at.srcOffset));
                if (t % 2) {
                    outs.push_back(nullptr);
                } else {
                    outs.push_back(std::make_unique<DeviceFrame>(s.w, s.h, layout.channels, SampleType::U8,
                                                                 at.aligned, at.dstOffset));
                }
            }
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            for (int t = 0; t < kFrames; ++t) {
                const DeviceFrame& dst = outs[t] ? *outs[t] : *ins[t];
                gpu->process(ins[t]->view(), dst.view(), streams[t % 3].get());
            }
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            for (int t = 0; t < kFrames; ++t) {
                const std::string what = std::string(path.name) + " " + layout.name +
                                         (d.smoothing > 0 ? " smoothed" : " per frame") +
                                         " frame " + std::to_string(t) + (t % 2 ? " in place" : "");
                EXPECT_EQ(compareImages(expected[t], (outs[t] ? *outs[t] : *ins[t]).download()).differing, 0) << what;
                if (d.statistics) expectSameStatistics(*ref, *gpu, std::uint64_t(t), what);
            }
        }
}

// In place at every placement; CLAHE also on a 16 × 9 grid (tiles of 16 × 14 pixels).
TEST(HisteqGpuLumaChunks, InPlace) {
    REQUIRE_GPU();
    struct Case {
        std::string name;
        EqualizePlan plan;
    };
    std::vector<Case> cases;
    for (std::size_t layout : {std::size_t(2), kRgb}) {
        const std::string suffix = std::string(" ") + kLumaLayouts[layout].name;
        for (const LumaPath& path : kLumaPaths)
            cases.push_back({path.name + suffix, path.plan(kLumaLayouts[layout])});
        cases.push_back({"CLAHE 16x9" + suffix, claheLumaPlan(kLumaLayouts[layout], 2.0, 16, 9)});
    }
    for (const auto& [name, plan] : cases)
        for (const Placement& at : kLumaPlacements) {
            HostImage src = lumaFrame({257, 130}, 4, plan.channels == 3 ? kLumaLayouts[kRgb] : kLumaLayouts[2], 9);
            auto ref = reference::makeEqualizer(plan);
            const HostImage expected = runHost(*ref, src);
            auto gpu = makeCudaEqualizer(plan);
            DeviceFrame frame(src, at.aligned, at.srcOffset);
            gpu->process(frame.view(), frame.view());
            CUDAFILTERS_CHECK(cudaDeviceSynchronize());
            EXPECT_EQ(compareImages(expected, frame.download()).differing, 0) << name << " " << placementName(at);
        }
}

#endif  // CUDAFILTERS_HAVE_CUDA

TEST(HisteqGpuAvailability, CudaBackendIsUsableWhenADeviceIsPresent) {
    REQUIRE_GPU();
    EXPECT_TRUE(backendAvailable(Backend::Cuda));
    EXPECT_NO_THROW(makeCudaEqualizer(EqualizePlan::make({}, SampleType::U8, 1)));
}
