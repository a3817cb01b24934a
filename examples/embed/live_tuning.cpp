// SPDX-License-Identifier: LGPL-2.1-or-later
// Embedding the elements in an application: frames flow videotestsrc → cudaconvolve → cudahisteq → appsink while
// the application changes properties live (a Gaussian sigma sweep, then CLAHE clip-limit steps) and measures the
// effect on every frame it receives: sharpness (mean |Laplacian|) falls as sigma grows, contrast (standard
// deviation) rises with the clip limit.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct FrameMeasure {
    double sharpness = 0;  // mean |4-neighbour Laplacian|
    double contrast = 0;   // standard deviation
};

FrameMeasure measure(GstSample* sample) {
    GstVideoInfo info;
    gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
    GstVideoFrame frame;
    FrameMeasure m;
    if (!gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) return m;
    const auto* data = static_cast<const guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
    double sum = 0, sum2 = 0, lap = 0;
    for (int y = 1; y < h - 1; ++y)
        for (int x = 1; x < w - 1; ++x) {
            const double v = data[y * stride + x];
            sum += v;
            sum2 += v * v;
            lap += std::fabs(data[(y - 1) * stride + x] + data[(y + 1) * stride + x] + data[y * stride + x - 1] +
                             data[y * stride + x + 1] - 4 * v);
        }
    const double n = double(w - 2) * (h - 2);
    m.sharpness = lap / n;
    m.contrast = std::sqrt(std::max(0.0, sum2 / n - (sum / n) * (sum / n)));
    gst_video_frame_unmap(&frame);
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    const int frames = argc > 1 ? std::atoi(argv[1]) : 120;
    const char* backend = std::getenv("BACKEND") ? std::getenv("BACKEND") : "auto";
    const std::string description =
        std::string("videotestsrc pattern=checkers-8 num-buffers=") + std::to_string(frames) +
        " ! video/x-raw,width=640,height=480,framerate=30/1 ! videobalance contrast=0.5 ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! "
        "cudaconvolve name=blur preset=gaussian size=15 sigma=0.5 backend=" + backend +
        " ! cudahisteq name=eq mode=clahe clip-limit=1 backend=" + backend + " ! appsink name=sink sync=false";
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    if (!pipeline) {
        std::fprintf(stderr, "live-tuning: %s\n", error->message);
        return 1;
    }
    GstElement* blur = gst_bin_get_by_name(GST_BIN(pipeline), "blur");
    GstElement* eq = gst_bin_get_by_name(GST_BIN(pipeline), "eq");
    GstAppSink* sink = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(pipeline), "sink"));
    gst_element_set_state(pipeline, GST_STATE_PLAYING);

    setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("%6s %7s %6s %10s %9s\n", "frame", "sigma", "clip", "sharpness", "contrast");
    int received = 0;
    double firstSharpness = -1, lastSharpness = -1;
    const int half = frames / 2;
    // A bounded wait: an error upstream never brings EOS to the sink.
    while (GstSample* sample = gst_app_sink_try_pull_sample(sink, 10 * GST_SECOND)) {
        const FrameMeasure m = measure(sample);
        gst_sample_unref(sample);
        double sigma = 0, clip = 0;
        g_object_get(blur, "sigma", &sigma, nullptr);
        g_object_get(eq, "clip-limit", &clip, nullptr);
        if (received % 10 == 0) std::printf("%6d %7.2f %6.1f %10.2f %9.2f\n", received, sigma, clip, m.sharpness, m.contrast);
        if (received == 2) firstSharpness = m.sharpness;
        if (received == half - 1) lastSharpness = m.sharpness;
        ++received;
        // First half: sweep sigma 0.5 → 6; second half: hold the blur, step the clip limit 1 → 8.
        if (received < half) g_object_set(blur, "sigma", 0.5 + 5.5 * received / half, nullptr);
        else g_object_set(eq, "clip-limit", 1.0 + 7.0 * (received - half) / (frames - half), nullptr);
    }
    GstMessage* msg = gst_bus_timed_pop_filtered(gst_element_get_bus(pipeline), 0,
                                                 GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    const bool failed = msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
    if (msg) gst_message_unref(msg);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(blur);
    gst_object_unref(eq);
    gst_object_unref(sink);
    gst_object_unref(pipeline);

    std::printf("live-tuning: %d of %d frames; sharpness %.2f at sigma 0.5 -> %.2f at sigma 6\n", received, frames,
                firstSharpness, lastSharpness);
    if (failed || received != frames || !(lastSharpness < firstSharpness)) {
        std::fprintf(stderr, "live-tuning: the sigma sweep did not show in the output\n");
        return 1;
    }
    return 0;
}
