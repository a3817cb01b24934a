// SPDX-License-Identifier: LGPL-2.1-or-later
// Live camera preprocessing: v4l2src → cudahisteq (CLAHE, smoothed) → cudaconvolve (gaussian) → display.
// The camera is asked for its formats first: when one of them is one the elements take (YUY2, UYVY, NV12, …) the
// frames go in as the camera delivers them, with no videoconvert in front; otherwise they are converted to NV12.
// Without a camera (or with --test-source) a live test source that delivers YUY2, as most webcams do, stands in.
// Prints the pipeline's latency.
#include <gst/gst.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>

// The first raw format `source` offers that cudahisteq takes as it is, or "" when there is none (a camera that only
// sends JPEG, or formats of other layouts).
static std::string nativeFormat(const std::string& source) {
    GError* error = nullptr;
    GstElement* bin = gst_parse_bin_from_description(source.c_str(), TRUE, &error);
    GstElementFactory* histeq = gst_element_factory_find("cudahisteq");
    if (!bin || !histeq) {
        g_clear_error(&error);
        if (bin) gst_object_unref(bin);
        if (histeq) gst_object_unref(histeq);
        return {};
    }
    GstCaps* ours = nullptr;
    for (const GList* t = gst_element_factory_get_static_pad_templates(histeq); t; t = t->next) {
        auto* templ = static_cast<GstStaticPadTemplate*>(t->data);
        if (templ->direction == GST_PAD_SINK) ours = gst_static_pad_template_get_caps(templ);
    }
    std::string found;
    gst_element_set_state(bin, GST_STATE_READY);  // v4l2src opens the device and probes what it can send
    GstPad* pad = gst_element_get_static_pad(bin, "src");
    GstCaps* offered = pad ? gst_pad_query_caps(pad, nullptr) : nullptr;
    for (guint i = 0; ours && offered && found.empty() && i < gst_caps_get_size(offered); ++i) {
        const GstStructure* s = gst_caps_get_structure(offered, i);
        if (!gst_structure_has_name(s, "video/x-raw")) continue;
        const GValue* formats = gst_structure_get_value(s, "format");
        const guint n = formats && GST_VALUE_HOLDS_LIST(formats) ? gst_value_list_get_size(formats) : 1;
        for (guint k = 0; formats && found.empty() && k < n; ++k) {
            const GValue* f = GST_VALUE_HOLDS_LIST(formats) ? gst_value_list_get_value(formats, k) : formats;
            if (!G_VALUE_HOLDS_STRING(f)) continue;
            GstCaps* one = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, g_value_get_string(f), nullptr);
            if (gst_caps_can_intersect(one, ours)) found = g_value_get_string(f);
            gst_caps_unref(one);
        }
    }
    if (offered) gst_caps_unref(offered);
    if (pad) gst_object_unref(pad);
    if (ours) gst_caps_unref(ours);
    gst_element_set_state(bin, GST_STATE_NULL);
    gst_object_unref(bin);
    gst_object_unref(histeq);
    return found;
}

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
    const std::string source =
        haveCamera ? "v4l2src device=" + device
                   : "videotestsrc is-live=true pattern=ball ! videobalance contrast=0.4 ! capsfilter caps=video/x-raw,format=YUY2";
    std::printf("camera: %s\n", haveCamera ? ("using " + device).c_str() : "no camera, using a live test source");
    const std::string native = nativeFormat(source);
    std::printf("camera: %s\n", native.empty() ? "no format the filters take, converting to NV12"
                                               : (native + " as delivered, no videoconvert in front").c_str());
    const std::string input = native.empty()
                                  ? " ! videoconvert ! video/x-raw,format=NV12,width=640,height=480,framerate=30/1 ! "
                                  : " ! video/x-raw,format=" + native + " ! ";
    const char* backend = std::getenv("BACKEND") ? std::getenv("BACKEND") : "auto";
    const std::string description =
        source + input + "cudahisteq mode=clahe smoothing=0.9 backend=" + backend + " ! "
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
