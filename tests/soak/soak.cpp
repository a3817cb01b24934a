// SPDX-License-Identifier: LGPL-2.1-or-later
// Soak: pushes N frames through cudaconvolve ! cudahisteq (GstHarness), changing properties of both elements every
// 1000 frames, and samples host RSS and, with CUDA, the plugin's page-locked host memory (its allocator's
// "pinned-bytes") and the device memory in use, every 10 %. Fails when frames in != frames out, when an output is not the reference for its configuration (checked on
// a sample of frames), or when RSS grows by more than 1 % between the end of the warm-up (the first 10 %) and the
// end. A GoogleTest, so the project's summary counts it.
//
//   soak [--frames=N | --seconds=S] [--width=W] [--height=H] [--backend=cpu|cuda|auto] [gtest flags]
//   defaults: 1 000 000 frames of 64x48 GRAY8 on the backend of CUDAFILTERS_TEST_BACKEND (cpu). With --seconds it
//   pushes frames until S seconds have passed (sampling every 10 % of the time) and reports how many it pushed.
#include "process_memory.hpp"
#include "reference.hpp"
#include "test_images.hpp"

#include <cudafilters/convolve.hpp>
#include <cudafilters/device.hpp>
#include <cudafilters/histeq.hpp>
#include <cudafilters/presets.hpp>

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace cudafilters;
using cudafilters::test::HostImage;
using cudafilters::test::deviceUsedMiB;
using cudafilters::test::pinnedKiB;
using cudafilters::test::statusKiB;

struct Options {
    long frames = 1000000;
    double seconds = 0;  // > 0: run for this long instead of a frame count
    int width = 64;
    int height = 48;
    std::string backend;
};
Options options;

struct Sample {
    long frames;
    double seconds;
    long rssKiB;
    long pinnedKiB;      // page-locked host memory the plugin holds; -1 without CUDA
    long deviceUsedMiB;  // -1 without CUDA
};

// The settings the soak cycles through, every 1000 frames: (convolve preset, size) × (histeq mode, clip-limit).
struct Config {
    const char* preset;
    int size;
    const char* mode;
    double clip;
};
const Config kConfigs[] = {
    {"box", 3, "global", 2.0}, {"gaussian", 5, "clahe", 3.0}, {"sharpen", 3, "clahe", 2.0}, {"box", 7, "global", 2.0},
};

// The CPU backend's box and gaussian are OpenCV's fixed-point functions, 1 level from the reference's float sums on
// some samples, which the equalizer after them can widen: a CPU run is checked against the CPU convolver (whose own
// suite checks it against OpenCV), a CUDA run against the reference.
HostImage reference(HostImage& src, const Config& c, bool cpu) {
    HostImage mid = src, out = src;
    const ConvolvePlan plan = ConvolvePlan::make(presetDesc(std::string(c.preset) == "box" ? Preset::Box
                                                            : std::string(c.preset) == "gaussian" ? Preset::Gaussian
                                                                                                : Preset::Sharpen,
                                                            c.size),
                                                 SampleType::U8, 1);
    (cpu ? makeCpuConvolver(plan) : reference::makeConvolver(plan))->process(src.view(), mid.view());
    EqualizeDesc d;
    d.mode = std::string(c.mode) == "clahe" ? EqualizeMode::Clahe : EqualizeMode::Global;
    d.clipLimit = c.clip;
    d.tilesX = d.tilesY = 4;
    reference::makeEqualizer(EqualizePlan::make(d, SampleType::U8, 1))->process(mid.view(), out.view());
    return out;
}

HostImage grayPlane(GstBuffer* buffer, const GstVideoInfo& info) {
    GstVideoFrame frame;
    gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ);
    HostImage image(info.width, info.height, 1, SampleType::U8);
    for (int y = 0; y < info.height; ++y)
        std::memcpy(image.bytes() + y * image.pitch(),
                    static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) +
                        y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0),
                    image.rowBytes());
    gst_video_frame_unmap(&frame);
    return image;
}

TEST(Soak, FramesInEqualFramesOutAndMemoryFlat) {
    const char* envBackend = std::getenv("CUDAFILTERS_TEST_BACKEND");
    const std::string backend = !options.backend.empty() ? options.backend : envBackend && *envBackend ? envBackend : "cpu";
    const bool cpuRun = backend == "cpu" || (backend == "auto" && cudaDeviceCount() == 0);
    const bool timed = options.seconds > 0;
    long frames = timed ? 0 : options.frames;
    GstHarness* h = gst_harness_new_parse(
        ("cudaconvolve name=c backend=" + backend + " preset=box size=3 ! cudahisteq name=e backend=" + backend +
         " tiles-x=4 tiles-y=4")
            .c_str());
    ASSERT_NE(h, nullptr);
    GstElement* convolve = gst_bin_get_by_name(GST_BIN(h->element), "c");
    GstElement* histeq = gst_bin_get_by_name(GST_BIN(h->element), "e");
    ASSERT_TRUE(convolve && histeq);
    const std::string caps = "video/x-raw,format=GRAY8,width=" + std::to_string(options.width) +
                             ",height=" + std::to_string(options.height) + ",framerate=30/1";
    gst_harness_set_src_caps_str(h, caps.c_str());
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, guint(options.width), guint(options.height));

    // A few input frames, reused (shallow copies: each pushed buffer has its own timestamps).
    std::vector<GstBuffer*> templates;
    for (int i = 0; i < 8; ++i) {
        GstBuffer* b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
        GstMapInfo map;
        gst_buffer_map(b, &map, GST_MAP_WRITE);
        std::mt19937 gen{std::uint32_t(i)};
        for (gsize k = 0; k < map.size; ++k) map.data[k] = std::uint8_t(gen());
        gst_buffer_unmap(b, &map);
        templates.push_back(b);
    }

    // The device query loads the CUDA driver where one is installed, GPU or not (Debian's nvidia-cuda-toolkit brings
    // libcuda1): several MiB, once. Made before the first sample, so that it does not read as growth.
    (void)deviceUsedMiB();
    std::vector<Sample> samples;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    auto sample = [&](long done) {
        const double s = elapsed();
        samples.push_back({done, s, statusKiB("VmRSS:"), pinnedKiB(), deviceUsedMiB()});
    };
    long out = 0, checked = 0, wrong = 0;
    std::size_t config = 0;
    const long step = std::max(1L, frames / 10);
    int timedSamples = 0;
    for (long i = 0; timed ? elapsed() < options.seconds : i < frames; ++i) {
        if (timed) frames = i + 1;
        if (i % 1000 == 0 && i > 0) {  // property changes every 1000 frames
            config = (config + 1) % (sizeof kConfigs / sizeof kConfigs[0]);
            const Config& c = kConfigs[config];
            gst_util_set_object_arg(G_OBJECT(convolve), "preset", c.preset);
            g_object_set(convolve, "size", c.size, nullptr);
            gst_util_set_object_arg(G_OBJECT(histeq), "mode", c.mode);
            g_object_set(histeq, "clip-limit", c.clip, nullptr);
        }
        GstBuffer* in = gst_buffer_copy(templates[std::size_t(i) % templates.size()]);
        GST_BUFFER_PTS(in) = GstClockTime(i) * (GST_SECOND / 30);
        GST_BUFFER_DURATION(in) = GST_SECOND / 30;
        if (gst_harness_push(h, in) != GST_FLOW_OK) {
            ADD_FAILURE() << "push failed at frame " << i;
            break;
        }
        while (GstBuffer* b = gst_harness_try_pull(h)) {
            // Spot check, away from the switch (the new settings apply within the pipeline depth): every 997th frame.
            const long index = long(GST_BUFFER_PTS(b) / (GST_SECOND / 30));
            if (index % 997 == 500 && index % 1000 > 10 && index % 1000 < 990) {
                HostImage src = grayPlane(templates[std::size_t(index) % templates.size()], info);
                const HostImage want = reference(src, kConfigs[std::size_t(index / 1000) % 4], cpuRun);
                const HostImage got = grayPlane(b, info);
                ++checked;
                if (cudafilters::test::compareImages(got, want).maxAbs > 1) ++wrong;
            }
            ++out;
            gst_buffer_unref(b);
        }
        if (timed ? elapsed() >= options.seconds * (timedSamples + 1) / 10 : (i + 1) % step == 0) {
            sample(i + 1);
            ++timedSamples;
        }
    }
    gst_harness_push_event(h, gst_event_new_eos());
    while (GstBuffer* b = gst_harness_try_pull(h)) {
        ++out;
        gst_buffer_unref(b);
    }
    const double seconds = elapsed();

    std::printf("\nsoak: %ld frames of %dx%d GRAY8, backend %s, cudaconvolve ! cudahisteq, properties changed every "
                "1000 frames\n", frames, options.width, options.height, backend.c_str());
    std::printf("%10s %9s %10s %10s %12s %12s\n", "frames", "seconds", "RSS KiB", "vs warm", "pinned KiB",
                "device MiB");
    // Warm-up: the first 10 %, and at least two cycles through the four configurations (8000 frames).
    std::size_t warmIndex = 0;
    while (warmIndex + 1 < samples.size() && samples[warmIndex].frames < 8000) ++warmIndex;
    const long warm = samples.empty() ? 0 : samples[warmIndex].rssKiB;
    for (const Sample& s : samples)
        std::printf("%10ld %9.1f %10ld %+9.2f%% %12s %12s\n", s.frames, s.seconds, s.rssKiB,
                    warm ? 100.0 * double(s.rssKiB - warm) / double(warm) : 0.0,
                    s.pinnedKiB < 0 ? "n/a" : std::to_string(s.pinnedKiB).c_str(),
                    s.deviceUsedMiB < 0 ? "n/a" : std::to_string(s.deviceUsedMiB).c_str());
    std::printf("frames in %ld, frames out %ld, %.0f frames/s, %ld sampled outputs checked, %ld wrong\n", frames, out,
                double(frames) / seconds, checked, wrong);

    EXPECT_EQ(out, frames) << "frames in == frames out";
    EXPECT_EQ(wrong, 0) << "outputs that are not the reference of their configuration";
    ASSERT_GE(samples.size(), warmIndex + 1);
    const Sample& last = samples.back();
    const double growth = 100.0 * double(last.rssKiB - warm) / double(warm);
    EXPECT_LE(growth, 1.0) << "RSS grew " << growth << " % after warm-up";
    const Sample& base = samples[warmIndex];
    if (last.deviceUsedMiB >= 0 && base.deviceUsedMiB > 0) {
        EXPECT_LE(last.deviceUsedMiB, base.deviceUsedMiB + base.deviceUsedMiB / 100 + 1) << "device memory grew after warm-up";
    }
    if (last.pinnedKiB >= 0) {
        EXPECT_LE(last.pinnedKiB, base.pinnedKiB + base.pinnedKiB / 100) << "pinned memory grew after warm-up";
    }
    RecordProperty("frames", std::to_string(frames));
    RecordProperty("rss_growth_percent", std::to_string(growth));
    RecordProperty("seconds", std::to_string(seconds));

    for (GstBuffer* b : templates) gst_buffer_unref(b);
    gst_object_unref(convolve);
    gst_object_unref(histeq);
    gst_harness_teardown(h);
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* key) { return a.compare(0, std::strlen(key), key) == 0 ? a.c_str() + std::strlen(key) : nullptr; };
        if (const char* v = value("--frames=")) options.frames = std::atol(v);
        else if (const char* v = value("--seconds=")) options.seconds = std::atof(v);
        else if (const char* v = value("--width=")) options.width = std::atoi(v);
        else if (const char* v = value("--height=")) options.height = std::atoi(v);
        else if (const char* v = value("--backend=")) options.backend = v;
        else if (a[0] != '-') options.frames = std::atol(a.c_str());
    }
    if (options.frames < 10) options.frames = 10;
    const int result = RUN_ALL_TESTS();
    gst_deinit();
    return result;
}
