// SPDX-License-Identifier: LGPL-2.1-or-later
// Each example runs to completion and leaves what it promises.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// Runs a shell command with output captured into the test log; returns the exit status.
int run(const std::string& command) {
    const std::string full =
        "SINK=fakesink FRAMES=12 BACKEND=${CUDAFILTERS_TEST_BACKEND:-auto} timeout 120 " + command + " 2>&1";
    std::printf("$ %s\n", full.c_str());
    std::fflush(stdout);
    const int status = std::system(full.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs a shell command; returns its exit status and, in `output`, what it printed (echoed to the test log too).
int runCapturing(const std::string& command, std::string& output) {
    const std::string full = "timeout 120 " + command + " 2>&1";
    std::printf("$ %s\n", full.c_str());
    FILE* pipe = popen(full.c_str(), "r");
    if (!pipe) return -1;
    char chunk[4096];
    while (std::fgets(chunk, sizeof chunk, pipe)) output += chunk;
    const int status = pclose(pipe);
    std::printf("%s", output.c_str());
    std::fflush(stdout);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A Python that has what examples/python needs (GStreamer's introspection data, numpy, OpenCV); empty when none.
// Debian's python3-gi lives in /usr/bin/python3, which another python3 earlier on the PATH (pyenv) lacks.
std::string pythonForExamples() {
    const std::string imports = "import gi; gi.require_version('Gst', '1.0'); gi.require_version('GstApp', '1.0'); "
                                "gi.require_version('GstVideo', '1.0'); from gi.repository import Gst, GstApp, "
                                "GstVideo; import numpy, cv2";
    for (const std::string& python : {env("PYTHON"), std::string("python3"), std::string("/usr/bin/python3")})
        if (!python.empty() && std::system((python + " -c \"" + imports + "\" >/dev/null 2>&1").c_str()) == 0)
            return python;
    return "";
}

fs::path scratch(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("cudafilters-examples-" + std::to_string(::getpid())) / name;
    fs::create_directories(dir);
    return dir;
}

class LaunchScript : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(LaunchScript, RunsToTheEnd) {
    const fs::path dir = scratch(GetParam());
    const std::string script = env("EXAMPLES_SOURCE_DIR") + "/launch/" + GetParam() + ".sh";
    ASSERT_TRUE(fs::exists(script)) << script;
    EXPECT_EQ(run("env TMPDIR=" + dir.string() + " bash " + script), 0);
}

INSTANTIATE_TEST_SUITE_P(Examples, LaunchScript,
                         ::testing::Values("blur", "sharpen", "sobel", "custom-kernel", "kernel-bank", "clahe-file",
                                           "histeq-edges", "transcode"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

TEST(Examples, TranscodeWritesAFile) {
    const fs::path dir = scratch("transcode-output");
    const fs::path out = dir / "out.avi";
    ASSERT_EQ(run("env TMPDIR=" + dir.string() + " bash " + env("EXAMPLES_SOURCE_DIR") + "/launch/transcode.sh '' " +
                  out.string()),
              0);
    ASSERT_TRUE(fs::exists(out));
    EXPECT_GT(fs::file_size(out), 1000u);
}

TEST(Examples, EmbeddingAppShowsTheSigmaSweep) { EXPECT_EQ(run(env("LIVE_TUNING_EXE") + " 60"), 0); }

TEST(Examples, CameraFallsBackToTestSource) {
    // The stand-in camera sends YUY2, as most webcams do: the filters take it as delivered.
    std::string output;
    EXPECT_EQ(runCapturing(env("CAMERA_EXE") + " --test-source --headless --seconds 2", output), 0);
    EXPECT_NE(output.find("YUY2 as delivered, no videoconvert in front"), std::string::npos) << output;
}

TEST(Examples, DemoWritesVideoAndSnapshots) {
    const fs::path dir = scratch("demo");
    ASSERT_EQ(run(env("DEMO_EXE") + " --frames 45 --size 160x96 --output " + dir.string()), 0);
    ASSERT_TRUE(fs::exists(dir / "demo.avi"));
    EXPECT_GT(fs::file_size(dir / "demo.avi"), 1000u);
    EXPECT_TRUE(fs::exists(dir / "snapshot-00.png"));
    EXPECT_TRUE(fs::exists(dir / "snapshot-01.png"));
}

// examples/python: numpy frames of a width GStreamer pads (397 → rows of 400 bytes) through appsrc → cudahisteq →
// cudaconvolve → appsink, with live changes and the cudahisteq messages, every frame compared with OpenCV.
class PythonExample : public ::testing::TestWithParam<const char*> {};

TEST_P(PythonExample, EveryFrameEqualsOpenCV) {
    const std::string python = pythonForExamples();
    if (python.empty()) GTEST_SKIP() << "no python3 with python3-gi, gir1.2-gst-plugins-base-1.0, numpy and cv2";
    std::string output;
    EXPECT_EQ(runCapturing("env BACKEND=${CUDAFILTERS_TEST_BACKEND:-auto} " + python + " " +
                               env("EXAMPLES_SOURCE_DIR") + "/python/histeq_convolve.py --layout " + GetParam(),
                           output),
              0);
    EXPECT_NE(output.find("12 of 12 frames equal to OpenCV with their cudahisteq message"), std::string::npos);
    EXPECT_NE(output.find("frame  0: clip-limit 2.0, kernel identity: 0 pixels differ"), std::string::npos);
    EXPECT_NE(output.find("frame 11: clip-limit 4.0, kernel 1 2 1; 2 4 2; 1 2 1: 0 pixels differ"),
              std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Layouts, PythonExample, ::testing::Values("meta", "padded"));

TEST(PythonExampleTightRows, GetTheElementsErrorNamingTheCapsStride) {
    const std::string python = pythonForExamples();
    if (python.empty()) GTEST_SKIP() << "no python3 with python3-gi, gir1.2-gst-plugins-base-1.0, numpy and cv2";
    std::string output;
    EXPECT_EQ(runCapturing(python + " " + env("EXAMPLES_SOURCE_DIR") + "/python/histeq_convolve.py --layout tight",
                           output),
              2);
    EXPECT_NE(output.find("does not hold a whole GRAY8 397x241 frame"), std::string::npos);
    EXPECT_NE(output.find("pad each row to 400 bytes"), std::string::npos);
}
