// SPDX-License-Identifier: LGPL-2.1-or-later
// A camera server: RTSP cameras in, each through the filters, out again as RTSP streams of this server.
//
//   camera-server [--port N] [--filters "ELEMENTS"] [--encoder auto|h264|jpeg] [--latency MS]
//                 [--config FILE] [NAME=rtsp://camera/stream ...]
//
// Each camera NAME is served at rtsp://HOST:PORT/NAME. Its pipeline starts when the first client connects and is
// shared by every client of that camera: rtspsrc → decodebin (NVIDIA's decoders where nvcodec is present, as it
// ranks them first) → the filters → an H.264 encoder (nvh264enc, else x264enc, else openh264enc) or JPEG → RTP.
// The config file holds one `NAME URL` camera per line (# starts a comment). --port 0 takes any free port; the port
// bound is printed. One process serves many cameras on one GPU; docs/scaling.md says how many, and how to spread
// more over GPUs and hosts.
#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

#include <glib-unix.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Camera {
    std::string name;
    std::string url;
};

struct Options {
    int port = 8554;
    std::string filters = "cudahisteq mode=clahe ! cudaconvolve preset=gaussian size=5";
    std::string encoder = "auto";
    int latencyMs = 200;
    std::vector<Camera> cameras;
};

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "camera-server: %s\n", message.c_str());
    std::exit(2);
}

bool validName(const std::string& name) {
    if (name.empty()) return false;
    for (char c : name)
        if (!g_ascii_isalnum(c) && c != '-' && c != '_') return false;
    return true;
}

void addCamera(Options& o, const std::string& name, const std::string& url, const std::string& where) {
    if (!validName(name)) fail(where + ": camera name '" + name + "' must be letters, digits, - or _");
    if (url.rfind("rtsp://", 0) != 0 && url.rfind("rtsps://", 0) != 0)
        fail(where + ": camera " + name + " URL '" + url + "' is not rtsp://…");
    for (const Camera& c : o.cameras)
        if (c.name == name) fail(where + ": camera " + name + " is given twice");
    o.cameras.push_back({name, url});
}

void readConfig(Options& o, const std::string& path) {
    std::ifstream in(path);
    if (!in) fail("cannot read config file " + path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string name, url, extra;
        if (!(words >> name)) continue;
        const std::string where = path + ":" + std::to_string(n);
        if (!(words >> url) || (words >> extra)) fail(where + ": expected `NAME URL`");
        addCamera(o, name, url, where);
    }
}

// A whole decimal number in [0, max], or fail() naming the option.
int number(const std::string& option, const std::string& text, int max) {
    const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(text) > max)
        fail(option + " must be a whole number from 0 to " + std::to_string(max) + ", not '" + text + "'");
    return std::stoi(text);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&](const char* what) -> std::string {
            if (i + 1 >= argc) fail(a + " needs " + what);
            return argv[++i];
        };
        if (a == "--port") o.port = number(a, value("a port number (0: any free port)"), 65535);
        else if (a == "--filters") o.filters = value("a pipeline description");
        else if (a == "--encoder") o.encoder = value("auto, h264 or jpeg");
        else if (a == "--latency") o.latencyMs = number(a, value("milliseconds"), 60000);
        else if (a == "--config") readConfig(o, value("a file"));
        else if (a == "--help" || a == "-h") {
            std::printf("usage: camera-server [--port N] [--filters \"ELEMENTS\"] [--encoder auto|h264|jpeg] "
                        "[--latency MS] [--config FILE] [NAME=rtsp://… …]\n");
            std::exit(0);
        } else if (a.find('=') != std::string::npos && a.rfind("--", 0) != 0) {
            addCamera(o, a.substr(0, a.find('=')), a.substr(a.find('=') + 1), "argument " + a);
        } else {
            fail("unknown argument " + a + " (--help lists them)");
        }
    }
    if (o.encoder != "auto" && o.encoder != "h264" && o.encoder != "jpeg")
        fail("encoder must be auto, h264 or jpeg, not " + o.encoder);
    if (o.cameras.empty()) fail("no camera given: NAME=rtsp://… or --config FILE");
    return o;
}

bool have(const char* factory) {
    GstElementFactory* f = gst_element_factory_find(factory);
    if (f) gst_object_unref(f);
    return f != nullptr;
}

// The encoder and payloader after the filters. H.264 on the GPU where nvcodec is there, else on the CPU; JPEG
// (gst-plugins-good, always there) where no H.264 encoder is, or when asked for.
std::string encoderChain(const std::string& choice) {
    if (choice != "jpeg") {
        if (have("nvh264enc")) return "videoconvert ! nvh264enc ! h264parse ! rtph264pay config-interval=1";
        if (have("x264enc"))
            return "videoconvert ! x264enc tune=zerolatency speed-preset=veryfast ! rtph264pay config-interval=1";
        if (have("openh264enc")) return "videoconvert ! openh264enc ! h264parse ! rtph264pay config-interval=1";
        if (choice == "h264") fail("no H.264 encoder (nvh264enc, x264enc, openh264enc) is installed");
    }
    return "videoconvert ! jpegenc ! rtpjpegpay";
}

void checkFilters(const std::string& filters) {
    GError* error = nullptr;
    GstElement* bin = gst_parse_bin_from_description(filters.c_str(), TRUE, &error);
    if (!bin) {
        const std::string why = error ? error->message : "cannot be parsed";
        g_clear_error(&error);
        fail("--filters \"" + filters + "\": " + why);
    }
    gst_object_unref(bin);
}

gboolean quit(gpointer loop) {
    g_main_loop_quit(static_cast<GMainLoop*>(loop));
    return G_SOURCE_REMOVE;
}

// Drops the RTSP state of clients that went away without TEARDOWN, so that a camera nobody watches stops.
gboolean expireIdleClients(gpointer server) {
    GstRTSPSessionPool* pool = gst_rtsp_server_get_session_pool(GST_RTSP_SERVER(server));
    gst_rtsp_session_pool_cleanup(pool);
    g_object_unref(pool);
    return G_SOURCE_CONTINUE;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    const Options o = parse(argc, argv);
    checkFilters(o.filters);
    const std::string encode = encoderChain(o.encoder);

    GMainLoop* loop = g_main_loop_new(nullptr, FALSE);
    GstRTSPServer* server = gst_rtsp_server_new();
    gst_rtsp_server_set_service(server, std::to_string(o.port).c_str());
    GstRTSPMountPoints* mounts = gst_rtsp_server_get_mount_points(server);
    for (const Camera& c : o.cameras) {
        const std::string launch = "( rtspsrc location=\"" + c.url + "\" latency=" + std::to_string(o.latencyMs) +
                                   " ! decodebin ! videoconvert ! " + o.filters + " ! " + encode +
                                   " name=pay0 pt=96 )";
        GstRTSPMediaFactory* factory = gst_rtsp_media_factory_new();
        gst_rtsp_media_factory_set_launch(factory, launch.c_str());
        gst_rtsp_media_factory_set_shared(factory, TRUE);
        gst_rtsp_mount_points_add_factory(mounts, ("/" + c.name).c_str(), factory);
    }
    g_object_unref(mounts);

    if (gst_rtsp_server_attach(server, nullptr) == 0) fail("cannot listen on port " + std::to_string(o.port));
    const int port = gst_rtsp_server_get_bound_port(server);
    std::printf("camera-server: listening on port %d; encoder: %s\n", port, encode.c_str());
    for (const Camera& c : o.cameras)
        std::printf("camera %s: %s -> rtsp://127.0.0.1:%d/%s\n", c.name.c_str(), c.url.c_str(), port, c.name.c_str());
    std::fflush(stdout);

    g_unix_signal_add(SIGINT, quit, loop);
    g_unix_signal_add(SIGTERM, quit, loop);
    g_timeout_add_seconds(2, expireIdleClients, server);
    g_main_loop_run(loop);

    g_object_unref(server);
    g_main_loop_unref(loop);
    return 0;
}
