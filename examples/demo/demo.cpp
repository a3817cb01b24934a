// SPDX-License-Identifier: LGPL-2.1-or-later
// cudafilters-demo: feeds a synthetic low-contrast, noisy scene through cudahisteq and cudaconvolve and writes
// a side-by-side video (original | CLAHE | CLAHE, Gaussian 5x5, Sobel magnitude) and PNG snapshots into a folder.
#include "scene.hpp"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct Options {
    std::string output = "demo-output";
    int frames = 150;
    int width = 640;
    int height = 360;
    std::string backend = "auto";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--output") o.output = value();
        else if (arg == "--frames") o.frames = std::atoi(value().c_str());
        else if (arg == "--backend") o.backend = value();
        else if (arg == "--size") std::sscanf(value().c_str(), "%dx%d", &o.width, &o.height);
        else {
            std::printf("usage: %s [--output DIR] [--frames N] [--size WxH] [--backend auto|cuda|cpu]\n", argv[0]);
            std::exit(arg == "--help" ? 0 : 2);
        }
    }
    if (o.frames < 1 || o.width < 16 || o.height < 16) {
        std::fprintf(stderr, "frames must be >= 1 and the size at least 16x16\n");
        std::exit(2);
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    const Options o = parse(argc, argv);
    std::filesystem::create_directories(o.output);
    const std::string dir = std::filesystem::absolute(o.output).string();

    const std::string caps = "video/x-raw,format=RGBA,width=" + std::to_string(o.width) +
                             ",height=" + std::to_string(o.height) + ",framerate=30/1";
    const std::string description =
        "appsrc name=scene is-live=false format=time caps=\"" + caps + "\" ! tee name=t "
        "compositor name=mix sink_1::xpos=" + std::to_string(o.width) + " sink_2::xpos=" +
        std::to_string(2 * o.width) + " ! videoconvert ! video/x-raw,format=I420 ! tee name=out "
        "t. ! queue ! mix.sink_0 "
        "t. ! queue ! cudahisteq name=clahe mode=clahe clip-limit=3 backend=" + o.backend + " ! mix.sink_1 "
        "t. ! queue ! cudahisteq mode=clahe clip-limit=3 backend=" + o.backend +
        " ! cudaconvolve preset=gaussian size=5 backend=" + o.backend +
        " ! cudaconvolve name=edges preset=sobel backend=" + o.backend + " ! mix.sink_2 "
        "out. ! queue ! jpegenc quality=90 ! avimux ! filesink location=\"" + dir + "/demo.avi\" "
        "out. ! queue ! videorate drop-only=true ! video/x-raw,framerate=1/1 ! videoconvert ! pngenc ! "
        "multifilesink location=\"" + dir + "/snapshot-%02d.png\"";

    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    if (!pipeline) {
        std::fprintf(stderr, "demo: could not build the pipeline: %s\n", error ? error->message : "?");
        return 1;
    }
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "scene");
    gst_element_set_state(pipeline, GST_STATE_PLAYING);

    demo::Scene scene(o.width, o.height);
    const std::size_t pitch = std::size_t(o.width) * 4;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < o.frames; ++t) {
        GstBuffer* buffer = gst_buffer_new_allocate(nullptr, pitch * o.height, nullptr);
        GstMapInfo map;
        gst_buffer_map(buffer, &map, GST_MAP_WRITE);
        scene.render(t, map.data, pitch);
        gst_buffer_unmap(buffer, &map);
        GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(t, GST_SECOND, 30);
        GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(1, GST_SECOND, 30);
        if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) break;
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));

    GstBus* bus = gst_element_get_bus(pipeline);
    int status = 0;
    for (bool done = false; !done;) {
        GstMessage* msg = gst_bus_timed_pop(bus, GST_CLOCK_TIME_NONE);
        switch (GST_MESSAGE_TYPE(msg)) {
        case GST_MESSAGE_EOS:
            done = true;
            break;
        case GST_MESSAGE_ERROR:
        case GST_MESSAGE_WARNING:
        case GST_MESSAGE_INFO: {
            GError* err = nullptr;
            gchar* debug = nullptr;
            if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) gst_message_parse_error(msg, &err, &debug);
            else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING) gst_message_parse_warning(msg, &err, &debug);
            else gst_message_parse_info(msg, &err, &debug);
            std::printf("demo: %s from %s: %s\n", gst_message_type_get_name(GST_MESSAGE_TYPE(msg)),
                        GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), err->message);
            if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
                status = 1;
                done = true;
            }
            g_clear_error(&err);
            g_free(debug);
            break;
        }
        default:
            break;
        }
        gst_message_unref(msg);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    GstElement* edges = gst_bin_get_by_name(GST_BIN(pipeline), "edges");
    gchar* backend = nullptr;
    if (edges && g_object_class_find_property(G_OBJECT_GET_CLASS(edges), "active-backend"))
        g_object_get(edges, "active-backend", &backend, nullptr);
    gst_element_set_state(pipeline, GST_STATE_NULL);

    if (status == 0) {
        std::printf("demo: %d frames of %dx%d in %.2f s: %.1f fps for the whole pipeline (3 branches, JPEG and PNG "
                    "encoding included), backend %s\n",
                    o.frames, o.width, o.height, seconds, o.frames / seconds, backend ? backend : o.backend.c_str());
        std::printf("demo: wrote %s/demo.avi (original | CLAHE | CLAHE + Gaussian + Sobel) and %s/snapshot-*.png\n", dir.c_str(),
                    dir.c_str());
    }
    g_free(backend);
    if (edges) gst_object_unref(edges);
    gst_object_unref(bus);
    gst_object_unref(src);
    gst_object_unref(pipeline);
    return status;
}
