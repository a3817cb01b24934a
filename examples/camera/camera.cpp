// SPDX-License-Identifier: LGPL-2.1-or-later
// Live camera preprocessing: v4l2src → cudahisteq (CLAHE, smoothed) → cudaconvolve (gaussian) → display.
// Without a camera (or with --test-source) it uses a live test source instead. Prints the pipeline's latency.
#include <gst/gst.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    std::string device = "/dev/video0";
    bool headless = false, testSource = false;
    int seconds = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--headless")) headless = true;
        else if (!std::strcmp(argv[i], "--test-source")) testSource = true;
        else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else {
            std::printf("usage: %s [--device /dev/videoN] [--test-source] [--headless] [--seconds N]\n", argv[0]);
            return 2;
        }
    }
    struct stat st;
    const bool haveCamera = !testSource && stat(device.c_str(), &st) == 0 &&
                            gst_element_factory_find("v4l2src") != nullptr;
    const std::string source = haveCamera ? "v4l2src device=" + device
                                          : "videotestsrc is-live=true pattern=ball ! videobalance contrast=0.4";
    std::printf("camera: %s\n", haveCamera ? ("using " + device).c_str() : "no camera, using a live test source");
    const char* backend = std::getenv("BACKEND") ? std::getenv("BACKEND") : "auto";
    const std::string description =
        source + " ! videoconvert ! video/x-raw,format=NV12,width=640,height=480,framerate=30/1 ! "
        "cudahisteq mode=clahe smoothing=0.9 backend=" + backend + " ! "
        "cudaconvolve preset=gaussian size=5 backend=" + backend + " ! videoconvert ! " +
        (headless ? "fakesink sync=true" : "autovideosink");
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    if (!pipeline) {
        std::fprintf(stderr, "camera: %s\n", error->message);
        return 1;
    }
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* msg = gst_bus_timed_pop_filtered(bus, GST_SECOND, GST_MESSAGE_ERROR);
    int status = 0;
    if (!msg) {
        GstQuery* query = gst_query_new_latency();
        if (gst_element_query(pipeline, query)) {
            gboolean live;
            GstClockTime min, max;
            gst_query_parse_latency(query, &live, &min, &max);
            std::printf("camera: live=%s latency min %.1f ms, max %s\n", live ? "yes" : "no", min / 1e6,
                        GST_CLOCK_TIME_IS_VALID(max) ? (std::to_string(max / 1e6) + " ms").c_str() : "none");
        } else {
            std::printf("camera: latency query failed\n");
            status = 1;
        }
        gst_query_unref(query);
        msg = gst_bus_timed_pop_filtered(bus, GstClockTime(seconds) * GST_SECOND,
                                         GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    }
    if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
        GError* err = nullptr;
        gst_message_parse_error(msg, &err, nullptr);
        std::fprintf(stderr, "camera: error: %s\n", err->message);
        g_clear_error(&err);
        status = 1;
    }
    if (msg) gst_message_unref(msg);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    if (status == 0) std::printf("camera: ran %d s without error\n", seconds);
    return status;
}
