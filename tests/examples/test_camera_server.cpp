// SPDX-License-Identifier: LGPL-2.1-or-later
// The camera server on loopback: two RTSP cameras of this test's own (gst-rtsp-server serving a live test pattern)
// go into camera-server, through the two filters on the CPU backend (CUDAFILTERS_TEST_BACKEND picks another), and
// two clients of the server must each receive frames of the cameras' size. Also: what it says to bad arguments and
// bad config files.
#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string env(const char* name, const char* otherwise) {
    const char* v = std::getenv(name);
    return v && *v ? v : otherwise;
}

// Two live cameras of 8-pixel squares (luma 81 and 145), 320 × 240 at 30 fps as JPEG over RTP, on a free loopback port, served from a thread of their own.
class FakeCameras {
public:
    FakeCameras() {
        context_ = g_main_context_new();
        loop_ = g_main_loop_new(context_, FALSE);
        server_ = gst_rtsp_server_new();
        gst_rtsp_server_set_address(server_, "127.0.0.1");
        gst_rtsp_server_set_service(server_, "0");
        GstRTSPMountPoints* mounts = gst_rtsp_server_get_mount_points(server_);
        for (const char* name : {"/cam1", "/cam2"}) {
            GstRTSPMediaFactory* f = gst_rtsp_media_factory_new();
            gst_rtsp_media_factory_set_launch(f, "( videotestsrc is-live=true pattern=checkers-8 ! "
                                                 "video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! "
                                                 "jpegenc ! rtpjpegpay name=pay0 pt=96 )");
            gst_rtsp_media_factory_set_shared(f, TRUE);
            gst_rtsp_mount_points_add_factory(mounts, name, f);
        }
        g_object_unref(mounts);
        attached_ = gst_rtsp_server_attach(server_, context_) != 0;
        port_ = gst_rtsp_server_get_bound_port(server_);
        thread_ = std::thread([this] { g_main_loop_run(loop_); });
    }
    ~FakeCameras() {
        g_main_loop_quit(loop_);
        thread_.join();
        g_object_unref(server_);
        g_main_loop_unref(loop_);
        g_main_context_unref(context_);
    }
    bool attached() const { return attached_; }
    std::string url(const char* name) const { return "rtsp://127.0.0.1:" + std::to_string(port_) + "/" + name; }

private:
    GMainContext* context_;
    GMainLoop* loop_;
    GstRTSPServer* server_;
    std::thread thread_;
    bool attached_ = false;
    int port_ = 0;
};

// camera-server as a child process; its printed lines are read until it names its port.
class ServerProcess {
public:
    explicit ServerProcess(const std::vector<std::string>& args) {
        int out[2];
        if (pipe(out) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            dup2(out[1], STDOUT_FILENO);
            close(out[0]);
            close(out[1]);
            std::vector<char*> argv;
            const std::string exe = env("CAMERA_SERVER_EXE", "camera-server");
            argv.push_back(const_cast<char*>(exe.c_str()));
            for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execv(exe.c_str(), argv.data());
            _exit(127);
        }
        close(out[1]);
        output_ = fdopen(out[0], "r");
    }
    ~ServerProcess() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (output_) fclose(output_);
    }
    // The port from "camera-server: listening on port N", or 0 when it exited first.
    int port() {
        char line[1024];
        while (output_ && std::fgets(line, sizeof line, output_)) {
            std::printf("camera-server> %s", line);
            int port = 0;
            if (std::sscanf(line, "camera-server: listening on port %d", &port) == 1) return port;
        }
        return 0;
    }
    // Asks it to stop (SIGTERM, as a service manager does) and returns its exit status.
    int stop() {
        kill(pid_, SIGTERM);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    pid_t pid_ = -1;
    FILE* output_ = nullptr;
};

// A client of one served camera: frames counted at its sink, with the size they have and the share of luma samples
// between the squares' two levels (the squares' edges, which the Gaussian widens to 4 of each 8 pixels).
struct Client {
    GstElement* pipeline = nullptr;
    std::atomic<int> frames{0};
    std::atomic<int> width{0}, height{0};
    std::atomic<double> greys{0};

    static GstPadProbeReturn count(GstPad* pad, GstPadProbeInfo* info, gpointer self) {
        auto* c = static_cast<Client*>(self);
        if (c->frames++ == 0) {
            GstCaps* caps = gst_pad_get_current_caps(pad);
            const GstStructure* s = gst_caps_get_structure(caps, 0);
            int w = 0, h = 0;
            gst_structure_get_int(s, "width", &w);
            gst_structure_get_int(s, "height", &h);
            c->width = w;
            c->height = h;
            gst_caps_unref(caps);
        }
        GstMapInfo map;
        GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
        if (c->width > 0 && c->height > 0 && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
            const std::size_t luma = std::size_t(c->width) * c->height;  // I420 from jpegdec: the first plane
            std::size_t grey = 0;
            for (std::size_t i = 0; i < luma && i < map.size; ++i) grey += map.data[i] > 92 && map.data[i] < 134;
            c->greys = double(grey) / double(luma);
            gst_buffer_unmap(buffer, &map);
        }
        return GST_PAD_PROBE_OK;
    }

    explicit Client(const std::string& url) {
        const std::string launch = "rtspsrc location=" + url + " latency=100 ! rtpjpegdepay ! jpegdec ! fakesink name=sink";
        pipeline = gst_parse_launch(launch.c_str(), nullptr);
        if (!pipeline) return;
        GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
        GstPad* pad = gst_element_get_static_pad(sink, "sink");
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count, this, nullptr);
        gst_object_unref(pad);
        gst_object_unref(sink);
        gst_element_set_state(pipeline, GST_STATE_PLAYING);
    }
    ~Client() {
        if (!pipeline) return;
        gst_element_set_state(pipeline, GST_STATE_NULL);
        gst_object_unref(pipeline);
    }
    std::string error() const {
        GstBus* bus = gst_element_get_bus(pipeline);
        GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
        std::string why;
        if (m) {
            GError* e = nullptr;
            gst_message_parse_error(m, &e, nullptr);
            why = e ? e->message : "error";
            g_clear_error(&e);
            gst_message_unref(m);
        }
        gst_object_unref(bus);
        return why;
    }
};

// Writes `text` to a file of the test's temporary folder and returns its path.
std::string writeFile(const std::string& name, const std::string& text) {
    const std::string path = testing::TempDir() + name;
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file) {
        std::fputs(text.c_str(), file);
        std::fclose(file);
    }
    return path;
}

int runForStatus(const std::string& args, std::string& output) {
    const std::string command = env("CAMERA_SERVER_EXE", "camera-server") + " " + args + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    char chunk[1024];
    while (p && std::fgets(chunk, sizeof chunk, p)) output += chunk;
    const int status = p ? pclose(p) : -1;
    std::printf("$ %s\n%s", command.c_str(), output.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(CameraServer, TwoCamerasOnLoopbackComeOutFiltered) {
    gst_init(nullptr, nullptr);
    FakeCameras cameras;
    ASSERT_TRUE(cameras.attached());
    const std::string backend = env("CUDAFILTERS_TEST_BACKEND", "cpu");
    // One camera from the arguments, the other from a config file.
    const std::string config =
        writeFile("cameras.txt", "# name  url\n\ncam2 " + cameras.url("cam2") + "   # the second camera\n");
    ServerProcess server({"--port", "0", "--encoder", "jpeg", "--latency", "100", "--filters",
                          "cudahisteq backend=" + backend + " mode=clahe ! cudaconvolve backend=" + backend +
                              " preset=gaussian size=5",
                          "cam1=" + cameras.url("cam1"), "--config", config});
    const int port = server.port();
    ASSERT_GT(port, 0) << "camera-server did not start";

    Client direct(cameras.url("cam1"));
    Client one("rtsp://127.0.0.1:" + std::to_string(port) + "/cam1");
    Client two("rtsp://127.0.0.1:" + std::to_string(port) + "/cam2");
    ASSERT_TRUE(one.pipeline && two.pipeline);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((one.frames < 60 || two.frames < 60 || direct.frames < 60) && std::chrono::steady_clock::now() < deadline &&
           one.error().empty() && two.error().empty())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_GE(one.frames, 60) << one.error();
    EXPECT_GE(two.frames, 60) << two.error();
    EXPECT_EQ(one.width, 320);
    EXPECT_EQ(one.height, 240);
    EXPECT_EQ(two.width, 320);
    EXPECT_EQ(two.height, 240);
    // The cameras' own frames have sharp edges; the served ones are blurred.
    std::printf("between the two levels: camera %.3f, served %.3f / %.3f\n", direct.greys.load(), one.greys.load(),
                two.greys.load());
    EXPECT_LT(direct.greys, 0.15);
    EXPECT_GT(one.greys, 0.3);
    EXPECT_GT(two.greys, 0.3);
    EXPECT_EQ(server.stop(), 0);
}

TEST(CameraServer, SaysWhatIsWrongWithItsArguments) {
    std::string out;
    EXPECT_EQ(runForStatus("--port 0", out), 2);
    EXPECT_NE(out.find("no camera given"), std::string::npos);
    out.clear();
    EXPECT_EQ(runForStatus("--port 0 cam=http://example/stream", out), 2);
    EXPECT_NE(out.find("is not rtsp://"), std::string::npos);
    out.clear();
    EXPECT_EQ(runForStatus("--port 0 --filters 'cudaconvolve preset=nonesuch' cam=rtsp://127.0.0.1:1/x", out), 2);
    EXPECT_NE(out.find("--filters"), std::string::npos);
    out.clear();
    EXPECT_EQ(runForStatus("--port 0 --encoder mpeg2 cam=rtsp://127.0.0.1:1/x", out), 2);
    EXPECT_NE(out.find("encoder must be"), std::string::npos);
    out.clear();
    EXPECT_EQ(runForStatus("--port 0 --latency 2x cam=rtsp://127.0.0.1:1/x", out), 2);
    EXPECT_NE(out.find("--latency must be a whole number from 0 to 60000, not '2x'"), std::string::npos);
    out.clear();
    const std::string config = writeFile("bad-cameras.txt", "cam1 rtsp://127.0.0.1:1/a\ncam2\n");
    EXPECT_EQ(runForStatus("--port 0 --config " + config, out), 2);
    EXPECT_NE(out.find(config + ":2: expected `NAME URL`"), std::string::npos);
    out.clear();
    EXPECT_EQ(runForStatus("--port 0 a=rtsp://127.0.0.1:1/x a=rtsp://127.0.0.1:1/y", out), 2);
    EXPECT_NE(out.find("camera a is given twice"), std::string::npos);
}
