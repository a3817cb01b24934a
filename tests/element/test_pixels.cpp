// SPDX-License-Identifier: LGPL-2.1-or-later
// Every format at odd sizes through each element: cudaconvolve's output equals the engine's reference applied per plane
// (filtered planes) or the input (copied planes), padding and all.
#include "element_harness.hpp"
#include "histeq_oracle.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/kernel_text.hpp>
#include <cudafilters/presets.hpp>

#include <tuple>

using namespace elementtest;

namespace {

struct Size2 {
    int width, height;
};
const Size2 kSizes[] = {{385, 289}, {7, 3}, {1, 1}};

// kSizes[index] for `format`: packed 4:2:2 takes even widths only (odd ones are refused, see test_packed422.cpp).
Size2 frameSize(const std::string& format, int index) {
    Size2 s = kSizes[index];
    if (formatCase(format).packed422()) s.width += s.width % 2;
    return s;
}


struct ConvolveConfig {
    const char* name;
    std::vector<std::string> props;
    ConvolveDesc desc;   // what the element should compute, from the engine's own vocabulary
    bool exact;          // integer taps and a power-of-two divisor: the GPU matches the reference exactly
    bool allPlanes = false;
};

const std::vector<ConvolveConfig>& convolveConfigs() {
    static const std::vector<ConvolveConfig> configs = [] {
        std::vector<ConvolveConfig> c;
        c.push_back({"gaussian5", {"preset=gaussian", "size=5"}, presetDesc(Preset::Gaussian, 5), false});
        c.push_back({"sobel", {"preset=sobel"}, presetDesc(Preset::SobelMagnitude, 3), false});
        ConvolveDesc text;
        text.kernels = parseKernelText("1 2 1; 2 4 2; 1 2 1");
        text.border = Border::Constant;
        text.borderValue = 17;
        text.bias = 3;
        c.push_back({"text-constant", {"kernel=1 2 1; 2 4 2; 1 2 1", "border=constant", "border-value=17", "bias=3"},
                     text, true});
        ConvolveDesc asym;
        asym.kernels = parseKernelText("0 -1 2 1; 1 0 -2 3");  // 4x2, even sizes, anchor (2,1)
        asym.border = Border::Wrap;
        asym.divisor = 4;
        asym.absolute = true;
        c.push_back({"asym-wrap-all", {"kernel=0 -1 2 1; 1 0 -2 3", "border=wrap", "divisor=4", "absolute=true",
                                       "planes=all"},
                     asym, true, true});
        // A 15 x 15 disk through the FFT path (algorithm=fft): cuFFT on the GPU, OpenCV's DFT on the CPU.
        std::string disk;
        for (int y = 0; y < 15; ++y) {
            for (int x = 0; x < 15; ++x)
                disk += std::string(x ? " " : "") + ((x - 7) * (x - 7) + (y - 7) * (y - 7) <= 49 ? "1" : "0");
            disk += y < 14 ? "; " : "";
        }
        ConvolveDesc fft;
        fft.kernels = parseKernelText(disk);
        fft.border = Border::Reflect;
        fft.algorithm = ConvolveAlgorithm::Fft;
        c.push_back({"disk15-fft", {"kernel=" + disk, "border=reflect", "algorithm=fft"}, fft, false});
        return c;
    }();
    return configs;
}

bool planeFiltered(const FormatCase& f, std::size_t p, bool allPlanes) {
    return f.rgb || f.planes[p].luma || allPlanes;
}

// Every sample of a 10-bit format's plane is a level of its depth in its container's bits: I420_10LE at most 1023,
// P010_10LE with its low 6 bits zero (at most 65472).
void expectContainerLayout(const HostImage& image, SampleBits bits, const std::string& format, int plane) {
    if (image.type() != SampleType::U16) return;
    const SampleBits b = resolveBits(SampleType::U16, bits);
    unsigned outside = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < image.channels(); ++c) {
                const unsigned v = unsigned(image.sample(x, y, c));
                if ((v & ((1u << b.shift) - 1u)) != 0 || (v >> b.shift) > unsigned(maxLevel(b))) ++outside;
            }
    EXPECT_EQ(outside, 0u) << format << " plane " << plane << ": samples outside " << b.depth << " bits at bit "
                           << b.shift;
}

// Runs `frames` random frames through a harnessed element; returns inputs and outputs.
void runFrames(GstHarness* h, const GstVideoInfo& info, int frames, std::vector<GstBuffer*>& inputs,
               std::vector<GstBuffer*>& outputs) {
    for (int i = 0; i < frames; ++i) {
        GstBuffer* in = randomFrame(info, 1000u + i, GstClockTime(i) * GST_SECOND / 30);
        inputs.push_back(gst_buffer_ref(in));
        ASSERT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
    }
    outputs = finish(h);
    ASSERT_EQ(outputs.size(), std::size_t(frames));
}

class ConvolvePixels : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(ConvolvePixels, MatchesReferencePerPlane) {
    const auto& [format, sizeIndex, configIndex] = GetParam();
    const FormatCase& fc = formatCase(format);
    const Size2 size = frameSize(format, sizeIndex);
    const ConvolveConfig& config = convolveConfigs()[std::size_t(configIndex)];
    const GstVideoInfo info = videoInfo(format, size.width, size.height);

    GstHarness* h = makeHarness("cudaconvolve", config.props, 2);
    gst_harness_set_src_caps_str(h, capsString(format, size.width, size.height).c_str());
    std::vector<GstBuffer*> inputs, outputs;
    runFrames(h, info, 2, inputs, outputs);

    for (std::size_t i = 0; i < outputs.size(); ++i) {
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[i], GST_MAP_READ));
        for (std::size_t p = 0; p < fc.planes.size(); ++p) {
            const PlaneSpec& spec = fc.planes[p];
            HostImage src = planeImage(in, int(p), spec.channels);
            HostImage got = planeImage(out, int(p), spec.channels);
            HostImage expected = src;
            if (fc.packed422()) {
                expected = packedExpected(fc, config.desc, src, size.width, config.allPlanes);
            } else if (planeFiltered(fc, p, config.allPlanes)) {
                ConvolveDesc desc = config.desc;
                desc.channelMask = spec.colorMask;
                ConvolvePlan plan = ConvolvePlan::make(desc, src.type(), spec.channels, fc.bits);
                reference::makeConvolver(plan)->process(src.view(), expected.view());
            }
            expectContainerLayout(got, fc.bits, format, int(p));
            const int tolerance = config.exact ? 0 : 1;  // real taps: float accumulation order may differ by 1
            const auto d = cudafilters::test::compareImages(got, expected);
            EXPECT_LE(d.maxAbs, tolerance) << format << " " << size.width << "x" << size.height << " " << config.name
                                           << " frame " << i << " plane " << p << ": " << describe(d);
        }
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

std::vector<std::string> formatNames() {
    std::vector<std::string> names;
    for (const FormatCase& c : formatCases()) names.push_back(c.name);
    return names;
}

std::string caseName(const std::string& format, int size, const std::string& rest) {
    const Size2 s = frameSize(format, size);
    return format + "_" + std::to_string(s.width) + "x" + std::to_string(s.height) + "_" + rest;
}

INSTANTIATE_TEST_SUITE_P(Formats, ConvolvePixels,
    ::testing::Combine(::testing::ValuesIn(formatNames()), ::testing::Range(0, 3), ::testing::Range(0, 5)),
    [](const auto& info) {
        std::string config = convolveConfigs()[std::size_t(std::get<2>(info.param))].name;
        for (char& ch : config) if (ch == '-') ch = '_';
        return caseName(std::get<0>(info.param), std::get<1>(info.param), config);
    });

// ----------------------------------------------------------------------------------------------------------------

struct HistEqConfig {
    const char* name;
    std::vector<std::string> props;
    EqualizeDesc desc;
};

const std::vector<HistEqConfig>& histeqConfigs() {
    static const std::vector<HistEqConfig> configs = [] {
        std::vector<HistEqConfig> c;
        c.push_back({"global", {"mode=global"}, EqualizeDesc{}});
        EqualizeDesc clahe;
        clahe.mode = EqualizeMode::Clahe;
        clahe.clipLimit = 3;
        clahe.tilesX = 4;
        clahe.tilesY = 3;
        c.push_back({"clahe", {"mode=clahe", "clip-limit=3", "tiles-x=4", "tiles-y=3"}, clahe});
        EqualizeDesc perChannel;
        perChannel.colorMode = ColorMode::PerChannel;
        c.push_back({"per_channel", {"color-mode=per-channel"}, perChannel});
        return c;
    }();
    return configs;
}

// Every sample shifted left (shift > 0) or right (shift < 0).
HostImage shiftSamples(const HostImage& image, int shift) {
    HostImage out = image;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const unsigned v = unsigned(image.sample(x, y, 0));
            out.setSample(x, y, 0, int(shift >= 0 ? v << shift : v >> -shift));
        }
    return out;
}

class HistEqPixels : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(HistEqPixels, MatchesReference) {
    const auto& [format, sizeIndex, configIndex] = GetParam();
    const FormatCase& fc = formatCase(format);
    const Size2 size = frameSize(format, sizeIndex);
    const HistEqConfig& config = histeqConfigs()[std::size_t(configIndex)];
    const GstVideoInfo info = videoInfo(format, size.width, size.height);

    GstHarness* h = makeHarness("cudahisteq", config.props, 3);
    gst_harness_set_src_caps_str(h, capsString(format, size.width, size.height).c_str());
    std::vector<GstBuffer*> inputs, outputs;
    runFrames(h, info, 3, inputs, outputs);

    // Expected pixels from the independent oracles in tests/common/histeq_oracle.hpp, not from the engine's reference
    // (which shares its integer core with the CPU backend): one plane for grey and the luma plane of YUV, packed RGB
    // per channel or through OpenCV's fixed-point YCrCb round trip. The element clamps the grid to the frame.
    EqualizeDesc desc = config.desc;
    desc.tilesX = std::min(desc.tilesX, size.width);
    desc.tilesY = std::min(desc.tilesY, size.height);
    std::unique_ptr<cudafilters::test::OracleEqualizer> planeOracle;
    std::unique_ptr<cudafilters::test::OracleColorEqualizer> colorOracle;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        GstVideoFrame in, out;
        ASSERT_TRUE(gst_video_frame_map(&in, &info, inputs[i], GST_MAP_READ));
        ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[i], GST_MAP_READ));
        for (std::size_t p = 0; p < fc.planes.size(); ++p) {
            HostImage src = planeImage(in, int(p), fc.planes[p].channels);
            HostImage got = planeImage(out, int(p), fc.planes[p].channels);
            HostImage expected = src;
            if (p == 0 && fc.rgb) {
                ASSERT_EQ(src.type(), SampleType::U8) << format;
                if (!colorOracle) colorOracle = std::make_unique<cudafilters::test::OracleColorEqualizer>(desc, fc.order);
                expected = colorOracle->process(src);
            } else if (p == 0 && fc.packed422()) {  // Y as a plane of its own, chroma kept
                if (!planeOracle) planeOracle = std::make_unique<cudafilters::test::OracleEqualizer>(desc, src.type());
                insertY(fc, planeOracle->process(extractY(fc, src, size.width)), expected);
            } else if (p == 0) {
                // On levels: sample >> shift, one bin per level of the format's depth, stored back as level << shift.
                ASSERT_EQ(src.channels(), 1) << format;
                const SampleBits bits = resolveBits(src.type(), fc.bits);
                if (!planeOracle)
                    planeOracle = std::make_unique<cudafilters::test::OracleEqualizer>(desc, 1 << bits.depth);
                expected = shiftSamples(planeOracle->process(shiftSamples(src, -bits.shift)), bits.shift);
            }
            expectContainerLayout(got, fc.bits, format, int(p));
            const auto d = cudafilters::test::compareImages(got, expected);
            EXPECT_EQ(d.maxAbs, 0) << format << " " << size.width << "x" << size.height << " " << config.name
                                   << " frame " << i << " plane " << p << ": " << describe(d);
        }
        gst_video_frame_unmap(&in);
        gst_video_frame_unmap(&out);
    }
    unrefAll(inputs);
    unrefAll(outputs);
    gst_harness_teardown(h);
}

INSTANTIATE_TEST_SUITE_P(Formats, HistEqPixels,
    ::testing::Combine(::testing::ValuesIn(formatNames()), ::testing::Range(0, 3), ::testing::Range(0, 3)),
    [](const auto& info) {
        return caseName(std::get<0>(info.param), std::get<1>(info.param),
                        histeqConfigs()[std::size_t(std::get<2>(info.param))].name);
    });

}  // namespace

namespace {

// 10-bit formats saturate at their top level in their container's bits: 1023 for I420_10LE, 1023 << 6 = 65472 for
// P010_10LE (P016_LE at 65535), on luma and, with planes=all, on chroma.
TEST(TenBitPixels, SaturateAtTheFormatsTopLevel) {
    const std::pair<const char*, int> formats[] = {{"I420_10LE", 1023}, {"P010_10LE", 65472}, {"P016_LE", 65535}};
    for (const auto& [format, top] : formats) {
        const GstVideoInfo info = videoInfo(format, 9, 5);
        GstHarness* h = makeHarness("cudaconvolve", {"kernel=1", "bias=65535", "planes=all"}, 1);
        gst_harness_set_src_caps_str(h, capsString(format, 9, 5).c_str());
        std::vector<GstBuffer*> inputs, outputs;
        runFrames(h, info, 1, inputs, outputs);
        GstVideoFrame out;
        ASSERT_TRUE(gst_video_frame_map(&out, &info, outputs[0], GST_MAP_READ));
        const FormatCase& fc = formatCase(format);
        for (std::size_t p = 0; p < fc.planes.size(); ++p) {
            HostImage got = planeImage(out, int(p), fc.planes[p].channels);
            for (int y = 0; y < got.height(); ++y)
                for (int x = 0; x < got.width(); ++x)
                    for (int c = 0; c < got.channels(); ++c)
                        ASSERT_EQ(got.sample(x, y, c), double(top)) << format << " plane " << p << " at " << x << ","
                                                                    << y << " channel " << c;
        }
        gst_video_frame_unmap(&out);
        unrefAll(inputs);
        unrefAll(outputs);
        gst_harness_teardown(h);
    }
}

}  // namespace
